"""The stall-reason flags: what each reason NCU reports means, and its check.

A warp's cycles between two issues are split by NCU's WarpStateStats into reasons. A reason
is worth a flag when it holds ``stall_share_warn`` of those cycles while the schedulers are
often idle (``issue_underused_pct``); when one holds more than ``stall_lead_share`` it names
the kernel's latency problem (``classify``: latency-bound by that reason, its flag leads).
"""

from __future__ import annotations

from kernelscope.kinds.ncu.analysis.diagnosis import derived as d
from kernelscope.kinds.ncu.analysis.diagnosis import guards as g
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.catalog import STALL_FLAGS
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import Evidence, add_in_order, ev
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts
from kernelscope.kinds.ncu.analysis.diagnosis.result import Bottleneck
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import Thresholds

WAITING_ON: dict[str, str] = {
    "barrier": "waiting at a block-wide barrier (__syncthreads)",
    "branch_resolving": "waiting for a branch target to be computed",
    "dispatch_stall": "waiting for the dispatcher",
    "drain": "draining their stores at exit",
    "imc_miss": "waiting for the immediate constant cache",
    "lg_throttle": "waiting for the local/global memory queue",
    "long_scoreboard": "waiting for L1TEX data (global, local, texture)",
    "math_pipe_throttle": "waiting for a busy math pipe",
    "membar": "waiting at memory barriers (fences)",
    "mio_throttle": "waiting for the MIO queue",
    "misc": "stalled for miscellaneous reasons",
    "no_instruction": "waiting for instructions (instruction cache misses)",
    "short_scoreboard": "waiting for MIO results (shared memory, special functions)",
    "sleeping": "sleeping (nanosleep or a warp-synchronous yield)",
    "tex_throttle": "waiting for the texture queue",
    "wait": "waiting out fixed-latency dependencies",
}
"""What a warp does in each stall reason, as the end of "spent …"."""


def waiting_on(metric: str) -> str:
    """What a warp stalled on ``metric`` is doing (the reason itself when unknown)."""
    reason = metric.removeprefix(n.STALL_PREFIX).removesuffix(n.STALL_SUFFIX)
    return WAITING_ON.get(reason, f"stalled on {reason.replace('_', ' ')}")


def flag_of(metric: str) -> str:
    """The flag id that grades a stall metric, or "" when no flag does."""
    return next((flag_id for flag_id, m in STALL_FLAGS.items() if m == metric), "")


# -- the stall-led verdict --------------------------------------------------------------------
_MEMORY_QUEUE_STALLS = (n.STALL_LONG_SCOREBOARD, n.STALL_LG_THROTTLE)
"""Stalls on the local/global memory path: local-memory traffic, when it dominates the
requests, is what the warps wait for."""


def stall_led(f: Facts, t: Thresholds, trail: list[Evidence]) -> Bottleneck | None:
    """Latency-bound by one stall reason when it holds more than ``stall_lead_share`` of a
    warp's cycles between issues while the schedulers are often idle."""
    lead = f.leading_stall
    if lead is None or d.issue_slots_busy(f.issue_active, t) is not False:
        return None
    metric, share = lead
    trail.append(ev("scheduler", n.ISSUE_ACTIVE, f.issue_active, "<", t.issue_underused_pct, "%"))
    trail.append(ev("scheduler", f"{metric} / {n.WARP_LATENCY}", share, ">", t.stall_lead_share))
    reason = d.stall_reason(metric)
    atomics = g.atomic_evidence(f, t, t.atomic_slice_warn_pct)
    if atomics is not None:
        for e in atomics:
            add_in_order(trail, e)
        return Bottleneck(
            "latency-bound",
            f"{f.idle_words(t.sol_busy_pct)}: warps spend {share:.0%} of their cycles "
            f"between issues {waiting_on(metric)}, queued behind atomics to a few addresses "
            f"(the busiest L2 slice's atomic unit is {f.atomic_slice_max or 0:.0f}% busy, the "
            "Speed Of Light averages hide it). The atomics are the cause.",
            tuple(trail),
            decided_by="atomic-contention",
        )
    summary = (
        f"{f.idle_words(t.sol_busy_pct)}: warps spend {share:.0%} of their cycles between "
        f"issues {waiting_on(metric)} ({reason} stalls), which sets the kernel's time."
    )
    local = f.local_share
    if metric in _MEMORY_QUEUE_STALLS and local is not None and local >= t.local_traffic_critical:
        what = "local requests / all global and local requests"
        add_in_order(trail, ev("memory", what, local, ">=", t.local_traffic_critical))
        kind = ("register spills" if f.spill_evidence is not None
                else "stack arrays or dynamically indexed locals")
        return Bottleneck(
            "latency-bound",
            summary + f" {local:.0%} of the L1 requests are local memory ({kind}): that "
            "traffic is the cause.",
            tuple(trail),
            decided_by="register-spill" if f.spill_evidence is not None else "local-memory",
        )
    return Bottleneck("latency-bound", summary, tuple(trail), decided_by=flag_of(metric))
