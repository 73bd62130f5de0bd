"""Whether a kernel report explains a family's time on the timeline.

The headroom a kernel report measures is a fraction of the kernel's duration *as the report
measured it*. It says what the timeline's time is worth only where the two durations agree:
the timeline's time per launch (the family's total over its instances) against the mean
duration of the family's profiled launches. Where they are more than
``JoinThresholds.duration_apart`` times apart, either way, the report measured something else
and its headroom is not applied; the row says how far apart they are and what usually
explains it:

- the timeline's launches longer, with unified-memory migrations running during them: the
  kernel waited on page faults and migrations, which Nsight Compute's replay (its pages
  already on the GPU) never sees; the remedy is the managed-memory one;
- the timeline's launches longer otherwise: page faults not traced, other kernels running at
  once, lower clocks, or different inputs in the two runs;
- the report's duration longer: Nsight Compute flushes the caches before each replay pass and
  locks the clocks to base, which slows short kernels most.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from kernelscope.core.durations import fmt_ns
from kernelscope.kinds.join.analysis.thresholds import JOIN_THRESHOLDS
from kernelscope.kinds.join.analysis.timeline_families import TimelineFamily
from kernelscope.timeline.analysis.unified_memory import UNIFIED_REMEDY, overlapping

UNIFIED = "unified-memory"
TIMELINE_LONGER = "timeline-longer"
REPLAY_LONGER = "replay-longer"


@dataclass(frozen=True)
class DurationCheck:
    """The timeline's time per launch of a family against its kernel report's duration."""

    timeline_ns: float
    """The family's total time on the timeline over its instances."""
    report_ns: float
    """The mean duration of the family's profiled launches."""
    migrations: int = 0
    """Unified-memory migrations that ran during the family's instances on the timeline."""
    migration_ns: int = 0
    """Their time within those instances."""

    @property
    def ratio(self) -> float:
        """Timeline over report (above 1: the timeline's launches take longer)."""
        return self.timeline_ns / self.report_ns

    @property
    def explained(self) -> bool:
        """True when the two durations are within ``duration_apart`` of each other."""
        limit = JOIN_THRESHOLDS.duration_apart
        return 1 / limit <= self.ratio <= limit

    @property
    def cause(self) -> str | None:
        """Why they differ (None when they agree): ``unified-memory``, ``timeline-longer``,
        ``replay-longer``."""
        if self.explained:
            return None
        if self.ratio < 1:
            return REPLAY_LONGER
        return UNIFIED if self.migrations else TIMELINE_LONGER

    @property
    def apart(self) -> str:
        """``the timeline's 20.84 ms a launch is 10.2× the kernel report's 2.040 ms``."""
        if self.ratio >= 1:
            return (f"the timeline's {fmt_ns(self.timeline_ns)} a launch is "
                    f"{self.ratio:.1f}× the kernel report's {fmt_ns(self.report_ns)}")
        return (f"the kernel report's {fmt_ns(self.report_ns)} is {1 / self.ratio:.1f}× the "
                f"timeline's {fmt_ns(self.timeline_ns)} a launch")

    @property
    def reason(self) -> str | None:
        """How far apart they are and what usually explains it (None when they agree)."""
        cause = self.cause
        if cause is None:
            return None
        head = f"{self.apart}, so the report's headroom is not applied: "
        if cause == UNIFIED:
            return head + (
                f"{self.migrations:,} unified-memory migrations ({fmt_ns(self.migration_ns)}) "
                "ran during its launches on the timeline; a kernel touching managed memory "
                "waits for page faults and migrations there, which Nsight Compute's replay "
                "(its pages already on the GPU) never sees")
        if cause == TIMELINE_LONGER:
            return head + (
                "what usually explains it is unified-memory page faults (trace them with "
                "nsys --cuda-um-gpu-page-faults=true), other kernels running at once, lower "
                "clocks on the timeline, or different inputs in the two runs")
        return head + (
            "Nsight Compute flushes the caches before each replay pass and locks the clocks "
            "to base (--cache-control all, --clock-control base), which slows short kernels "
            "most; profile with --cache-control none --clock-control none to compare")

    @property
    def remedy(self) -> str | None:
        """The managed-memory remedy for unified-memory migrations; None otherwise (the
        kernel's own diagnosis stays the next step)."""
        return UNIFIED_REMEDY if self.cause == UNIFIED else None


def duration_check(family: TimelineFamily, durations: Sequence[float | None],
                   migrations: pl.DataFrame) -> DurationCheck | None:
    """The check of ``family`` against its profiled launches' ``durations`` (None where no
    launch has a duration); ``migrations`` are the timeline's unified-memory migrations."""
    measured = [d for d in durations if d is not None and d > 0]
    if not measured or not family.instances:
        return None
    check = DurationCheck(family.total_ns / family.instances, statistics.fmean(measured))
    if check.ratio <= JOIN_THRESHOLDS.duration_apart:
        return check
    count, ns = overlapping(migrations, family.starts, family.durations)
    return DurationCheck(check.timeline_ns, check.report_ns, count, ns)
