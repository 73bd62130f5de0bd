"""The bottleneck classifier: one label per kernel, decided in the order the notes prescribe.

measured? → launch → DRAM → the busiest L2 slice's atomics → Speed Of Light side (memory or
compute) → a busy or throttled pipe → stalls → occupancy → divergence → latency. Each step
appends the evidence it looked at, so the label always comes with its reasons. Where the
report lacks what a step needs, the label is ``undetermined`` with the sections to collect: a
missing metric never decides a label.
"""

from __future__ import annotations

from collections.abc import Mapping

from kernelscope.core.memo import Memo
from kernelscope.kinds.ncu.analysis.diagnosis import guards as g
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import Evidence, add_in_order, ev
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts
from kernelscope.kinds.ncu.analysis.diagnosis.launch import fp64_rate_note, launch_step, sol_pair
from kernelscope.kinds.ncu.analysis.diagnosis.result import UNDETERMINED, Bottleneck, GuardRail
from kernelscope.kinds.ncu.analysis.diagnosis.stalls import stall_led
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import Thresholds
from kernelscope.kinds.ncu.analysis.diagnosis.throttled_pipe import throttled_pipe_led

Guards = Mapping[str, GuardRail]


def undetermined(why: str, trail: list[Evidence], collect: tuple[str, ...] = ()) -> Bottleneck:
    """The report cannot decide: ``why``, and the ncu sections that would let it."""
    summary = why
    if collect:
        summary = _COLLECT_SUMMARIES.get((why, collect)) or _collect_summary(why, collect)
    return Bottleneck(UNDETERMINED, summary, tuple(trail), collect=collect)


_COLLECT_SUMMARIES: Memo[tuple[str, tuple[str, ...]], str] = Memo(256)
"""``_collect_summary`` by its words: a report's launches lack the same sections."""


def _collect_summary(why: str, collect: tuple[str, ...]) -> str:
    """``why`` and the sections to collect, as the undetermined label's summary says them."""
    options = " ".join(f"--section {s}" for s in collect)
    summary = f"{why} Collect {', '.join(collect)} (ncu {options}, or --set full)."
    return _COLLECT_SUMMARIES.keep((why, collect), summary)


def _atomics(f: Facts, t: Thresholds, trail: list[Evidence]) -> Bottleneck | None:
    """The Speed Of Light averages every L2 slice; atomics to a few addresses load one slice
    while the average stays low. When that slice's atomic unit is busy, it is the limit."""
    found = g.atomic_evidence(f, t, t.atomic_busy_pct)
    if found is None:
        return None
    trail.extend(found)
    return Bottleneck(
        "atomic-bound",
        f"Atomics serialise in one L2 slice: its atomic unit is {f.atomic_slice_max or 0:.0f}% "
        "busy while the average slice is nearly idle, which the Speed Of Light averages hide.",
        tuple(trail),
        decided_by="atomic-contention",
    )


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
    hottest = max((v for v in (f.l1, f.l2) if v is not None), default=None)
    if f.dram is not None and f.dram >= t.sol_busy_pct and (hottest is None or f.dram >= hottest):
        trail.append(ev("sol", n.DRAM_PCT, f.dram, ">=", t.sol_busy_pct, "%", note="busiest level"))
        return Bottleneck(
            "dram-bound",
            "DRAM is the busiest memory level, near its bandwidth limit.",
            tuple(trail),
            decided_by="dram-bandwidth-saturated",
        )
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
                decided_by="shared-bank-conflicts",
            )
    if l1_hotter:
        return Bottleneck(
            "l1-bound",
            "The L1/TEX (and shared memory) path is the busiest unit.",
            tuple(trail),
            decided_by="l1tex-pressure",
        )
    if f.l2 is not None:
        return Bottleneck("l2-bound", "L2 is the busiest memory unit, DRAM is not.", tuple(trail))
    return undetermined(
        "Memory throughput is high but the report lacks the L1/L2 breakdown to say which "
        "level is busy.",
        trail,
        (n.SECTION_SOL, n.SECTION_MEMORY),
    )


