"""The occupancy guard rails: when low occupancy is not the kernel's problem (the grid cannot
fill the GPU, ramp-up dominates a short kernel, a unit is already full, the report cannot judge
it, or the kernel trades warps for reuse on purpose), and the register limit that only looks
alarming. Each lowers ``low-occupancy`` and ``occupancy-limiter`` to info, with its reason."""

from __future__ import annotations

import math

from kernelscope.core.memo import Memo
from kernelscope.kinds.ncu.analysis.diagnosis import derived
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import Evidence, ev
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts
from kernelscope.kinds.ncu.analysis.diagnosis.launch import grid_against_sms
from kernelscope.kinds.ncu.analysis.diagnosis.result import GuardRail
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import Thresholds

OCCUPANCY_BY_DESIGN = "occupancy-by-design"
GRID_CANNOT_FILL = "grid-cannot-fill"
REGISTER_LIMIT_LARGE_BLOCKS = "register-limit-large-blocks"
UNIT_SATURATED = "unit-saturated"
OCCUPANCY_NOT_JUDGED = "occupancy-not-judged"
RAMP_DOMINATES = "ramp-dominates"
OCCUPANCY_STAND_DOWNS = (
    GRID_CANNOT_FILL,
    RAMP_DOMINATES,
    UNIT_SATURATED,
    OCCUPANCY_NOT_JUDGED,
    OCCUPANCY_BY_DESIGN,
)
"""The guard rails that lower the occupancy flags to info, in the order they are cited."""


def _small_grid(f: Facts, t: Thresholds) -> bool:
    """Fewer blocks than ``grid_warning_fraction`` of the SMs: most SMs have no warp at all."""
    return (
        f.grid is not None
        and f.sm_count is not None
        and f.grid < f.sm_count * t.grid_warning_fraction
    )


def design_signals(f: Facts, t: Thresholds) -> list[Evidence]:
    """Evidence that the kernel spends the SM's registers and shared memory on purpose: the
    resident blocks hold at least ``design_resource_share`` of the register file or of the
    shared memory."""
    out = []
    for what, value in (
        ("registers × threads × resident blocks / register file", f.register_share),
        ("shared memory × resident blocks / SM shared memory", f.shared_share),
    ):
        if value is not None and value >= t.design_resource_share:
            out.append(ev("occupancy", what, value, ">=", t.design_resource_share))
    return out


def tensor_design_bar(signals: int, t: Thresholds) -> float:
    """The tensor-pipe use that makes low occupancy a design choice, given how many of the
    two resources (registers, shared memory) are near the SM's capacity: ``pipe_busy_pct``
    with neither, ``design_tensor_pct`` with both, midway with one."""
    signals = max(0, min(2, signals))
    return t.pipe_busy_pct - (t.pipe_busy_pct - t.design_tensor_pct) * signals / 2


def occupancy_by_design(f: Facts, t: Thresholds) -> GuardRail | None:
    """Low occupancy that the kernel chose: a math pipe at the compute roof, or a tensor-core
    kernel whose registers and shared memory fill the SM, graded by that evidence (the more
    of the SM the blocks hold, the less tensor-pipe use it takes to call it deliberate)."""
    low = f.low_occupancy(t)
    if not low:
        return None
    busy = f.pipes_busy(t.pipe_busy_pct) and f.busiest_pipe is not None
    signals = [] if busy else design_signals(f, t)
    if not busy and not signals:
        return None  # no busy pipe and no resource held near capacity: nothing chosen
    evidence = list(f.low_evidence(t))
    if busy and f.busiest_pipe is not None:
        label, metric, pct = f.busiest_pipe
        evidence.append(ev("compute", metric, pct, ">=", t.pipe_busy_pct, "%"))
        return GuardRail(
            OCCUPANCY_BY_DESIGN,
            f"Occupancy is low but the {label} pipe is {pct:.0f}% busy: the kernel keeps its "
            "pipes fed with few warps (registers and shared memory spent on reuse), which is "
            "fine.",
            tuple(evidence),
        )
    if f.matrix_work is not None and signals:
        work = f.matrix_work
        note = f"{work.precision} matrix work at {work.pct_of_peak:.0f}% of its peak"
        evidence.append(ev("compute", f"FMA share of {work.precision} operations",
                           work.fma_share, ">=", t.matrix_fma_share, note=note))
        evidence.extend(signals)
        return GuardRail(
            OCCUPANCY_BY_DESIGN,
            f"Occupancy is low by design: this {work.precision} matrix product keeps its tiles "
            "in registers and shared memory, which fill the SM; raising its occupancy would "
            "shrink its tiles and its reuse.",
            tuple(evidence),
        )
    if f.tensor_pipe is None:
        return None
    bar = tensor_design_bar(len(signals), t)
    metric, pct = f.tensor_pipe
    if pct < bar or not signals:
        return None
    evidence.append(ev("compute", metric, pct, ">=", bar, "%", note="Tensor pipe"))
    evidence.extend(signals)
    held = " and ".join(
        f"{e.value or 0:.0%} of the "
        + ("register file" if e.metric.startswith("registers") else "shared memory")
        for e in signals
    )
    return GuardRail(
        OCCUPANCY_BY_DESIGN,
        f"Occupancy is low by design: the tensor pipe is {pct:.0f}% busy and the resident "
        f"blocks hold {held}. A tensor-core kernel trades warps for data reuse; raising its "
        "occupancy would shrink its tiles.",
        tuple(evidence),
    )


