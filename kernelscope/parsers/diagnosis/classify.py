"""The bottleneck classifier: one label per kernel, decided in the order the notes prescribe.

launch → DRAM → Speed Of Light side (memory or compute) → occupancy → divergence → latency.
Each step appends the evidence it looked at, so the label always comes with its reasons.
"""

from __future__ import annotations

from kernelscope.parsers.diagnosis import names as n
from kernelscope.parsers.diagnosis.evidence import Evidence, ev
from kernelscope.parsers.diagnosis.facts import Facts
from kernelscope.parsers.diagnosis.flags import duration_evidence, grid_evidence
from kernelscope.parsers.diagnosis.result import Bottleneck
from kernelscope.parsers.diagnosis.thresholds import Thresholds


def _launch(f: Facts, t: Thresholds, trail: list[Evidence]) -> Bottleneck | None:
    small_grid = f.grid is not None and f.sm_count is not None and f.grid < f.sm_count
    short = f.duration_ns is not None and 0 < f.duration_ns < t.short_kernel_ns
    if f.grid is not None and f.sm_count is not None:
        trail.append(grid_evidence(f))
    if f.duration_ns is not None:
        trail.append(duration_evidence(f, t))
    if not (small_grid or short):
        return None
    busy = [v for v in (f.sm, f.mem) if v is not None and v >= t.sol_busy_pct]
    if busy:
        return None
    trail.extend(_sol_pair(f, t))
    why = "too few blocks to fill the GPU" if small_grid else "too short to amortise its launch"
    return Bottleneck("launch-bound", f"The kernel is {why}, and no unit is busy.", tuple(trail))


def _sol_pair(f: Facts, t: Thresholds) -> list[Evidence]:
    out = []
    if f.sm is not None:
        out.append(ev("sol", n.SM_PCT, f.sm, ">=", t.sol_busy_pct, "%"))
    if f.mem is not None:
        out.append(ev("sol", n.MEM_PCT, f.mem, ">=", t.sol_busy_pct, "%"))
    return out


def _memory_side(f: Facts, t: Thresholds, trail: list[Evidence]) -> Bottleneck:
    if f.dram is not None:
        trail.append(
            ev(
                "sol",
                n.DRAM_PCT,
                f.dram,
                "<",
                t.dram_bound_pct,
                "%",
                note="not HBM: the pressure is on chip" if f.dram < t.dram_low_pct else "",
            )
        )
    if f.l1 is not None:
        trail.append(ev("memory", n.L1_PCT, f.l1, unit="%"))
    if f.l2 is not None:
        trail.append(ev("memory", n.L2_PCT, f.l2, unit="%"))
    l1_hotter = f.l1 is not None and (f.l2 is None or f.l1 >= f.l2)
    if l1_hotter and f.conflict_share is not None:
        trail.append(
            ev(
                "memory",
                f"{n.SHARED_CONFLICTS} / {n.SHARED_WAVEFRONTS}",
                f.conflict_share,
                ">=",
                t.bank_conflict_label,
            )
        )
        if f.conflict_share >= t.bank_conflict_label:
            return Bottleneck(
                "shared-bank-conflict",
                "L1/shared memory is the busiest unit and most of its shared-memory wavefronts "
                "are bank conflicts.",
                tuple(trail),
            )
    if l1_hotter:
        return Bottleneck(
            "l1-bound", "The L1/TEX (and shared memory) path is the busiest unit.", tuple(trail)
        )
    if f.l2 is not None:
        return Bottleneck("l2-bound", "L2 is the busiest memory unit, DRAM is not.", tuple(trail))
    return Bottleneck(
        "balanced",
        "Memory throughput is high but the report lacks the L1/L2 breakdown to say where.",
        tuple(trail),
    )


def _divergence(
    f: Facts, t: Thresholds, trail: list[Evidence], summary: str
) -> Bottleneck | None:
    """Step 5's divergence check: adds its evidence and returns the label when it holds."""
    eff = f.divergence_efficiency
    if eff is None:
        return None
    trail.append(
        ev(
            "compute",
            f"{n.THREADS_PER_INST} / ideal threads per warp",
            eff,
            "<",
            t.divergence_efficiency,
        )
    )
    if eff < t.divergence_efficiency:
        return Bottleneck("divergence-bound", summary, tuple(trail))
    return None