def _divergence(
    f: Facts, t: Thresholds, trail: list[Evidence], summary: str
) -> Bottleneck | None:
    """Step 5's divergence check: adds its evidence and returns the label when it holds."""
    eff = f.divergence_efficiency
    if eff is None:
        return None
    trail.append(ev("compute", n.LANE_EFFICIENCY, eff, "<", t.divergence_efficiency))
    if eff < t.divergence_efficiency:
        return Bottleneck("divergence-bound", summary, tuple(trail), decided_by="warp-divergence")
    return None


def _compute_summary(f: Facts, label: str) -> str:
    """``The FMA pipe does the work and is busy.``; for FP64, with the device's FP64 rate."""
    summary = f"The {label} pipe does the work and is busy."
    return summary + (fp64_rate_note(f) if label == "FP64" else "")


def _compute_side(f: Facts, t: Thresholds, trail: list[Evidence]) -> Bottleneck:
    if not f.pipes_measured:
        return undetermined(
            "The SM is busy but the report holds no pipe utilisation, so compute-bound and "
            "instruction-bound cannot be told apart.",
            trail,
            (n.SECTION_COMPUTE,),
        )
    if f.busiest_pipe is not None:
        label, metric, pct = f.busiest_pipe
        trail.append(ev("compute", metric, pct, ">=", t.pipe_busy_pct, "%", note=f"{label} pipe"))
        if pct >= t.pipe_busy_pct:
            return Bottleneck("compute-bound", _compute_summary(f, label), tuple(trail))
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


def _unit_led(f: Facts, t: Thresholds, trail: list[Evidence]) -> Bottleneck | None:
    """Speed Of Light reads low GPU-wide, yet a pipe is ``pipe_busy_pct`` busy on the SMs that
    ran: that pipe, not latency, sets the time (a math pipe: compute-bound; ALU or XU:
    instruction-bound; LSU: the memory path)."""
    note = "on the SMs that ran"
    if f.pipes_busy(t.pipe_busy_pct) and f.busiest_pipe is not None:
        label, metric, pct = f.busiest_pipe
        trail.append(ev("compute", metric, pct, ">=", t.pipe_busy_pct, "%", note=note))
        return Bottleneck(
            "compute-bound",
            f"The {label} pipe is {pct:.0f}% busy {note}, although the Speed Of Light averages "
            f"read low: it carries the work.{fp64_rate_note(f) if label == 'FP64' else ''}",
            tuple(trail),
        )
    other = f.busiest_other
    if other is None or other[2] < t.pipe_busy_pct:
        return None
    label, metric, pct = other
    trail.append(ev("compute", metric, pct, ">=", t.pipe_busy_pct, "%", note=f"{label} pipe"))
    if label == "LSU":
        return _memory_side(f, t, trail)
    return Bottleneck(
        "instruction-bound",
        f"The {label} pipe is {pct:.0f}% busy {note}, although the Speed Of Light averages read "
        "low: instruction overhead (integer/address arithmetic, conversions, special "
        "functions) sets the time.",
        tuple(trail),
    )


def _grid_starves_warps(f: Facts, t: Thresholds, trail: list[Evidence]) -> Bottleneck:
    """Low occupancy that the grid causes: launch-bound when SMs get no block at all; with a
    block on every SM, too few warps per SM (occupancy-bound), never launch-bound."""
    fit = f.grid_fit
    if fit.every_sm_has_block is False:
        return Bottleneck(
            "launch-bound",
            f"{f.idle_words(t.sol_busy_pct)} and too few warps are resident: the grid "
            f"({fit.fill_text()}) is the limit, not a per-SM resource.",
            tuple(trail),
            decided_by="grid-too-small",
        )
    what = f" ({fit.fill_text()})" if fit.fill_text() else ""
    return Bottleneck(
        "occupancy-bound",
        f"{f.idle_words(t.sol_busy_pct)} and too few warps are resident: every SM has a "
        f"block, but the grid{what} leaves warp slots empty. More, smaller blocks (or more "
        "work per launch) give each SM more warps to hide latency with.",
        tuple(trail),
        decided_by="low-occupancy",
    )


