"""Guard rails: the common misjudgments of the methodology notes, each as an explicit check.

A guard rail does not hide anything: it is reported with its numbers, and the flag it concerns
is lowered to ``info`` (or not raised) with the reason attached.
"""

from __future__ import annotations

import math

from kernelscope.parsers.diagnosis import names as n
from kernelscope.parsers.diagnosis.evidence import ev
from kernelscope.parsers.diagnosis.facts import Facts
from kernelscope.parsers.diagnosis.result import GuardRail
from kernelscope.parsers.diagnosis.thresholds import Thresholds

MEMORY_NOT_DRAM = "memory-not-dram"
OCCUPANCY_BY_DESIGN = "occupancy-by-design"
STALLS_WITH_BUSY_ISSUE = "stalls-with-busy-issue"
REGISTER_LIMIT_LARGE_BLOCKS = "register-limit-large-blocks"
LONG_SCOREBOARD_AT_DRAM_ROOF = "long-scoreboard-at-dram-roof"
STALLS_AT_COMPUTE_ROOF = "stalls-at-compute-roof"


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


def occupancy_by_design(f: Facts, t: Thresholds) -> GuardRail | None:
    """Low occupancy while a math pipe is busy: the kernel trades warps for reuse on purpose."""
    low = [
        (name, v)
        for name, v in ((n.ACHIEVED_OCC, f.achieved), (n.THEORETICAL_OCC, f.theoretical))
        if v is not None and v < t.occupancy_low_pct
    ]
    if not low or not f.pipes_busy(t.pipe_busy_pct) or f.busiest_pipe is None:
        return None
    label, metric, pct = f.busiest_pipe
    evidence = [ev("occupancy", name, v, "<", t.occupancy_low_pct, "%") for name, v in low]
    evidence.append(ev("compute", metric, pct, ">=", t.pipe_busy_pct, "%"))
    return GuardRail(
        OCCUPANCY_BY_DESIGN,
        f"Occupancy is low but the {label} pipe is {pct:.0f}% busy: the kernel keeps its pipes "
        "fed with few warps (registers and shared memory spent on reuse), which is fine.",
        tuple(evidence),
    )


def stalls_with_busy_issue(f: Facts, t: Thresholds) -> GuardRail | None:
    """Stall reasons are only worth acting on when the schedulers are often idle."""
    if f.issue_active is None or f.issue_active < t.issue_underused_pct:
        return None
    top = [(name, s) for name, s in f.stall_shares.items() if s >= t.stall_share_warn]
    if not top:
        return None
    evidence = [ev("scheduler", n.ISSUE_ACTIVE, f.issue_active, ">=", t.issue_underused_pct, "%")]
    evidence += [
        ev("scheduler", f"{name} / {n.WARP_LATENCY}", s, ">=", t.stall_share_warn)
        for name, s in top
    ]
    return GuardRail(
        STALLS_WITH_BUSY_ISSUE,
        f"The schedulers issue on {f.issue_active:.0f}% of cycles, so the stall reasons only "
        "describe normal waiting between issues; no stall flag is raised.",
        tuple(evidence),
    )


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
    top = [(name, s) for name, s in f.stall_shares.items() if s >= t.stall_share_warn]
    if not top:
        return None
    label, metric, pct = f.busiest_pipe
    evidence = [ev("compute", metric, pct, ">=", t.pipe_busy_pct, "%", note=f"{label} pipe")]
    evidence += [
        ev("scheduler", f"{name} / {n.WARP_LATENCY}", s, ">=", t.stall_share_warn)
        for name, s in top
    ]
    return GuardRail(
        STALLS_AT_COMPUTE_ROOF,
        f"The {label} pipe is {pct:.0f}% busy, so the kernel is at its compute roof: its stall "
        "reasons describe normal waiting between math instructions, not a bottleneck.",
        tuple(evidence),
    )


CHECKS = (
    memory_not_dram,
    occupancy_by_design,
    register_limit_large_blocks,
    stalls_with_busy_issue,
    long_scoreboard_at_dram_roof,
    stalls_at_compute_roof,
)


def guard_rails(f: Facts, t: Thresholds) -> dict[str, GuardRail]:
    """Every guard rail that applies to the kernel, by id."""
    out: dict[str, GuardRail] = {}
    for check in CHECKS:
        g = check(f, t)
        if g is not None:
            out[g.id] = g
    return out