def _compute_side(f: Facts, t: Thresholds, trail: list[Evidence]) -> Bottleneck:
    if f.busiest_pipe is not None:
        label, metric, pct = f.busiest_pipe
        trail.append(ev("compute", metric, pct, ">=", t.pipe_busy_pct, "%", note=f"{label} pipe"))
        if pct >= t.pipe_busy_pct:
            return Bottleneck(
                "compute-bound", f"The {label} pipe does the work and is busy.", tuple(trail)
            )
    divergent = _divergence(
        f, t, trail, "The SM is busy issuing instructions that only part of each warp executes."
    )
    if divergent is not None:
        return divergent
    if f.busiest_other is not None:
        label, metric, pct = f.busiest_other
        trail.append(ev("compute", metric, pct, unit="%", note=f"busiest other pipe: {label}"))
    if f.issue_active is not None:
        trail.append(ev("scheduler", n.ISSUE_ACTIVE, f.issue_active, unit="%"))
    return Bottleneck(
        "instruction-bound",
        "The SM is busy but not with floating-point or tensor math: instruction overhead "
        "(integer/address arithmetic, special functions, loads and stores) dominates.",
        tuple(trail),
    )


def _latency_side(f: Facts, t: Thresholds, trail: list[Evidence]) -> Bottleneck:
    for name, v in ((n.THEORETICAL_OCC, f.theoretical), (n.ACHIEVED_OCC, f.achieved)):
        if v is not None:
            trail.append(ev("occupancy", name, v, "<", t.occupancy_low_pct, "%"))
    low = [v for v in (f.theoretical, f.achieved) if v is not None and v < t.occupancy_low_pct]
    if low and not f.pipes_busy(t.pipe_busy_pct):
        return Bottleneck(
            "occupancy-bound",
            "Neither compute nor memory is busy and too few warps are resident to hide latency.",
            tuple(trail),
        )
    divergent = _divergence(
        f, t, trail, "Neither compute nor memory is busy, and warps run with many lanes masked off."
    )
    if divergent is not None:
        return divergent
    if f.issue_active is not None:
        trail.append(ev("scheduler", n.ISSUE_ACTIVE, f.issue_active, unit="%"))
    return Bottleneck(
        "latency-bound",
        "Neither compute nor memory is busy although warps are resident: they wait "
        "(memory latency, dependencies, barriers).",
        tuple(trail),
    )


def classify(f: Facts, t: Thresholds) -> Bottleneck:
    """Exactly one label from ``LABELS`` for the kernel, with the evidence that decided it."""
    trail: list[Evidence] = []
    if f.duration_ns is not None and f.duration_ns <= 0:
        trail.append(ev("launch", n.DURATION, f.duration_ns, ">", 0.0, "ns"))
        return Bottleneck(
            "balanced", "The kernel has no duration: nothing to classify.", tuple(trail)
        )
    found = _launch(f, t, trail)
    if found is not None:
        return found
    if f.sm is None and f.mem is None and f.dram is None:
        return Bottleneck(
            "balanced",
            "Speed Of Light was not collected, so no unit can be called the bottleneck.",
            tuple(trail),
        )
    if f.dram is not None and f.dram >= t.dram_bound_pct:
        trail.append(ev("sol", n.DRAM_PCT, f.dram, ">=", t.dram_bound_pct, "%"))
        return Bottleneck("dram-bound", "DRAM bandwidth is the limit.", tuple(trail))
    sm, mem = f.sm, f.mem
    trail.extend(_sol_pair(f, t))
    sm_busy = sm is not None and sm >= t.sol_busy_pct
    mem_busy = mem is not None and mem >= t.sol_busy_pct
    if not sm_busy and not mem_busy:
        return _latency_side(f, t, trail)
    gap = (sm or 0.0) - (mem or 0.0)
    if mem_busy and (not sm_busy or -gap >= t.sol_side_margin_pct):
        return _memory_side(f, t, trail)
    if sm_busy and (not mem_busy or gap >= t.sol_side_margin_pct):
        return _compute_side(f, t, trail)
    if f.pipes_busy(t.pipe_busy_pct) and f.busiest_pipe is not None:
        label, metric, pct = f.busiest_pipe
        trail.append(ev("compute", metric, pct, ">=", t.pipe_busy_pct, "%", note=f"{label} pipe"))
        return Bottleneck(
            "compute-bound",
            f"Compute and memory are both busy; the {label} pipe carries the work.",
            tuple(trail),
        )
    return Bottleneck(
        "balanced",
        "Compute and memory are both busy and neither dominates: the kernel is near the "
        "machine's limits on both sides.",
        tuple(trail),
    )