def _busiest_memory_unit(f: Facts) -> tuple[str, str, float] | None:
    """(name, metric, %) of the busiest memory unit Speed Of Light shows: DRAM, L2, L1/TEX or
    the memory throughput (the busiest of its units, some of them not broken down here)."""
    top: tuple[str, str, float] | None = None
    for what, metric, v in (
        ("DRAM", n.DRAM_PCT, f.dram), ("L2", n.L2_PCT, f.l2), ("L1/TEX", n.L1_PCT, f.l1),
        ("The memory path", n.MEM_PCT, f.mem),
    ):  # the first at the top reading, as max(key=...) keeps it
        if v is not None and (top is None or v > top[2]):
            top = (what, metric, v)
    return top


def _thin_memory_stream(
    unit: tuple[str, str, float], t: Thresholds, trail: list[Evidence]
) -> Bottleneck:
    """Low occupancy while a memory unit is at least ``memory_stream_pct`` busy: a memory
    stream that keeps too few requests in flight, latency-bound on memory rather than short of
    warps alone, however many waves the grid runs."""
    what, metric, pct = unit
    trail.append(ev("sol", metric, pct, ">=", t.memory_stream_pct, "%", note=what))
    return Bottleneck(
        "latency-bound",
        f"{what} is {pct:.0f}% busy with too few warps resident to keep more bytes in "
        "flight: the kernel streams memory and waits on its latency. More loads in flight per "
        "warp (vector loads, several elements per thread) or more resident warps both help.",
        tuple(trail),
        decided_by="low-occupancy",
    )


def _latency_side(f: Facts, t: Thresholds, trail: list[Evidence], guards: Guards) -> Bottleneck:
    idle = f.idle_words(t.sol_busy_pct)
    if f.theoretical is None and f.achieved is None:
        return undetermined(
            f"{f.idle_words(t.sol_busy_pct)}, but without occupancy the report cannot "
            "tell too few resident warps from warps that wait.",
            trail,
            (n.SECTION_OCCUPANCY,),
        )
    for name, v in ((n.THEORETICAL_OCC, f.theoretical), (n.ACHIEVED_OCC, f.achieved)):
        if v is not None:
            trail.append(ev("occupancy", name, v, "<", t.occupancy_low_pct, "%"))
    unit = _unit_led(f, t, trail) or throttled_pipe_led(f, t, trail)
    if unit is not None:
        return unit
    led = stall_led(f, t, trail)
    if led is not None:
        return led
    low = f.low_occupancy(t)
    grid = guards.get(g.GRID_CANNOT_FILL)
    if low and grid is not None:
        add_in_order(trail, grid.evidence[0])
        return _grid_starves_warps(f, t, trail)
    if low and not f.pipes_busy(t.pipe_busy_pct) and g.OCCUPANCY_BY_DESIGN not in guards:
        memory = _busiest_memory_unit(f)
        if memory is not None and memory[2] >= t.memory_stream_pct:
            return _thin_memory_stream(memory, t, trail)
        if memory is not None:
            trail.append(ev("sol", memory[1], memory[2], "<", t.memory_stream_pct, "%",
                            note=f"busiest memory unit: {memory[0]}"))
        summary = f"{idle} and too few warps are resident to hide latency."
        return Bottleneck("occupancy-bound", summary, tuple(trail), decided_by="low-occupancy")
    design = guards.get(g.OCCUPANCY_BY_DESIGN)
    if low and design is not None:
        for e in design.evidence:
            if e.op == ">=":  # the pipe and resource evidence (the low occupancy is there)
                add_in_order(trail, e)
    divergent = _divergence(
        f, t, trail, f"{idle}, and warps run with many lanes masked off."
    )
    if divergent is not None:
        return divergent
    if f.issue_active is not None:
        trail.append(ev("scheduler", n.ISSUE_ACTIVE, f.issue_active, unit="%"))
    summary = (
        f"{idle}, and warps are resident: they wait "
        "(memory latency, dependencies, barriers)."
    )
    if low and design is not None:
        summary = (
            f"{idle}; occupancy is low by design (registers and "
            "shared memory spent on reuse), so the warps that are resident wait (memory "
            "latency, dependencies, barriers)."
        )
    return Bottleneck("latency-bound", summary, tuple(trail))


