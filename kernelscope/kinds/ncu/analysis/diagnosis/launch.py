"""The launch step: does the grid fill the GPU, is the last wave thin, is the kernel shorter
than its launch (or so short that ramp-up and drain idle its SMs)? Its flags, and the
``launch-bound`` label the classifier tries first."""

from __future__ import annotations

from kernelscope.core.memo import Memo
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG
from kernelscope.kinds.ncu.analysis.diagnosis.derived import GridFit, duration_text
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import Evidence, ev
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts
from kernelscope.kinds.ncu.analysis.diagnosis.outcome import (
    Found,
    Guards,
    Outcome,
    grade,
    missing,
)
from kernelscope.kinds.ncu.analysis.diagnosis.result import Bottleneck
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import Thresholds

_NO_LAUNCH = missing(n.SECTION_LAUNCH)
_NO_SOL = missing(n.SECTION_SOL)
"""The ``Missing`` its checks answer, made once (``missing`` keeps one of each)."""


GRID_REMEDY = CATALOG["grid-too-small"].remedy
"""What to do about SMs without a block (the finding says how many lack one)."""


def grid_evidence(f: Facts) -> Evidence:
    """The grid set against the SM count (both known): the launch step's first check, in the
    bottleneck's trail and in the small-grid flag."""
    return grid_against_sms(f.grid, f.sm_count)


def grid_against_sms(grid: float | None, sm_count: float | None) -> Evidence:
    """``grid_evidence`` of a grid and SM count, kept by the identities of the two values:
    the launches of one shape hold the same objects (``shape.shape_facts``), so most
    launches find theirs made (an entry holds its values, so their ids are not reused)."""
    key = (id(grid), id(sm_count))
    kept = _GRID_EVIDENCE.get(key)
    if kept is None:
        note = f"{n.SM_COUNT} = {sm_count:.0f}"
        made = ev("launch", n.GRID_SIZE, grid, "<", sm_count, "block", note=note)
        kept = _GRID_EVIDENCE.keep(key, (grid, sm_count, made))
    return kept[2]


_GRID_EVIDENCE: Memo[tuple[int, int], tuple[float | None, float | None, Evidence]] = Memo(512)
"""``grid_against_sms`` by the identities of the grid and SM count, held with them."""


def duration_evidence(f: Facts, t: Thresholds) -> Evidence:
    """The kernel's duration set against the short-kernel threshold, kept by the two values
    where the duration is a positive float (equal ones print alike; a zero's sign and a NaN
    would not): a report's launches last a few dozen distinct times, and every launch's
    bottleneck states its duration (a report's JSON writes the item once a launch)."""
    duration, threshold = f.duration_ns, t.short_kernel_ns
    if type(duration) is not float or not duration > 0:
        return ev("launch", n.DURATION, duration, "<", threshold, "ns")
    key = (duration, threshold, type(threshold))
    kept = _DURATION_EVIDENCE.get(key)
    if kept is None:
        kept = _DURATION_EVIDENCE.keep(key, ev("launch", n.DURATION, duration, "<", threshold,
                                               "ns"))
    return kept


_DURATION_EVIDENCE: Memo[tuple[float, float, type], Evidence] = Memo(1024)
"""``duration_evidence`` by the duration, the threshold and the threshold's type (an int
and a float of one value are equal keys, printed otherwise)."""


