"""Everything the timeline screen's views show, computed once in the opening worker.

Plain dataclasses and polars frames (no Textual): the worker builds a :class:`TimelineData`
from the opened report, then the views only read it on the UI thread.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import polars as pl

from kernelscope.parsers.nsys import (
    DEFAULT_LARGE_GAP_NS,
    Finding,
    Gap,
    GapExplanation,
    NsysReport,
    OpenCancelled,
    TimelineIndex,
    cuda_api_summary,
    explain_gaps,
    findings,
    gap_histogram,
    gpu_utilization,
    idle_gaps,
    kernel_summary,
    launch_gaps,
    memop_size_summary,
    memop_time_summary,
    nvtx_gpu_busy,
    nvtx_summary,
    osrt_summary,
)

EXPLAIN_LIMIT = 500
"""How many of the longest large gaps get an explanation (the CPU activity during them)."""

GapKey = tuple[int, int, int]  # (device, start_ns, end_ns)


def gap_key(device: int, start_ns: int, end_ns: int) -> GapKey:
    return (int(device), int(start_ns), int(end_ns))


@dataclass
class TimelineData:
    """One report's analyses, ready to show."""

    path: Path
    report: NsysReport
    index: TimelineIndex
    utilization: pl.DataFrame  # gpu_utilization: one row per device
    kernels: pl.DataFrame  # kernel_summary (cuda_gpu_kern_sum columns)
    api: pl.DataFrame  # cuda_api_summary
    osrt: pl.DataFrame  # osrt_summary
    nvtx: pl.DataFrame  # nvtx_summary with a "GPU busy (%)" column
    mem_time: pl.DataFrame  # memop_time_summary
    mem_size: pl.DataFrame  # memop_size_summary
    findings: list[Finding]
    gaps: pl.DataFrame  # every idle gap: device, start_ns, end_ns, duration_ns, cause
    histogram: pl.DataFrame  # gap_histogram
    launches: pl.DataFrame  # launch_gaps
    large_gaps: list[Gap]
    large_gap_ns: int = DEFAULT_LARGE_GAP_NS
    explanations: dict[GapKey, GapExplanation] = field(default_factory=dict)

    @property
    def start_ns(self) -> int:
        return self.report.start_ns

    @property
    def end_ns(self) -> int:
        return self.report.end_ns

    def explanation(self, gap: Gap) -> GapExplanation | None:
        return self.explanations.get(gap_key(gap.device, gap.start_ns, gap.end_ns))

    @cached_property
    def _gap_order(self) -> list[tuple[int, int, int]]:
        return [(g.start_ns, g.device, g.end_ns) for g in self.large_gaps]

    def gap_position(self, gap: Gap) -> int | None:
        """0-based position of ``gap`` among the large gaps (time order), if it is one."""
        key = (gap.start_ns, gap.device, gap.end_ns)
        i = bisect.bisect_left(self._gap_order, key)
        return i if i < len(self._gap_order) and self._gap_order[i] == key else None

    def next_gap(self, after: tuple[int, int, int] | None) -> Gap | None:
        """The first large gap after ``after`` ((start, device, end); None: the first)."""
        i = 0 if after is None else bisect.bisect_right(self._gap_order, after)
        return self.large_gaps[i] if i < len(self.large_gaps) else None

    def previous_gap(self, before: tuple[int, int, int] | None) -> Gap | None:
        """The last large gap before ``before`` (None: the last one)."""
        i = len(self._gap_order) if before is None else bisect.bisect_left(self._gap_order, before)
        return self.large_gaps[i - 1] if i > 0 else None

    def gaps_between(self, t0: int, t1: int) -> list[Gap]:
        """The large gaps overlapping [t0, t1) (at most a few per column in practice)."""
        lo = bisect.bisect_left(self._gap_order, (t0 - self._longest_gap, -1, -1))
        hi = bisect.bisect_left(self._gap_order, (t1, -1, -1))
        return [g for g in self.large_gaps[lo:hi] if g.end_ns > t0]

    @cached_property
    def _longest_gap(self) -> int:
        return max((g.duration_ns for g in self.large_gaps), default=0)

    @property
    def gpu_busy_pct(self) -> float | None:
        """Busy share of the GPU's active span, over all devices (busy / span summed)."""
        util = self.utilization
        if not util.height:
            return None
        span = int(util["span_ns"].sum())
        return 100.0 * int(util["busy_ns"].sum()) / span if span else 0.0


def _nvtx_table(report: NsysReport) -> pl.DataFrame:
    summary = nvtx_summary(report)
    busy = nvtx_gpu_busy(report).select(
        pl.col("range").alias("Range"), pl.col("style").alias("Style"),
        pl.col("gpu_busy_pct").alias("GPU busy (%)"),
    )
    return summary.join(busy, on=["Range", "Style"], how="left", maintain_order="left")


def _gaps_table(report: NsysReport, explained: list[GapExplanation]) -> pl.DataFrame:
    gaps = idle_gaps(report, 0)
    causes = pl.DataFrame(
        {
            "device": [e.device for e in explained],
            "start_ns": [e.start_ns for e in explained],
            "cause": [e.cause for e in explained],
        },
        schema={"device": pl.Int64, "start_ns": pl.Int64, "cause": pl.String},
    )
    return gaps.join(causes, on=["device", "start_ns"], how="left", maintain_order="left")


Step = Callable[[str], None]


def build(
    path: Path,
    report: NsysReport,
    *,
    step: Step | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> TimelineData:
    """Compute every view's data; ``step(message)`` announces each stage, ``cancelled()``
    is checked between them (raising OpenCancelled)."""

    def stage(message: str) -> None:
        if cancelled is not None and cancelled():
            raise OpenCancelled(f"Opening {path.name} was cancelled.")
        if step is not None:
            step(message)

    stage("Summarising kernels and API calls")
    kernels = kernel_summary(report)
    api = cuda_api_summary(report)
    osrt = osrt_summary(report)
    mem_time = memop_time_summary(report)
    mem_size = memop_size_summary(report)
    stage("Summarising NVTX ranges")
    nvtx = _nvtx_table(report)
    stage("Measuring GPU utilisation and idle gaps")
    utilization = gpu_utilization(report)
    stage("Indexing the timeline")
    index = TimelineIndex(report)
    large = index.large_gaps()
    stage("Explaining the large gaps")
    explained = explain_gaps(report, limit=EXPLAIN_LIMIT)
    gaps = _gaps_table(report, explained)
    histogram = gap_histogram(gaps)
    launches = launch_gaps(report)
    stage("Checking for known problems")
    found = findings(report)
    return TimelineData(
        path=path, report=report, index=index, utilization=utilization, kernels=kernels,
        api=api, osrt=osrt, nvtx=nvtx, mem_time=mem_time, mem_size=mem_size, findings=found,
        gaps=gaps, histogram=histogram, launches=launches, large_gaps=large,
        large_gap_ns=index.large_gap_ns,
        explanations={gap_key(e.device, e.start_ns, e.end_ns): e for e in explained},
    )
