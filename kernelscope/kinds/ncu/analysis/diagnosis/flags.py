"""The flag checks: each turns the kernel's facts into a finding, no finding, or "can't tell".

Each is registered once, in its rule's ``FlagSpec`` (``catalog.py``); ``checks`` reads them
from there (the launch step's live in ``launch.py``, the compute step's in
``compute_flags.py``)."""

from __future__ import annotations

from functools import cache
from importlib import import_module

from kernelscope.kinds.ncu.analysis.diagnosis import derived as d
from kernelscope.kinds.ncu.analysis.diagnosis import guards as g
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG, FlagSpec
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import Evidence, ev
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts
from kernelscope.kinds.ncu.analysis.diagnosis.outcome import (
    Check,
    Found,
    Guards,
    Missing,
    Outcome,
    grade,
    missing,
)
from kernelscope.kinds.ncu.analysis.diagnosis.result import GuardRail
from kernelscope.kinds.ncu.analysis.diagnosis.stalls import waiting_on
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import Thresholds
from kernelscope.kinds.ncu.analysis.diagnosis.throttled_pipe import throttled_pipe

_NO_MEMORY = missing(n.SECTION_MEMORY)
_NO_MEMORY_TABLES = missing(n.SECTION_MEMORY_TABLES)
_NO_MEMORY_TABLES_SOURCE = missing(n.SECTION_MEMORY_TABLES, n.SECTION_SOURCE)
_NO_OCCUPANCY = missing(n.SECTION_OCCUPANCY)
_NO_SOL = missing(n.SECTION_SOL)
"""The ``Missing`` its checks answer, made once (``missing`` keeps one of each)."""


__all__ = ["Found", "Missing", "checks"]


# -- launch ---------------------------------------------------------------------------------


# -- occupancy ------------------------------------------------------------------------------
def _stand_down(guards: Guards) -> GuardRail | None:
    """The first guard rail that lowers the occupancy flags, if any."""
    for g_id in g.OCCUPANCY_STAND_DOWNS:
        guard = guards.get(g_id)
        if guard is not None:
            return guard
    return None


def low_occupancy(f: Facts, t: Thresholds, guards: Guards) -> Outcome:
    if f.achieved is None and f.theoretical is None:
        return _NO_OCCUPANCY
    low = f.low_occupancy(t)
    if not low:
        return None
    guard = _stand_down(guards)
    if guard is not None and guard.id == g.GRID_CANNOT_FILL:  # its own words and evidence
        detail = "Occupancy is low because the grid leaves SMs short of blocks."
        return Found("info", tuple(guard.evidence), detail, guard.text)
    worst = min(v for _, v in low)
    severity = "critical" if worst < t.occupancy_critical_pct else "warning"
    evidence = f.low_evidence(t)
    detail = (
        "Theoretical occupancy is low: a per-SM resource limits the resident blocks."
        if f.theoretical is not None and f.theoretical < t.occupancy_low_pct
        else "Theoretical occupancy is fine but warps are not resident at run time."
    )
    if guard is not None:
        return Found("info", (*evidence, *guard.evidence[len(low) :]), detail, guard.text)
    return Found(severity, evidence, detail)


def occupancy_limiter(f: Facts, t: Thresholds, guards: Guards) -> Outcome:
    if f.theoretical is None or not f.limits:
        return _NO_OCCUPANCY
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
        return Found("info", tuple(evidence), detail, guard.text)
    severity = "warning" if f.theoretical < t.occupancy_low_pct else "info"
    return Found(severity, tuple(evidence), detail)


# -- memory path ----------------------------------------------------------------------------
def _local_finding(f: Facts, t: Thresholds, spills: bool) -> Outcome:
    """The local-memory traffic graded by its share of the L1 requests, when it is (or is not,
    ``spills``) register spills as ``derived.LocalMemory.spill_evidence`` tells."""
    if f.local_share is None:
        return _NO_MEMORY_TABLES
    if (f.spill_evidence is not None) != spills:
        return None
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
    if f.spill_evidence is not None:
        metric, value, what = f.spill_evidence
        step = "launch" if metric == n.REGISTERS else "source"
        evidence.append(ev(step, metric, value, note=what))
        detail = (f"{f.local_share:.0%} of the L1 requests go to local memory: register spills "
                  f"({what}).")
    else:
        if f.spill_instructions is not None:
            evidence.append(ev("source", n.SPILL_INSTRUCTIONS, f.spill_instructions, unit="inst",
                               note="no register spill"))
        detail = (f"{f.local_share:.0%} of the L1 requests go to local memory: stack arrays or "
                  "dynamically indexed locals (the report shows no register spill, and the "
                  "registers are below the per-thread cap).")
    return Found(severity, tuple(evidence), detail)


