"""Guard rails: the common misjudgments of the methodology notes, each as an explicit check.

A guard rail does not hide anything: it is reported with its numbers, and the flag it concerns
is lowered to ``info`` (or not raised) with the reason attached.
"""

from __future__ import annotations

from kernelscope.kinds.ncu.analysis.diagnosis import derived
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import Evidence, ev
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts
from kernelscope.kinds.ncu.analysis.diagnosis.occupancy_guards import (
    GRID_CANNOT_FILL,
    OCCUPANCY_BY_DESIGN,
    OCCUPANCY_NOT_JUDGED,
    OCCUPANCY_STAND_DOWNS,
    RAMP_DOMINATES,
    REGISTER_LIMIT_LARGE_BLOCKS,
    UNIT_SATURATED,
    grid_cannot_fill,
    occupancy_by_design,
    occupancy_not_judged,
    ramp_dominates,
    register_limit_large_blocks,
    unit_saturated,
)
from kernelscope.kinds.ncu.analysis.diagnosis.result import GuardRail
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import Thresholds

MEMORY_NOT_DRAM = "memory-not-dram"
STALLS_WITH_BUSY_ISSUE = "stalls-with-busy-issue"
LONG_SCOREBOARD_AT_DRAM_ROOF = "long-scoreboard-at-dram-roof"
STALLS_AT_COMPUTE_ROOF = "stalls-at-compute-roof"
STALLS_BEHIND_ATOMICS = "stalls-behind-atomics"
STALLS_IN_SHORT_KERNEL = "stalls-in-short-kernel"


def memory_not_dram(f: Facts, t: Thresholds) -> GuardRail | None:
    """Memory throughput high but DRAM low: the busy unit is on chip, not HBM."""
    if f.mem is None or f.dram is None or f.mem < t.sol_busy_pct or f.dram >= t.dram_low_pct:
        return None
    evidence = [
        ev("sol", n.MEM_PCT, f.mem, ">=", t.sol_busy_pct, "%"),
        ev("sol", n.DRAM_PCT, f.dram, "<", t.dram_low_pct, "%"),
    ]
    if f.l1 is not None:
        evidence.append(ev("sol", n.L1_PCT, f.l1, unit="%"))
    if f.l2 is not None:
        evidence.append(ev("sol", n.L2_PCT, f.l2, unit="%"))
    return GuardRail(
        MEMORY_NOT_DRAM,
        f"Memory throughput is {f.mem:.0f}% but DRAM only {f.dram:.0f}%: the busiest memory unit "
        "is on chip (L1/shared or L2), so this is not an HBM bandwidth problem.",
        tuple(evidence),
    )


def _high_stalls(f: Facts, t: Thresholds) -> list[Evidence]:
    """Evidence of each stall reason at ``stall_share_warn`` or more of a warp's cycles."""
    if not f.stall_shares:  # no stall reasons read (most reports): none to list
        return []
    return [
        ev("scheduler", f"{name} / {n.WARP_LATENCY}", s, ">=", t.stall_share_warn)
        for name, s in f.stall_shares.items()
        if s >= t.stall_share_warn
    ]


def atomic_evidence(f: Facts, t: Thresholds, threshold: float) -> list[Evidence] | None:
    """The evidence that atomics to a few addresses queue in one L2 slice: its atomic unit
    at ``threshold`` % or more, concentrated (``atomic_concentration`` × the average slice) and,
    when the memory tables say, not incidental (``atomic_request_share`` of the requests).
    None when that does not hold: the one test behind ``atomic-contention`` (at
    ``atomic_slice_warn_pct``), ``atomic-bound`` and ``stalls-behind-atomics`` (at
    ``atomic_busy_pct``)."""
    top = f.atomic_slice_max
    if top is None or top < threshold:
        return None
    concentration = f.atomic_concentration
    if concentration is not None and concentration < t.atomic_concentration:
        return None  # atomics spread over every slice: throughput, not contention
    if f.atomic_request_share is not None and f.atomic_request_share < t.atomic_request_share:
        return None  # a few atomics (e.g. one per block) next to the real work
    out = [ev("memory", n.ATOMIC_SLICE_MAX, top, ">=", threshold, "%")]
    if concentration is not None:
        out.append(
            ev(
                "memory",
                f"{n.ATOMIC_SLICE_MAX} / {n.ATOMIC_SLICE_AVG}",
                concentration,
                ">=",
                t.atomic_concentration,
                note=f"average slice {f.atomic_slice_avg:.2f} %",
            )
        )
    return out


def stalls_in_short_kernel(f: Facts, t: Thresholds) -> GuardRail | None:
    """A kernel shorter than its launch, or a short one whose SMs idle through ramp-up and
    drain without one stall reason holding most of the cycles: its stall reasons sample
    cold caches and warps starting up, not a latency to fix."""
    d = f.duration_ns
    if d is None or d <= 0 or d >= t.short_kernel_ramp_ns or not _high_stalls(f, t):
        return None
    ramping = f.active_share is not None and f.active_share < t.ramp_active
    if not (d < t.short_kernel_ns or (ramping and f.leading_stall is None)):
        return None
    threshold = t.short_kernel_ns if d < t.short_kernel_ns else t.short_kernel_ramp_ns
    evidence = [ev("launch", n.DURATION, d, "<", threshold, "ns")]
    if ramping:
        evidence.append(
            ev("launch", n.ACTIVE_SHARE, f.active_share, "<",
               t.ramp_active)
        )
    return GuardRail(
        STALLS_IN_SHORT_KERNEL,
        f"The kernel runs {derived.duration_text(d)}: its stall reasons sample warps starting "
        "up and cold caches, which its launch and ramp-up set, not a latency to fix in its code.",
        (*evidence, *_high_stalls(f, t)),
    )