def classify(f: Facts, t: Thresholds, guards: Guards | None = None) -> Bottleneck:
    """Exactly one label from ``LABELS`` for the kernel, with the evidence that decided it."""
    guards = guards or {}
    trail: list[Evidence] = []
    if f.profiling_failed:
        return undetermined(
            "Profiling this kernel failed: the report holds NaN for "
            + ", ".join(f.nan_metrics)
            + ". Profile it again (the ncu log names the error for this launch).",
            trail,
        )
    if f.duration_ns is not None and f.duration_ns <= 0:
        trail.append(ev("launch", n.DURATION, f.duration_ns, ">", 0.0, "ns"))
        return undetermined("The kernel has no duration: nothing to classify.", trail)
    found = launch_step(f, t, trail)
    if found is not None:
        return found
    if f.sm is None and f.mem is None and f.dram is None:
        return undetermined(
            "Speed Of Light was not collected, so no unit can be called the bottleneck.",
            trail,
            (n.SECTION_SOL,),
        )
    if f.dram is not None and f.dram >= t.dram_bound_pct:
        trail.append(ev("sol", n.DRAM_PCT, f.dram, ">=", t.dram_bound_pct, "%"))
        return Bottleneck(
            "dram-bound",
            "DRAM bandwidth is the limit.",
            tuple(trail),
            decided_by="dram-bandwidth-saturated",
        )
    sm, mem = f.sm, f.mem
    trail.extend(sol_pair(f, t))
    found = _atomics(f, t, trail)
    if found is not None:
        return found
    sm_busy = sm is not None and sm >= t.sol_busy_pct
    mem_busy = mem is not None and mem >= t.sol_busy_pct
    if not sm_busy and not mem_busy:
        return _latency_side(f, t, trail, guards)
    gap = (sm or 0.0) - (mem or 0.0)
    if mem_busy and (not sm_busy or -gap >= t.sol_side_margin_pct):
        return _memory_side(f, t, trail)
    if sm_busy and (not mem_busy or gap >= t.sol_side_margin_pct):
        return _compute_side(f, t, trail)
    return _both_busy(f, t, trail)


def _both_busy(f: Facts, t: Thresholds, trail: list[Evidence]) -> Bottleneck:
    """SM and memory within ``sol_side_margin_pct`` of each other, both busy: the math pipe
    that carries the work, or the LSU pipe (memory instructions: the memory side), else
    balanced."""
    if f.pipes_busy(t.pipe_busy_pct) and f.busiest_pipe is not None:
        label, metric, pct = f.busiest_pipe
        trail.append(ev("compute", metric, pct, ">=", t.pipe_busy_pct, "%", note=f"{label} pipe"))
        return Bottleneck(
            "compute-bound",
            f"Compute and memory are both busy; the {label} pipe carries the work.",
            tuple(trail),
        )
    lsu = f.busiest_other
    lsu_pipe = lsu is not None and lsu[1] in (n.PIPE_LSU, n.elapsed_form(n.PIPE_LSU))
    if lsu is not None and lsu_pipe and lsu[2] >= t.pipe_busy_pct:
        note = "the SM's throughput is memory instructions"
        trail.append(ev("compute", lsu[1], lsu[2], ">=", t.pipe_busy_pct, "%", note=note))
        return _memory_side(f, t, trail)
    if not f.pipes_measured:
        return undetermined(
            "Compute and memory are both busy and the report holds no pipe utilisation to say "
            "which carries the work.",
            trail,
            (n.SECTION_COMPUTE,),
        )
    return Bottleneck(
        "balanced",
        "Compute and memory are both busy and neither dominates: the kernel is near the "
        "machine's limits on both sides.",
        tuple(trail),
    )