def register_spill(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    return _local_finding(f, t, spills=True)


def local_memory(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    return _local_finding(f, t, spills=False)


def uncoalesced_global_access(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    worst = f.sector_bytes
    if worst is None and f.excessive_share is None:
        return _NO_MEMORY_TABLES_SOURCE
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
    return Found(severity, tuple(evidence), detail)


def shared_bank_conflicts(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    share = f.conflict_share
    if share is None:
        return _NO_MEMORY_TABLES
    ways = 1.0 / (1.0 - share) if share < 1 else float("inf")
    severity = grade(share, t.bank_conflict_warn, t.bank_conflict_critical, below=False)
    if severity is None:
        return None
    evidence = (
        ev("memory", f"{n.SHARED_CONFLICTS} / {n.SHARED_WAVEFRONTS}", share, ">=",
           t.bank_conflict_warn),
    )
    detail = (f"{share:.0%} of shared-memory wavefronts are conflicts "
              f"(about {ways:.1f}-way on average).")
    return Found(severity, evidence, detail)


def atomic_contention(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.atomic_slice_max is None:
        return _NO_SOL
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
    return Found(severity, tuple(evidence), detail)


def dram_bandwidth_saturated(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.dram is None:
        return _NO_SOL
    if f.dram < t.dram_saturated_pct:
        return None
    return Found(
        "warning",
        (ev("sol", n.DRAM_PCT, f.dram, ">=", t.dram_saturated_pct, "%"),),
        f"DRAM runs at {f.dram:.0f}% of its peak bandwidth.",
    )


def l1tex_pressure(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.l1 is None or f.dram is None:
        return _NO_SOL
    if f.l1 < t.l1_pressure_pct or f.dram >= t.dram_bound_pct:
        return None
    return Found(
        "warning",
        (
            ev("sol", n.L1_PCT, f.l1, ">=", t.l1_pressure_pct, "%"),
            ev("sol", n.DRAM_PCT, f.dram, "<", t.dram_bound_pct, "%"),
        ),
        f"L1/TEX is {f.l1:.0f}% busy while DRAM is {f.dram:.0f}%.",
    )


def l2_low_hit_rate(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.l2_hit is None or f.l2 is None:
        return _NO_MEMORY
    if f.l2_hit >= t.l2_hit_low_pct or f.l2 < t.l2_busy_pct:
        return None
    evidence = (
        ev("memory", n.L2_HIT, f.l2_hit, "<", t.l2_hit_low_pct, "%"),
        ev("sol", n.L2_PCT, f.l2, ">=", t.l2_busy_pct, "%"),
    )
    detail = f"L2 hits {f.l2_hit:.0f}% of sectors while running at {f.l2:.0f}% of its throughput."
    return Found("warning", evidence, detail)


# -- scheduler ------------------------------------------------------------------------------
STALLS_MISSING = missing(n.SECTION_WARP_STATE, n.SECTION_SCHEDULER)
"""What every stall reason's check answers without the stall shares or the issue rate."""


def stalls_unread(f: Facts) -> bool:
    """True when no stall reason can be graded (no stall share, or no issue rate): then every
    stall check answers ``STALLS_MISSING``, and the engine skips them all at once."""
    return not f.stall_shares or f.issue_active is None


def stall_check(metric: str) -> Check:
    """The check of one stall reason: a finding graded by its share of the cycles between
    issues, lowered to info by the guard rails that explain the waiting."""

    def check(f: Facts, t: Thresholds, guards: Guards) -> Outcome:
        s = f.stall_shares.get(metric)
        if s is None or f.issue_active is None:
            return STALLS_MISSING
        severity = grade(s, t.stall_share_warn, t.stall_share_critical, below=False)
        if severity is None or g.STALLS_WITH_BUSY_ISSUE in guards:
            return None
        evidence = (
            ev("scheduler", n.ISSUE_ACTIVE, f.issue_active, "<", t.issue_underused_pct, "%"),
            ev("scheduler", f"{metric} / {n.WARP_LATENCY}", s, ">=", t.stall_share_warn),
        )
        detail = f"{s:.0%} of a warp's cycles between issues are spent {waiting_on(metric)}."
        throttled = throttled_pipe(f, t)
        if throttled is not None and throttled[3] == metric:
            detail += (f" The {throttled[0]} pipe it feeds is {throttled[2]:.0f}% busy on the "
                       "SMs that ran: that pipe's instructions fill the queue.")
        if metric == n.STALL_LONG_SCOREBOARD and g.LONG_SCOREBOARD_AT_DRAM_ROOF in guards:
            return Found("info", evidence, detail, guards[g.LONG_SCOREBOARD_AT_DRAM_ROOF].text)
        for guard_id in (g.STALLS_AT_COMPUTE_ROOF, g.STALLS_BEHIND_ATOMICS,
                         g.STALLS_IN_SHORT_KERNEL):
            if guard_id in guards:
                return Found("info", evidence, detail, guards[guard_id].text)
        return Found(severity, evidence, detail)

    return check


@cache
def checks() -> dict[str, Check]:
    """Every rule's check by flag id, in the catalog's order: each registration's ``check``
    (``"module:function"`` in this package), or a stall reason's ``stall_check``."""
    return {spec.id: _check_of(spec) for spec in CATALOG.values()}


def _check_of(spec: FlagSpec) -> Check:
    if spec.stall:
        return stall_check(spec.stall)
    module, name = spec.check.split(":")
    check: Check = getattr(import_module(f"{__package__}.{module}"), name)
    return check