def stalls_with_busy_issue(f: Facts, t: Thresholds) -> GuardRail | None:
    """Stall reasons are only worth acting on when the schedulers are often idle."""
    if not derived.issue_slots_busy(f.issue_active, t):
        return None
    stalls = _high_stalls(f, t)
    if not stalls:
        return None
    busy = ev("scheduler", n.ISSUE_ACTIVE, f.issue_active, ">=", t.issue_underused_pct, "%")
    text = (f"The schedulers issue on {f.issue_active:.0f}% of cycles, so the stall reasons only "
            "describe normal waiting between issues; no stall flag is raised.")
    return GuardRail(STALLS_WITH_BUSY_ISSUE, text, (busy, *stalls))


def long_scoreboard_at_dram_roof(f: Facts, t: Thresholds) -> GuardRail | None:
    """Waiting on memory is the expected state of a kernel that already saturates DRAM."""
    s = f.stall_shares.get(n.STALL_LONG_SCOREBOARD)
    if s is None or s < t.stall_share_warn or f.dram is None or f.dram < t.dram_bound_pct:
        return None
    return GuardRail(
        LONG_SCOREBOARD_AT_DRAM_ROOF,
        f"Warps mostly wait on memory ({s:.0%} of their cycles) while DRAM is {f.dram:.0f}% busy: "
        "that is what a bandwidth-bound kernel at the roof looks like, not a latency problem.",
        (
            ev(
                "scheduler",
                f"{n.STALL_LONG_SCOREBOARD} / {n.WARP_LATENCY}",
                s,
                ">=",
                t.stall_share_warn,
            ),
            ev("sol", n.DRAM_PCT, f.dram, ">=", t.dram_bound_pct, "%"),
        ),
    )


def stalls_at_compute_roof(f: Facts, t: Thresholds) -> GuardRail | None:
    """A math pipe that is already saturated makes the stall reasons a description of how the
    kernel waits between its (large) MMA/FMA instructions, not a problem to fix."""
    if not f.pipes_busy(t.pipe_busy_pct) or f.busiest_pipe is None:
        return None
    stalls = _high_stalls(f, t)
    if not stalls:
        return None
    label, metric, pct = f.busiest_pipe
    busy = ev("compute", metric, pct, ">=", t.pipe_busy_pct, "%", note=f"{label} pipe")
    text = (f"The {label} pipe is {pct:.0f}% busy, so the kernel is at its compute roof: its "
            "stall reasons describe normal waiting between math instructions, not a bottleneck.")
    return GuardRail(STALLS_AT_COMPUTE_ROOF, text, (busy, *stalls))


def stalls_behind_atomics(f: Facts, t: Thresholds) -> GuardRail | None:
    """Warps that wait while one L2 slice's atomic unit is busy with concentrated atomics (the
    ``atomic-contention`` condition) wait for the atomics queued there: more loads in flight
    will not shorten that queue."""
    atomics = atomic_evidence(f, t, t.atomic_slice_warn_pct)
    stalls = _high_stalls(f, t)
    if atomics is None or not stalls:
        return None
    evidence = [*atomics, *stalls]
    return GuardRail(
        STALLS_BEHIND_ATOMICS,
        f"One L2 slice's atomic unit is {f.atomic_slice_max or 0:.0f}% busy with atomics to a "
        "few addresses: the warps wait for their atomics to be served there, so the stall "
        "reasons are its queue, not a latency to hide with more loads in flight. Fix the "
        "atomics first.",
        tuple(evidence),
    )


__all__ = [
    "GRID_CANNOT_FILL",
    "OCCUPANCY_BY_DESIGN",
    "OCCUPANCY_NOT_JUDGED",
    "OCCUPANCY_STAND_DOWNS",
    "RAMP_DOMINATES",
    "REGISTER_LIMIT_LARGE_BLOCKS",
    "UNIT_SATURATED",
    "guard_rails",
]

_UNSTALLED = (
    memory_not_dram,
    grid_cannot_fill,
    ramp_dominates,
    unit_saturated,
    occupancy_not_judged,
    occupancy_by_design,
    register_limit_large_blocks,
)
"""The guard rails that do not read the stall shares."""
CHECKS = (
    *_UNSTALLED,
    stalls_with_busy_issue,
    long_scoreboard_at_dram_roof,
    stalls_at_compute_roof,
    stalls_behind_atomics,
    stalls_in_short_kernel,
)


def guard_rails(f: Facts, t: Thresholds) -> dict[str, GuardRail]:
    """Every guard rail that applies to the kernel, by id. Each stall guard rail needs a
    stall share (at ``stall_share_warn`` or more): without any (most reports) none is asked."""
    out: dict[str, GuardRail] = {}
    for check in CHECKS if f.stall_shares else _UNSTALLED:
        g = check(f, t)
        if g is not None:
            out[g.id] = g
    return out