def grid_cannot_fill(f: Facts, t: Thresholds) -> GuardRail | None:
    """Low achieved occupancy on a grid too small to fill the GPU, while the per-SM resources
    would allow enough warps: the launch, not a resource, leaves the warp slots empty."""
    if f.fills_gpu is not False:
        return None  # the grid fills the GPU (grid_limits_occupancy's first test)
    small = _small_grid(f, t)
    if not derived.grid_limits_occupancy(
        f.achieved, f.theoretical, False, t, small_grid=small,
        low=f.low_occupancy(t) if small else None,
    ):
        return None  # fine, or a per-SM resource caps the warps whatever the grid
    launch, theoretical, text = _grid_launch_part(f, t)
    return GuardRail(GRID_CANNOT_FILL, text, (launch, *f.low_evidence(t), *theoretical))


_GridPart = tuple[Evidence, tuple[Evidence, ...], str]

_GRID_PARTS: Memo[tuple[int, ...], tuple[tuple[object, ...], _GridPart]] = Memo(256)
"""``_grid_launch_part`` by the identities of what it reads, with those objects (held, so
that their ids are not given to other objects while the entry lives)."""


def _grid_launch_part(f: Facts, t: Thresholds) -> _GridPart:
    """The parts of ``grid-cannot-fill`` that the launch's shape alone sets: its launch
    evidence, its theoretical-occupancy evidence and its text. A report's launches share a
    handful of shapes, whose values ``shape.py`` hands out as the same objects, so this is
    kept by the identities of the objects it reads: a match is those very values."""
    read = (t, f.grid, f.sm_count, f.waves, f.theoretical, f.grid_fit)
    key = tuple(map(id, read))
    kept = _GRID_PARTS.get(key)
    if kept is None:
        kept = _GRID_PARTS.keep(key, (read, _grid_launch_worked_out(f, t)))
    return kept[1]


def _grid_launch_worked_out(f: Facts, t: Thresholds) -> _GridPart:
    """``_grid_launch_part`` without the memo."""
    theoretical: tuple[Evidence, ...] = ()
    if f.theoretical is not None and f.theoretical >= t.occupancy_low_pct:
        theoretical = (
            ev("occupancy", n.THEORETICAL_OCC, f.theoretical, ">=", t.occupancy_low_pct, "%"),
        )
    if f.grid is not None and f.sm_count is not None and f.grid < f.sm_count:
        launch = grid_against_sms(f.grid, f.sm_count)
        blocks = "1 block" if f.grid == 1 else f"{f.grid:.0f} blocks"
        why = f"{blocks} for {f.sm_count:.0f} SMs"
        return launch, theoretical, (
            f"The grid cannot fill the GPU ({why}): SMs get no block, so occupancy is low "
            "because of the launch. Give the GPU more blocks first; occupancy advice only "
            "applies once the grid fills it."
        )
    launch = ev("launch", n.WAVES, f.waves, "<", t.waves_fill, "wave")
    waves = f"{f.waves:.2f} waves" if f.waves is not None else "less than a wave"
    fit = f.grid_fit.fill_text()
    return launch, theoretical, (
        f"The grid cannot fill the SMs' warp slots ({fit + ', ' if fit else ''}{waves}): "
        "every SM has a block but fewer than its resources allow, so occupancy is low "
        "because of the launch, not a per-SM resource. More, smaller blocks first; "
        "occupancy advice only applies once the SMs hold what they can."
    )


