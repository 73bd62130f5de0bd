"""The flag checks: each turns the kernel's facts into a finding, no finding, or "can't tell"."""

from __future__ import annotations

from kernelscope.parsers.diagnosis import derived as d
from kernelscope.parsers.diagnosis import guards as g
from kernelscope.parsers.diagnosis import names as n
from kernelscope.parsers.diagnosis.evidence import Evidence, ev
from kernelscope.parsers.diagnosis.facts import Facts
from kernelscope.parsers.diagnosis.outcome import Check, Finding, Guards, Missing, Outcome, grade
from kernelscope.parsers.diagnosis.result import GuardRail
from kernelscope.parsers.diagnosis.stalls import STALL_FLAGS, stall_check
from kernelscope.parsers.diagnosis.thresholds import Thresholds

__all__ = ["CHECKS", "Finding", "Missing"]


# -- launch ---------------------------------------------------------------------------------
def grid_evidence(f: Facts) -> Evidence:
    """The grid set against the SM count (both known): the launch step's first check, in the
    bottleneck's trail and in the small-grid flag."""
    return ev(
        "launch",
        n.GRID_SIZE,
        f.grid,
        "<",
        f.sm_count,
        "block",
        note=f"{n.SM_COUNT} = {f.sm_count:.0f}",
    )


def duration_evidence(f: Facts, t: Thresholds) -> Evidence:
    """The kernel's duration set against the short-kernel threshold."""
    return ev("launch", n.DURATION, f.duration_ns, "<", t.short_kernel_ns, "ns")


