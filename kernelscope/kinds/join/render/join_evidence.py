"""A join row's evidence in words: one line per reading (``kinds.join.analysis.evidence``)."""

from __future__ import annotations

from functools import singledispatch

from kernelscope.core.durations import fmt_ns
from kernelscope.core.shares import fmt_share
from kernelscope.core.units import fmt_bytes
from kernelscope.kinds.join.analysis.evidence import (
    CopyTime,
    FamilyHeadroom,
    IdleGaps,
    InstanceSpread,
    JoinEvidence,
    LaunchCeiling,
    LaunchSpeedup,
    ProfiledLaunches,
    RangeCoverage,
    Representative,
    SlowFirstStep,
    TinyStretches,
    UnifiedMigrations,
)


def evidence_line(evidence: JoinEvidence) -> str:
    """The reading in one line, e.g. ``12 profiled launch(es) of 1,200 on the timeline``."""
    return _line(evidence)


def evidence_lines(evidence: tuple[JoinEvidence, ...]) -> list[str]:
    return [_line(e) for e in evidence]


@singledispatch
def _line(evidence: object) -> str:
    raise TypeError(f"no wording for {type(evidence).__name__}")


@_line.register
def _(e: ProfiledLaunches) -> str:
    return f"{e.profiled} profiled launch(es) of {e.instances:,} on the timeline"


@_line.register
def _(e: FamilyHeadroom) -> str:
    spread = (f"{fmt_share(e.low)}–{fmt_share(e.high)}" if e.high != e.low
              else fmt_share(e.low))
    return (f"headroom {fmt_share(e.headroom)}: the mean of {e.launches} launches' "
            f"headroom ({spread}) weighted by their durations")


@_line.register
def _(e: LaunchCeiling) -> str:
    return (f"longest launch (kernel {e.kernel_id}): {e.ceiling_by} "
            f"{fmt_share(1 - e.ceiling)} of peak, {fmt_share(e.ceiling)} from the ceiling")


@_line.register
def _(e: LaunchSpeedup) -> str:
    capped = " (capped at the ceiling distance)" if e.capped else ""
    return f"longest launch: NCU {e.rule} est. speedup {fmt_share(e.speedup)}{capped}"


@_line.register
def _(e: RangeCoverage) -> str:
    return "on the timeline: " + ", ".join(
        f"{name or 'no range'} {n:,}× ({profiled} profiled)" for name, n, profiled in e.ranges)


@_line.register
def _(e: InstanceSpread) -> str:
    return (f"{e.instances:,} instances, median {fmt_ns(e.median_ns)} "
            f"({fmt_ns(e.min_ns)}–{fmt_ns(e.max_ns)})")


@_line.register
def _(e: Representative) -> str:
    where = f", in {e.nvtx}" if e.nvtx else ""
    return f"representative: instance {e.instance:,} ({fmt_ns(e.duration_ns)}{where})"


@_line.register
def _(e: IdleGaps) -> str:
    return f"{e.gaps:,} gap(s), {fmt_ns(e.total_ns)} idle in all"


@_line.register
def _(e: TinyStretches) -> str:
    return (f"{e.kernels:,} kernels shorter than {fmt_ns(e.tiny_ns, compact=True)} in "
            f"{e.stretches:,} launch-bound stretch(es): median kernel "
            f"{fmt_ns(e.median_kernel_ns)}, median gap {fmt_ns(e.median_gap_ns)}")


@_line.register
def _(e: SlowFirstStep) -> str:
    return f"the first '{e.name}' lasts {fmt_ns(e.duration_ns)}"


@_line.register
def _(e: CopyTime) -> str:
    return (f"{e.copies:,} copies and {e.memsets:,} memsets, {fmt_ns(e.total_ns)} of GPU "
            "time")


@_line.register
def _(e: UnifiedMigrations) -> str:
    return (f"{e.migrations:,} unified-memory migrations ({e.to_device:,} to the device, "
            f"{e.to_host:,} to the host, {fmt_bytes(e.bytes)}), {fmt_ns(e.total_ns)} of GPU "
            "time")