def unit_saturated(f: Facts, t: Thresholds) -> GuardRail | None:
    """Low occupancy next to a unit or pipe that is already full (on the SMs that ran): more
    resident warps would only queue at that unit, so the occupancy flags stand down."""
    low = f.low_occupancy(t)
    if not low:
        return None
    full = f.saturated_unit(t.unit_saturated_pct)
    if full is None:
        return None
    what, metric, pct = full
    evidence = list(f.low_evidence(t))
    note = "on the SMs that ran" if metric == n.SM_PCT and pct != f.sm else ""
    evidence.append(ev("sol", metric, pct, ">=", t.unit_saturated_pct, "%", note=note))
    return GuardRail(
        UNIT_SATURATED,
        f"Occupancy is low but the {what} is {pct:.0f}% busy: more resident warps cannot help "
        "a unit that is already full, so low occupancy is not this kernel's problem.",
        tuple(evidence),
    )


def ramp_dominates(f: Facts, t: Thresholds) -> GuardRail | None:
    """Low occupancy in a short kernel whose SMs idle much of its time: ramp-up, block
    turnover and drain set its time and thin out the warps measured, not a per-SM resource."""
    short = f.duration_ns is not None and 0 < f.duration_ns < t.short_kernel_ramp_ns
    if not short or f.active_share is None or f.active_share >= t.ramp_active:
        return None
    if not f.low_occupancy(t):
        return None
    if f.theoretical is not None and f.theoretical < t.occupancy_low_pct:
        return None  # a per-SM resource caps the warps: the ramp does not explain that
    evidence = [
        ev("launch", n.DURATION, f.duration_ns, "<", t.short_kernel_ramp_ns, "ns"),
        ev(
            "launch",
            n.ACTIVE_SHARE,
            f.active_share,
            "<",
            t.ramp_active,
        ),
        *f.low_evidence(t),
    ]
    return GuardRail(
        RAMP_DOMINATES,
        f"The kernel runs {derived.duration_text(f.duration_ns or 0)} and its SMs have work on "
        f"only {f.active_share:.0%} of its cycles: ramp-up, block turnover and drain set its time "
        "and thin out the warps measured. Fusing it with its neighbours (or a CUDA Graph) helps "
        "more than more warps.",
        tuple(evidence),
    )


def occupancy_not_judged(f: Facts, t: Thresholds) -> GuardRail | None:
    """Low occupancy in a report without Speed Of Light: whether any unit waits for more warps
    cannot be told, so the occupancy flags are not raised above info."""
    if f.sm is not None or f.mem is not None or not f.low_occupancy(t):
        return None
    return GuardRail(OCCUPANCY_NOT_JUDGED, _NOT_JUDGED, f.low_evidence(t))


_NOT_JUDGED = (
    "Occupancy is low, but the report holds no Speed Of Light to tell whether the kernel "
    f"waits for more warps or a unit is full: not judged. Collect {n.SECTION_SOL} and "
    f"{n.SECTION_WARP_STATE} (ncu --section {n.SECTION_SOL} --section "
    f"{n.SECTION_WARP_STATE}, or --set full)."
)
"""``occupancy-not-judged``'s text (its words are the same for every kernel)."""


def register_limit_large_blocks(f: Facts, t: Thresholds) -> GuardRail | None:
    """A register block limit of 1-2 with large blocks can still mean full occupancy."""
    limit = f.limits.get("registers")
    if limit is None or limit > t.register_limit_small or f.block is None:
        return None
    if f.theoretical is None or f.theoretical < t.occupancy_low_pct:
        return None
    warps = limit * math.ceil(f.block / 32)
    return GuardRail(
        REGISTER_LIMIT_LARGE_BLOCKS,
        f"Registers allow only {limit:.0f} block(s) per SM, but each block has "
        f"{math.ceil(f.block / 32)} warps: {warps:.0f} resident warps give "
        f"{f.theoretical:.0f}% theoretical occupancy, so the register limit is not a problem.",
        (
            ev(
                "occupancy",
                "launch__occupancy_limit_registers",
                limit,
                "<=",
                t.register_limit_small,
                "block",
            ),
            ev("launch", n.BLOCK_SIZE, f.block, unit="thread"),
            ev("occupancy", n.THEORETICAL_OCC, f.theoretical, ">=", t.occupancy_low_pct, "%"),
        ),
    )