def short_kernel(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.duration_ns is None:
        return Missing((n.SECTION_SOL,))
    if f.duration_ns <= 0 or f.duration_ns >= t.short_kernel_ramp_ns:
        return None
    if f.duration_ns < t.short_kernel_ns:
        return Finding(
            "warning",
            (duration_evidence(f, t),),
            f"The kernel runs {f.duration_ns / 1000:.1f} µs, about what a launch costs.",
        )
    evidence = [ev("launch", n.DURATION, f.duration_ns, "<", t.short_kernel_ramp_ns, "ns")]
    detail = (
        f"The kernel runs {f.duration_ns / 1000:.1f} µs: its launch, ramp-up and drain are "
        "still a visible share of that."
    )
    severity = "info"
    if f.active_share is not None:
        evidence.append(ramp_evidence(f, t))
        if f.active_share < t.ramp_active:
            detail += f" The SMs have work on only {f.active_share:.0%} of its cycles."
            severity = "warning"
    return Finding(severity, tuple(evidence), detail)


def ramp_evidence(f: Facts, t: Thresholds) -> Evidence:
    """The SMs' active share of the elapsed cycles set against ``ramp_active``."""
    return ev(
        "launch",
        f"{n.SM_ACTIVE_CYCLES} / {n.SM_ELAPSED_CYCLES}",
        f.active_share,
        "<",
        t.ramp_active,
        note="share of the kernel's cycles the SMs had work",
    )


def grid_too_small(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.grid is None or f.sm_count is None:
        return Missing((n.SECTION_LAUNCH,))
    if f.grid >= f.sm_count:
        return _under_a_wave(f, t)
    if f.grid <= f.sm_count * t.grid_critical_fraction:
        severity = "critical"
    elif f.grid < f.sm_count * t.grid_warning_fraction:
        severity = "warning"
    else:
        severity = "info"
    return Finding(
        severity,
        (grid_evidence(f),),
        f"{f.grid:.0f} blocks for {f.sm_count:.0f} SMs: {f.sm_count - f.grid:.0f} SMs stay idle.",
    )


def _under_a_wave(f: Facts, t: Thresholds) -> Outcome:
    """A grid with a block for every SM that still fills less than ``grid_fill_waves`` of one
    wave: the SMs hold fewer blocks than their resources allow."""
    if f.waves is None or f.waves >= t.grid_fill_waves:
        return None
    return Finding(
        "info",
        (ev("launch", n.WAVES, f.waves, "<", t.grid_fill_waves, "wave"),),
        f"{f.grid:.0f} blocks fill {f.waves:.0%} of one wave: every SM could hold more blocks "
        "than it gets.",
    )


def tail_effect(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.waves is None:
        return Missing((n.SECTION_LAUNCH,))
    loss = f.tail_loss
    if loss is None or f.waves >= t.tail_many_waves:
        return None
    severity = grade(loss, t.tail_min_loss, t.tail_critical_loss, below=False)
    if severity is None:
        return None
    return Finding(
        severity,
        (
            ev("launch", n.WAVES, f.waves, unit="wave"),
            ev(
                "launch",
                f"(ceil({n.WAVES}) - {n.WAVES}) / ceil({n.WAVES})",
                loss,
                ">=",
                t.tail_min_loss,
                note="idle share of the SM time, equal-length blocks assumed",
            ),
        ),
        f"{f.waves:.2f} waves: the last wave fills only {1 - (-f.waves % 1):.0%} of the GPU.",
    )


# -- occupancy ------------------------------------------------------------------------------
def _stand_down(guards: Guards) -> GuardRail | None:
    """The first guard rail that lowers the occupancy flags, if any."""
    return next((guards[g_id] for g_id in g.OCCUPANCY_STAND_DOWNS if g_id in guards), None)


def low_occupancy(f: Facts, t: Thresholds, guards: Guards) -> Outcome:
    if f.achieved is None and f.theoretical is None:
        return Missing((n.SECTION_OCCUPANCY,))
    low = d.low_occupancy_readings(f.achieved, f.theoretical, t)
    if not low:
        return None
    worst = min(v for _, v in low)
    severity = "critical" if worst < t.occupancy_critical_pct else "warning"
    evidence = [ev("occupancy", name, v, "<", t.occupancy_low_pct, "%") for name, v in low]
    detail = (
        "Theoretical occupancy is low: a per-SM resource limits the resident blocks."
        if f.theoretical is not None and f.theoretical < t.occupancy_low_pct
        else "Theoretical occupancy is fine but warps are not resident at run time."
    )
    guard = _stand_down(guards)
    if guard is not None and guard.id == g.GRID_CANNOT_FILL:
        detail = "Occupancy is low because the grid leaves SMs short of blocks."
        return Finding("info", tuple(guard.evidence), detail, guard.text)
    if guard is not None:
        return Finding("info", (*evidence, *guard.evidence[len(low) :]), detail, guard.text)
    return Finding(severity, tuple(evidence), detail)


def occupancy_limiter(f: Facts, t: Thresholds, guards: Guards) -> Outcome:
    if f.theoretical is None or not f.limits:
        return Missing((n.SECTION_OCCUPANCY,))
    if f.theoretical >= 100.0 - 1e-6:
        return None
    lowest = min(f.limits.values())
    limiters = list(d.limiting_resources(f.limits))
    evidence = [
        ev(
            "occupancy",
            name,
            f.limits[label],
            unit="block",
            note="limiting" if label in limiters else "",
        )
        for label, name in n.OCCUPANCY_LIMITS
        if label in f.limits
    ]
    evidence.insert(0, ev("occupancy", n.THEORETICAL_OCC, f.theoretical, "<", 100.0, "%"))
    detail = (
        f"{' and '.join(limiters).capitalize()} limit the SM to {lowest:.0f} block(s), "
        f"for {f.theoretical:.0f}% theoretical occupancy."
    )
    if limiters == ["block slots"] and f.block is not None:
        detail += f" Blocks of {f.block:.0f} threads are too small to fill the SM's warp slots."
    guard = _stand_down(guards) or guards.get(g.REGISTER_LIMIT_LARGE_BLOCKS)
    if guard is not None:
        return Finding("info", tuple(evidence), detail, guard.text)
    severity = "warning" if f.theoretical < t.occupancy_low_pct else "info"
    return Finding(severity, tuple(evidence), detail)


# -- memory path ----------------------------------------------------------------------------
def register_spill(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.local_share is None:
        return Missing((n.SECTION_MEMORY_TABLES,))
    severity = grade(f.local_share, t.local_traffic_warn, t.local_traffic_critical, below=False)
    if severity is None:
        return None
    evidence = [
        ev(
            "memory",
            f"({n.LOCAL_LD_REQUESTS} + {n.LOCAL_ST_REQUESTS}) / all global and local requests",
            f.local_share,
            ">=",
            t.local_traffic_warn,
        )
    ]
    detail = f"{f.local_share:.0%} of the L1 requests go to local memory"
    if f.spill_instructions is not None:
        evidence.append(ev("source", n.SPILL_INSTRUCTIONS, f.spill_instructions, unit="inst"))
        detail += (
            ", including register spills."
            if f.spill_instructions > 0
            else " (local arrays, no register spills)."
        )
    else:
        detail += "."
    return Finding(severity, tuple(evidence), detail)


def uncoalesced_global_access(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    worst = f.sector_bytes
    if worst is None and f.excessive_share is None:
        return Missing((n.SECTION_MEMORY_TABLES, n.SECTION_SOURCE))
    grades: list[str] = []
    evidence: list[Evidence] = []
    if worst is not None:
        name, value = worst
        evidence.append(ev("memory", name, value, "<", t.sector_bytes_warn, "byte/sector"))
        s = grade(value, t.sector_bytes_warn, t.sector_bytes_critical, below=True)
        if s:
            grades.append(s)
    if f.excessive_share is not None:
        evidence.append(
            ev(
                "source",
                f"{n.EXCESSIVE_SECTORS} / global sectors",
                f.excessive_share,
                ">=",
                t.excessive_sectors_warn,
            )
        )
        s = grade(
            f.excessive_share, t.excessive_sectors_warn, t.excessive_sectors_critical, below=False
        )
        if s:
            grades.append(s)
    if not grades:
        return None
    severity = "critical" if "critical" in grades else "warning"
    detail = f"Only {worst[1]:.0f} of every 32 bytes fetched are used." if worst is not None else ""
    return Finding(severity, tuple(evidence), detail)


def shared_bank_conflicts(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.conflict_share is None:
        return Missing((n.SECTION_MEMORY_TABLES,))
    severity = grade(f.conflict_share, t.bank_conflict_warn, t.bank_conflict_critical, below=False)
    if severity is None:
        return None
    ways = 1.0 / (1.0 - f.conflict_share) if f.conflict_share < 1 else float("inf")
    return Finding(
        severity,
        (
            ev(
                "memory",
                f"{n.SHARED_CONFLICTS} / {n.SHARED_WAVEFRONTS}",
                f.conflict_share,
                ">=",
                t.bank_conflict_warn,
            ),
        ),
        f"{f.conflict_share:.0%} of shared-memory wavefronts are conflicts "
        f"(about {ways:.1f}-way on average).",
    )


def atomic_contention(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.atomic_slice_max is None:
        return Missing((n.SECTION_SOL,))
    found = g.atomic_evidence(f, t, t.atomic_slice_warn_pct)
    if found is None:
        return None
    evidence = list(found)
    if f.atomic_request_share is not None:
        evidence.append(
            ev(
                "memory",
                f"({n.GLOBAL_ATOM_REQUESTS} + {n.GLOBAL_RED_REQUESTS}) / global requests",
                f.atomic_request_share,
                ">=",
                t.atomic_request_share,
                note=f"{f.atomic_requests:,.0f} atomic requests",
            )
        )
    if f.atomic_line is not None:
        where, pct, note = f.atomic_line
        evidence.append(ev("source", where, pct, unit="% of samples", note=note))
    severity = "critical" if f.atomic_slice_max >= t.atomic_busy_pct else "warning"
    concentration = f.atomic_concentration
    detail = (
        f"The busiest L2 slice's atomic unit is {f.atomic_slice_max:.0f}% busy"
        + (f", {concentration:.0f}× the average slice" if concentration is not None else "")
        + ": the atomics target a few addresses and wait their turn."
    )
    if f.atomic_line is not None:
        detail += f" Hot line: {f.atomic_line[0]}."
    return Finding(severity, tuple(evidence), detail)


def dram_bandwidth_saturated(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.dram is None:
        return Missing((n.SECTION_SOL,))
    if f.dram < t.dram_saturated_pct:
        return None
    return Finding(
        "warning",
        (ev("sol", n.DRAM_PCT, f.dram, ">=", t.dram_saturated_pct, "%"),),
        f"DRAM runs at {f.dram:.0f}% of its peak bandwidth.",
    )


def l1tex_pressure(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.l1 is None or f.dram is None:
        return Missing((n.SECTION_SOL,))
    if f.l1 < t.l1_pressure_pct or f.dram >= t.dram_bound_pct:
        return None
    return Finding(
        "warning",
        (
            ev("sol", n.L1_PCT, f.l1, ">=", t.l1_pressure_pct, "%"),
            ev("sol", n.DRAM_PCT, f.dram, "<", t.dram_bound_pct, "%"),
        ),
        f"L1/TEX is {f.l1:.0f}% busy while DRAM is {f.dram:.0f}%.",
    )


def l2_low_hit_rate(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.l2_hit is None or f.l2 is None:
        return Missing((n.SECTION_MEMORY,))
    if f.l2_hit >= t.l2_hit_low_pct or f.l2 < t.l2_busy_pct:
        return None
    return Finding(
        "warning",
        (
            ev("memory", n.L2_HIT, f.l2_hit, "<", t.l2_hit_low_pct, "%"),
            ev("sol", n.L2_PCT, f.l2, ">=", t.l2_busy_pct, "%"),
        ),
        f"L2 hits {f.l2_hit:.0f}% of sectors while running at {f.l2:.0f}% of its throughput.",
    )


# -- compute --------------------------------------------------------------------------------
def warp_divergence(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    eff = f.divergence_efficiency
    if eff is None:
        return Missing((n.SECTION_INSTRUCTIONS,))
    severity = grade(eff, t.divergence_efficiency, t.divergence_critical, below=True)
    if severity is None:
        return None
    return Finding(
        severity,
        (
            ev("compute", n.THREADS_PER_INST, f.threads_per_inst, unit="thread"),
            ev(
                "compute",
                f"{n.THREADS_PER_INST} / ideal threads per warp",
                eff,
                "<",
                t.divergence_efficiency,
                note=f"ideal = {f.ideal_threads:.0f} for this block size",
            ),
        ),
        f"On average {f.threads_per_inst:.1f} of {f.ideal_threads:.0f} lanes execute each "
        "instruction.",
    )


_FP64_TENSOR_CORES = ((8, 0), (9, 0), (10, 0))
"""Compute capabilities whose tensor cores take FP64 (DMMA): A100, H100/H200, B200."""


def has_tensor_cores_for(precision: str, cc: tuple[int, int] | None) -> bool:
    """Whether a GPU of compute capability ``cc`` has tensor cores for ``precision``'s matrix
    work: TF32 (for FP32) from Ampere (8.0) on, FP64 only on the data-centre parts."""
    if cc is None:
        return False
    if precision == "FP64":
        return cc in _FP64_TENSOR_CORES
    return cc >= (8, 0)


def _matrix_off_tensor(f: Facts, t: Thresholds) -> Outcome:
    """FP32/FP64 matrix-shaped work (``Facts.matrix_work``) on a GPU whose tensor cores take
    that precision, with the tensor pipe idle."""
    work = f.matrix_work
    if work is None or not has_tensor_cores_for(work.precision, f.compute_capability):
        return None
    cc = f.compute_capability or (0, 0)
    fp = work.precision
    evidence = [
        ev("compute", f"{fp} FLOP/s / {fp} peak", work.pct_of_peak, ">=", t.matrix_fp_pct, "%"),
        ev("compute", f"FMA share of {fp} operations", work.fma_share, ">=", t.matrix_fma_share),
        ev(
            "compute",
            "FLOP per DRAM byte",
            work.intensity,
            ">=",
            work.ridge,
            note="past the DRAM ridge: compute-shaped",
        ),
        ev("compute", n.CC_MAJOR, float(cc[0]), note=f"compute capability {cc[0]}.{cc[1]}"),
    ]
    if f.tensor_pct is not None:
        evidence.append(ev("compute", n.PIPE_TENSOR, f.tensor_pct, "<", t.tensor_idle_pct, "%"))
    path = "TF32 (or BF16)" if work.precision == "FP32" else "FP64 (DMMA)"
    return Finding(
        "warning",
        tuple(evidence),
        f"{work.precision} matrix work ({work.fma_share:.0%} FMAs, {work.intensity:.0f} FLOP "
        f"per DRAM byte) runs on the FMA pipes of a GPU whose tensor cores take {path}.",
    )


def no_tensor_core(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.tensor_pct is not None and f.tensor_pct >= t.tensor_idle_pct:
        return None
    matrix = _matrix_off_tensor(f, t)
    if matrix is not None:
        return matrix
    if f.fp16_pct is None:
        return Missing((n.SECTION_ROOFLINE,))
    if f.fp16_pct < t.half_pct_of_peak or (f.fp16_fma_share or 0.0) < t.half_fma_share:
        return None
    evidence = [
        ev(
            "compute",
            "FP16 FLOP/s / FP16 non-tensor peak",
            f.fp16_pct,
            ">=",
            t.half_pct_of_peak,
            "%",
        ),
        ev(
            "compute",
            "HFMA share of half-precision operations",
            f.fp16_fma_share,
            ">=",
            t.half_fma_share,
        ),
    ]
    if f.tensor_pct is not None:
        evidence.append(ev("compute", n.PIPE_TENSOR, f.tensor_pct, "<", t.tensor_idle_pct, "%"))
    return Finding("warning", tuple(evidence), "Half-precision FMAs run on the FMA pipe.")


CHECKS: dict[str, Check] = {
    "short-kernel": short_kernel,
    "grid-too-small": grid_too_small,
    "tail-effect": tail_effect,
    "low-occupancy": low_occupancy,
    "occupancy-limiter": occupancy_limiter,
    "register-spill": register_spill,
    "uncoalesced-global-access": uncoalesced_global_access,
    "l1tex-pressure": l1tex_pressure,
    "l2-low-hit-rate": l2_low_hit_rate,
    "atomic-contention": atomic_contention,
    "dram-bandwidth-saturated": dram_bandwidth_saturated,
    "shared-bank-conflicts": shared_bank_conflicts,
    "warp-divergence": warp_divergence,
    "no-tensor-core": no_tensor_core,
    **{flag_id: stall_check(metric) for flag_id, metric in STALL_FLAGS.items()},
}
