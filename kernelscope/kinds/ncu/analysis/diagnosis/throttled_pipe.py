"""A pipe whose own queue holds the warps back: the pipe, not latency, sets the time.

Two stall reasons are a busy pipe's symptom rather than a latency to hide. ``mio_throttle``:
the MIO queue is full, and on Volta and later it feeds the XU pipe (conversions and special
functions: exp, sin, rsqrt, int↔float) besides shared memory; ``math_pipe_throttle``: a math
pipe cannot take the next instruction. The seeds read both as a congested pipe ("某计算管线拥
塞": use other instructions, fewer special functions), never as latency-bound. When one of
them leads the stalls (more than ``stall_lead_share`` of the cycles between issues) and a pipe
it feeds is at least ``pipe_throttled_pct`` busy on the SMs that ran (``Facts.pipes``: NCU's
``…_active`` form, else the elapsed form over the SMs' active share), that pipe gets the label
it gets at ``pipe_busy_pct`` (``classify._unit_led``): a math pipe compute-bound, the ALU or
XU pipe instruction-bound. The LSU pipe is left to the memory side (its MIO throttle is shared
memory, which the Speed Of Light memory units measure).
"""

from __future__ import annotations

from kernelscope.kinds.ncu.analysis.diagnosis import derived as d
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import Evidence, ev
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts
from kernelscope.kinds.ncu.analysis.diagnosis.result import Bottleneck
from kernelscope.kinds.ncu.analysis.diagnosis.stalls import flag_of, waiting_on
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import Thresholds

THROTTLES: dict[str, tuple[str, ...]] = {
    "FMA": (n.STALL_MATH_THROTTLE,),
    "FP64": (n.STALL_MATH_THROTTLE,),
    "Tensor": (n.STALL_MATH_THROTTLE,),
    "ALU": (n.STALL_MATH_THROTTLE,),
    "XU": (n.STALL_MIO_THROTTLE, n.STALL_MATH_THROTTLE),
}
"""Pipe → the stall reasons of its own queue."""

MATH_PIPES = frozenset(label for label, _ in n.BUSY_PIPES)

REMEDIES = {
    "XU": "The XU pipe runs conversions and special functions (exp, sin, rsqrt, int↔float): "
          "keep values in one type, use the fast intrinsics (__expf, __sinf, rsqrtf, "
          "-use_fast_math), precompute or tabulate, or move the work to the FMA pipe.",
    "ALU": "The ALU pipe runs integer, logic and comparison instructions: simplify index "
           "arithmetic, precompute it, and use shifts and masks for powers of two.",
}
"""What to do for a throttled pipe that is not a math pipe (the seeds' instruction-bound
remedies: 简化索引、预计算、位运算替代、减少特殊函数)."""


def throttled_pipe(f: Facts, t: Thresholds) -> tuple[str, str, float, str, float] | None:
    """(pipe, metric, %, stall metric, share) of the busiest pipe at least
    ``pipe_throttled_pct`` busy whose own queue's stall leads the warps' stalls; None when
    there is none."""
    lead = f.leading_stall
    if lead is None:
        return None
    stall, share = lead
    found = [(label, metric, pct) for label, metric, pct in f.pipes
             if stall in THROTTLES.get(label, ()) and t.pipe_throttled_pct <= pct
             <= t.pct_ceiling]
    if not found:
        return None
    label, metric, pct = max(found, key=lambda p: p[2])
    return label, metric, pct, stall, share


def throttled_pipe_led(f: Facts, t: Thresholds, trail: list[Evidence]) -> Bottleneck | None:
    """The label of a kernel whose throttled pipe sets its time (see the module), with the
    pipe and the stall as evidence; None when no pipe is throttled so."""
    found = throttled_pipe(f, t)
    if found is None:
        return None
    label, metric, pct, stall, share = found
    note = f"{label} pipe, on the SMs that ran"
    trail.append(ev("compute", metric, pct, ">=", t.pipe_throttled_pct, "%", note=note))
    trail.append(ev("scheduler", f"{stall} / {n.WARP_LATENCY}", share, ">", t.stall_lead_share))
    summary = (
        f"The {label} pipe is {pct:.0f}% busy on the SMs that ran and warps spend {share:.0%} "
        f"of their cycles between issues {waiting_on(stall)} ({d.stall_reason(stall)} "
        "stalls): the pipe, not latency, sets the time."
    )
    if label in MATH_PIPES:
        return Bottleneck("compute-bound", summary, tuple(trail), decided_by=flag_of(stall))
    return Bottleneck("instruction-bound", f"{summary} {REMEDIES[label]}", tuple(trail),
                      decided_by=flag_of(stall))