def short_kernel(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.duration_ns is None:
        return _NO_SOL
    if f.duration_ns <= 0 or f.duration_ns >= t.short_kernel_ramp_ns:
        return None
    if f.duration_ns < t.short_kernel_ns:
        return Found(
            "warning",
            (duration_evidence(f, t),),
            f"The kernel runs {duration_text(f.duration_ns)}, about what a launch costs.",
        )
    evidence = [ev("launch", n.DURATION, f.duration_ns, "<", t.short_kernel_ramp_ns, "ns")]
    detail = (
        f"The kernel runs {duration_text(f.duration_ns)}: its launch, ramp-up and drain are "
        "still a visible share of that."
    )
    severity = "info"
    if f.active_share is not None:
        evidence.append(ramp_evidence(f, t))
        if f.active_share < t.ramp_active:
            detail += f" The SMs have work on only {f.active_share:.0%} of its cycles."
            severity = "warning"
    return Found(severity, tuple(evidence), detail)


def ramp_evidence(f: Facts, t: Thresholds) -> Evidence:
    """The SMs' active share of the elapsed cycles set against ``ramp_active``."""
    return ev(
        "launch",
        n.ACTIVE_SHARE,
        f.active_share,
        "<",
        t.ramp_active,
        note="share of the kernel's cycles the SMs had work",
    )


def grid_too_small(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    """The grid against the SMs: read from ``f.grid_fit`` alone (it holds the grid, the SM
    count and the waves), so its outcome is kept by that fit, which the launches of one
    shape share (``shape.shape_facts``)."""
    fit = f.grid_fit
    key = (id(fit), id(t))
    kept = _GRID_OUTCOMES.get(key)
    if kept is None:
        kept = _GRID_OUTCOMES.keep(key, (fit, t, grid_outcome(fit, t)))
    return kept[2]


_GRID_OUTCOMES: Memo[tuple[int, int], tuple[GridFit, Thresholds, Outcome]] = Memo(512)
"""``grid_outcome`` by the identities of the fit and thresholds, held with them (so that
their ids are not reused while the entry lives); the outcome is immutable."""


def grid_outcome(fit: GridFit, t: Thresholds) -> Outcome:
    """``grid-too-small``'s outcome for a grid that fits the SMs so."""
    grid, sm_count = fit.blocks, fit.sms
    if grid is None or sm_count is None:
        return _NO_LAUNCH
    if fit.every_sm_has_block:
        return _under_a_wave(fit, t)
    if grid <= sm_count * t.grid_critical_fraction:
        severity = "critical"
    elif grid < sm_count * t.grid_warning_fraction:
        severity = "warning"
    else:
        severity = "info"
    idle = fit.idle_sms or 0.0
    remedy = f"{idle:,.0f} of the {sm_count:,.0f} SMs get no block. {GRID_REMEDY}"
    return Found(severity, (grid_against_sms(grid, sm_count),), f"{fit.fill_text()}.",
                 remedy=remedy)


def _under_a_wave(fit: GridFit, t: Thresholds) -> Outcome:
    """A grid with a block for every SM that still fills less than ``grid_fill_waves`` of one
    wave: the SMs hold fewer blocks than their resources allow. Never more than info: every
    SM has work, so the grid is not too small for the GPU."""
    waves = fit.waves
    if waves is None or waves >= t.grid_fill_waves:
        return None
    return Found(
        "info",
        (ev("launch", n.WAVES, waves, "<", t.grid_fill_waves, "wave"),),
        f"{fit.fill_text()} ({waves:.2f} of a wave).",
        remedy=(
            "Every SM has a block, so the grid is not too small for the GPU; each SM could "
            "hold more. Where its warps mostly wait (see the stall reasons), more and smaller "
            "blocks, or more work per launch, give each SM more warps to switch between."
        ),
    )


def tail_effect(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.waves is None:
        return _NO_LAUNCH
    loss = f.tail_loss
    if loss is None or f.waves >= t.tail_many_waves:
        return None
    severity = grade(loss, t.tail_min_loss, t.tail_critical_loss, below=False)
    if severity is None:
        return None
    evidence = [
        ev("launch", n.WAVES, f.waves, unit="wave"),
        ev(
            "launch",
            f"(ceil({n.WAVES}) - {n.WAVES}) / ceil({n.WAVES})",
            loss,
            ">=",
            t.tail_min_loss,
            note="idle share of the SM time, equal-length blocks assumed",
        ),
    ]
    if f.active_share is not None:
        evidence.append(
            ev("launch", n.ACTIVE_SHARE, f.active_share, "<",
               t.tail_sm_active, note="SMs idle part of the time, or warp slots empty")
        )
    return Found(
        severity,
        tuple(evidence),
        f"{f.waves:.2f} waves: the last wave fills only {1 - (-f.waves % 1):.0%} of the GPU.",
    )


# -- the launch-bound label -------------------------------------------------------------------
def _ramping(f: Facts, t: Thresholds) -> bool:
    """A short kernel whose SMs idle a large share of its cycles: ramp-up and drain."""
    return (
        f.duration_ns is not None
        and 0 < f.duration_ns < t.short_kernel_ramp_ns
        and f.active_share is not None
        and f.active_share < t.ramp_active
    )


def _launch_checks(f: Facts, t: Thresholds, trail: list[Evidence]) -> tuple[bool, bool]:
    """Adds the launch step's evidence; returns (SMs without a block, too short). A grid
    with a block on every SM is never launch-bound for its size, whatever its waves."""
    few_blocks = f.grid_fit.every_sm_has_block is False
    short = f.duration_ns is not None and 0 < f.duration_ns < t.short_kernel_ns
    if f.grid is not None and f.sm_count is not None:
        trail.append(grid_evidence(f))
    if f.duration_ns is not None:
        trail.append(duration_evidence(f, t))
    if not short and _ramping(f, t):
        trail.append(ev("launch", n.DURATION, f.duration_ns, "<", t.short_kernel_ramp_ns, "ns"))
        trail.append(ramp_evidence(f, t))
        short = True
    return few_blocks, short


def _busy_on_active_sms(f: Facts, t: Thresholds) -> tuple[str, str, float] | None:
    """The math pipe busy on the SMs that ran, else the busiest unit there (``pipe_busy_pct``)."""
    if f.pipes_busy(t.pipe_busy_pct) and f.busiest_pipe is not None:
        label, metric, pct = f.busiest_pipe
        return f"{label} pipe", metric, pct
    return f.saturated_unit(t.pipe_busy_pct)


def _stronger_than_grid(f: Facts, t: Thresholds) -> bool:
    """A grid that leaves some SMs without a block loses the label to stronger evidence when
    at least ``ramp_active`` of the SMs get a block and (where the report says) have work on
    that share of the kernel's cycles: one stall reason holding most of the cycles while the
    schedulers idle, or a pipe busy on the SMs that ran."""
    known = [v for v in (f.active_share, f.grid_fit.sm_share) if v is not None]
    if not known or min(known) < t.ramp_active:
        return False
    stall_led = f.leading_stall is not None and f.issue_active is not None and (
        f.issue_active < t.issue_underused_pct
    )
    return stall_led or _busy_on_active_sms(f, t) is not None


def launch_step(f: Facts, t: Thresholds, trail: list[Evidence]) -> Bottleneck | None:
    small_grid, short = _launch_checks(f, t, trail)
    if not (small_grid or short) or (f.sm is None and f.mem is None):
        return None  # no launch problem, or no Speed Of Light to tell whether a unit is busy
    launch_short = f.duration_ns is not None and f.duration_ns < t.short_kernel_ns
    if not small_grid and not launch_short and f.leading_stall is not None:
        return None  # a ramping kernel whose warps mostly wait on one thing: that leads
    if small_grid and not launch_short and _stronger_than_grid(f, t):
        return None  # most SMs have a block and the stalls or a busy pipe say more
    busy = [v for v in (f.sm, f.mem) if v is not None and v >= t.sol_busy_pct]
    if busy:
        return None
    trail.extend(sol_pair(f, t))
    fit = f.grid_fit
    if small_grid:
        why = _idle_sms_words(fit, f.sm_count)
    elif launch_short:
        why = "is too short to amortise its launch"
    else:
        why = "is so short that ramp-up and drain leave its SMs idle much of the time"
    busiest = f.saturated_unit(t.sol_busy_pct)
    summary = f"The kernel {why}, and no unit is busy."
    if busiest is not None:
        summary = (f"The kernel {why}, and neither side of Speed Of Light reaches "
                   f"{t.sol_busy_pct:.0f}% (the {busiest[0]} is {busiest[2]:.0f}% busy).")
    full = _busy_on_active_sms(f, t) if small_grid else None
    if full is not None:
        what, metric, pct = full
        share = f.active_share
        note = "on the SMs that ran" + (f" ({share:.0%} of the SM cycles)" if share else "")
        trail.append(ev("compute", metric, pct, ">=", t.pipe_busy_pct, "%", note=note))
        summary = (
            f"The kernel {why}: on the SMs that have work the {what} is {pct:.0f}% busy "
            "(compute-bound there), but the GPU-wide averages stay low because the other SMs "
            "get no block. More blocks (or concurrent work) first."
        )
        if what == "FP64 pipe":
            summary += fp64_rate_note(f)
    return Bottleneck(
        "launch-bound",
        summary,
        tuple(trail),
        decided_by="grid-too-small" if small_grid else "short-kernel",
    )


def _idle_sms_words(fit: GridFit, sm_count: float | None) -> str:
    """``leaves 116 of the 132 SMs without a block``, kept by the identities of the fit and
    SM count, which the launches of one shape share (an entry holds them: ids not reused)."""
    key = (id(fit), id(sm_count))
    kept = _IDLE_WORDS.get(key)
    if kept is None:
        words = f"leaves {fit.idle_sms or 0:,.0f} of the {sm_count or 0:,.0f} SMs without a block"
        kept = _IDLE_WORDS.keep(key, (fit, sm_count, words))
    return kept[2]


_IDLE_WORDS: Memo[tuple[int, int], tuple[GridFit, float | None, str]] = Memo(512)
"""``_idle_sms_words`` by the identities of the fit and SM count, held with them."""


def sol_pair(f: Facts, t: Thresholds) -> list[Evidence]:
    out = []
    if f.sm is not None:
        out.append(ev("sol", n.SM_PCT, f.sm, ">=", t.sol_busy_pct, "%"))
    if f.mem is not None:
        out.append(ev("sol", n.MEM_PCT, f.mem, ">=", t.sol_busy_pct, "%"))
    return out


def fp64_rate_note(f: Facts) -> str:
    """`` This GPU runs FP64 at 1:64 of its FP32 rate: …`` from the FMA peaks per cycle, for a
    summary that names the FP64 pipe; "" when the peaks are unknown."""
    ratio = f.fp64_rate_ratio
    if ratio is None or ratio < 2:
        return ""
    note = f" This GPU runs FP64 at 1:{ratio:.0f} of its FP32 rate"
    if ratio > 4:
        return note + ": where precision allows, FP32 (or mixed precision) is far faster here."
    return note + "."
