"""Everything kernelscope shows and exports of a timeline report, computed once per report.

One builder for the timeline screen, the exports (JSON, Markdown, CSV, ``summary``) and the
benchmark: :class:`TimelineData` wraps an opened :class:`TimelineReport` and computes each table on
first use (plain polars frames and dataclasses, no Textual). The screen's worker calls
:func:`build`, which computes everything the views show stage by stage; an export only computes
what it writes.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import polars as pl

from kernelscope.core.hooks import OpenCancelled
from kernelscope.core.kernel_names import ShortNames
from kernelscope.timeline.analysis import summaries
from kernelscope.timeline.analysis.critical_path.graph import build_graph
from kernelscope.timeline.analysis.critical_path.result import CriticalPath
from kernelscope.timeline.analysis.critical_path.whatif import Model
from kernelscope.timeline.analysis.findings import findings
from kernelscope.timeline.analysis.gap_causes import GapExplanation, explain_gaps
from kernelscope.timeline.analysis.gpu_breakdown import TemporalBreakdown, timeline_breakdown
from kernelscope.timeline.analysis.graphs import compare_graphs, graph_launches
from kernelscope.timeline.analysis.metric_analysis import (
    MetricsVerdict,
    family_metrics,
    metric_summary,
    metrics_verdicts,
    nvtx_metrics,
)
from kernelscope.timeline.analysis.nvtx import nvtx_gpu_busy, nvtx_summary
from kernelscope.timeline.analysis.nvtx_ops import nvtx_op_efficiency
from kernelscope.timeline.analysis.op_efficiency import OpEfficiency
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.analysis.utilization import (
    gap_histogram,
    gpu_utilization,
    idle_gaps,
    launch_gaps,
    utilization_windows,
)
from kernelscope.timeline.model.model import TimelineReport

if TYPE_CHECKING:
    from kernelscope.timeline.analysis.timeline import TimelineIndex
    from kernelscope.timeline.analysis.timeline_view import Gap

EXPLAIN_LIMIT = 500
"""How many of the longest large gaps get an explanation (the CPU activity during them)."""

GapKey = tuple[int, int, int]  # (device, start_ns, end_ns)


def gap_key(device: int, start_ns: int, end_ns: int) -> GapKey:
    return (int(device), int(start_ns), int(end_ns))


EXPORT_GAPS = 50
"""How many of the longest large gaps the exports list."""


T = TypeVar("T")


def _of_report(make: Callable[[TimelineReport], T]) -> cached_property[T]:
    """A :class:`TimelineData` attribute that is ``make`` of the report, computed on first use."""

    def of_report(data: TimelineData) -> T:
        return make(data.report)

    of_report.__doc__ = make.__doc__
    return cached_property(of_report)


class TimelineData:
    """One report's analyses, each computed on first use and kept.

    Frames: ``utilization`` (gpu_utilization, a row per device), ``kernels``
    (cuda_gpu_kern_sum columns), ``api`` (cuda_api_sum), ``osrt`` (osrt_sum), ``nvtx``
    (nvtx_sum with a "GPU busy (%)" column), ``nvtx_busy`` (nvtx_gpu_busy), ``mem_time`` and
    ``mem_size`` (the memop summaries), ``gaps`` (every idle gap with its cause when explained),
    ``histogram`` (gap_histogram), ``launches`` (launch_gaps).
    """

    def __init__(self, report: TimelineReport, path: Path | None = None) -> None:
        self.report = report
        self.path = Path(path) if path is not None else report.path
        # The report's time range (ns): the timeline's axis, the exports' origin.
        self.start_ns, self.end_ns = report.start_ns, report.end_ns

    @cached_property
    def index(self) -> TimelineIndex:
        """The timeline's lanes and events for the screen (imported there: an export needs
        none of it)."""
        from kernelscope.timeline.analysis.timeline import TimelineIndex

        return TimelineIndex(self.report)

    @cached_property
    def lane_events(self) -> bool:
        """Every timeline lane's events, built (for the cursor and the names in the lanes)."""
        self.index.prepare_events()
        return True

    @cached_property
    def names(self) -> ShortNames:
        """The trace's short kernel names (unique among its kernels)."""
        # distinct names first, then as text: the name column is categorical, and casting
        # every row to a string first cost ~0.03 s on a 300,000-kernel trace
        names = self.report.kernels["name"].drop_nulls().unique(maintain_order=True)
        return ShortNames(names.cast(pl.String).to_list())

    def short_name(self, name: str) -> str:
        """Kernel ``name`` (demangled, as nsys stores it) as the trace's short name."""
        return self.names[name]

    utilization = _of_report(gpu_utilization)
    kernels = _of_report(summaries.kernel_summary)
    api = _of_report(summaries.cuda_api_summary)
    osrt = _of_report(summaries.osrt_summary)
    mem_time = _of_report(summaries.memop_time_summary)
    mem_size = _of_report(summaries.memop_size_summary)
    nvtx_busy = _of_report(nvtx_gpu_busy)

    @cached_property
    def nvtx(self) -> pl.DataFrame:
        busy = self.nvtx_busy.select(
            pl.col("range").alias("Range"), pl.col("style").alias("Style"),
            pl.col("gpu_busy_pct").alias("GPU busy (%)"),
        )
        return nvtx_summary(self.report).join(
            busy, on=["Range", "Style"], how="left", maintain_order="left"
        )

    @cached_property
    def metrics(self) -> pl.DataFrame:
        """Each sampled GPU metric over the capture (metric_summary; empty without any)."""
        return metric_summary(self.report.gpu_metrics)

    family_metrics = _of_report(family_metrics)
    nvtx_metrics = _of_report(nvtx_metrics)

    @cached_property
    def metrics_verdicts(self) -> list[MetricsVerdict]:
        return metrics_verdicts(self.report, self.utilization)

    graph_launches = _of_report(graph_launches)
    graphs = _of_report(compare_graphs)

    def metric_strip(self, device: int, key: str, t0: int, t1: int,
                     width: int) -> list[float | None]:
        """The metric's time-weighted mean in each of ``width`` equal columns of [t0, t1)."""
        series = self.report.gpu_metrics.get(device, key)
        if series is None or width <= 0 or t1 <= t0:
            return [None] * max(width, 0)
        edges = pl.Series([t0 + (t1 - t0) * i // width for i in range(width + 1)],
                          dtype=pl.Int64)
        return series.window_means(edges)

    @cached_property
    def breakdown(self) -> tuple[TemporalBreakdown | None, float | None]:
        """HTA's temporal breakdown (ns) and communication/computation overlap (%)."""
        return timeline_breakdown(self.report)

    findings = _of_report(findings)

    @cached_property
    def explained(self) -> list[GapExplanation]:
        """The ``EXPLAIN_LIMIT`` longest large gaps with the CPU activity during each."""
        return explain_gaps(self.report, limit=EXPLAIN_LIMIT)

    def longest_gaps(
        self, limit: int = EXPORT_GAPS, min_gap_ns: int = TIMELINE_THRESHOLDS.large_gap_ns
    ) -> list[GapExplanation]:
        """The ``limit`` longest idle gaps of at least ``min_gap_ns``, explained, in time order."""
        return explain_gaps(self.report, min_gap_ns=min_gap_ns, limit=limit)

    @cached_property
    def explanations(self) -> dict[GapKey, GapExplanation]:
        return {gap_key(e.device, e.start_ns, e.end_ns): e for e in self.explained}

    @cached_property
    def gaps(self) -> pl.DataFrame:
        explained = self.explained
        causes = pl.DataFrame(
            {
                "device": [e.device for e in explained],
                "start_ns": [e.start_ns for e in explained],
                "cause": [e.cause for e in explained],
            },
            schema={"device": pl.Int64, "start_ns": pl.Int64, "cause": pl.String},
        )
        return idle_gaps(self.report, 0).join(
            causes, on=["device", "start_ns"], how="left", maintain_order="left"
        )

    @cached_property
    def histogram(self) -> pl.DataFrame:
        return gap_histogram(self.gaps)

    launches = _of_report(launch_gaps)

    @cached_property
    def large_gaps(self) -> list[Gap]:
        return self.index.large_gaps()

    @property
    def large_gap_ns(self) -> int:
        return self.index.large_gap_ns

    def utilization_strips(self, windows: int) -> dict[int, list[float]]:
        """Per device, its busy % in each of ``windows`` equal windows of the report."""
        frame = utilization_windows(self.report, windows=windows)
        return {
            int(dev): sub["utilization_pct"].to_list()
            for (dev,), sub in frame.group_by(["device"], maintain_order=True)
        }

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

    model_flops: float | None = None
    """The model's FLOPs per step a user gave (``--model-flops``), for MFU."""

    @cached_property
    def op_efficiency(self) -> OpEfficiency:
        """Each operator's FLOPs, bytes and share of the device's peak, from the shapes in
        its NVTX ranges (``nvtx_ops.py``), and MFU per step."""
        return nvtx_op_efficiency(self.report, self.model_flops)

    @property
    def extra_cpu_ranges(self) -> pl.DataFrame | None:
        """CPU ranges beyond NVTX that name CPU work (a Kineto trace's ``cpu_op``s)."""
        return None

    @cached_property
    def critical_model(self) -> Model:
        """The dependency graph of the timeline, replayed (docs/critical_path.md)."""
        return Model(build_graph(self.report, self.extra_cpu_ranges),
                     metrics=self.report.gpu_metrics)

    @cached_property
    def critical_path(self) -> CriticalPath:
        """Every step's critical path, its breakdown and the kernel families' slack."""
        return self.critical_model.critical_path

    @property
    def gpu_busy_pct(self) -> float | None:
        """Busy share of the GPU's active span, over all devices (busy / span summed)."""
        util = self.utilization
        if not util.height:
            return None
        span = int(util["span_ns"].sum())
        return 100.0 * int(util["busy_ns"].sum()) / span if span else 0.0


Step = Callable[[str], None]

STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Summarising kernels and API calls", ("kernels", "api", "osrt", "mem_time", "mem_size")),
    ("Summarising NVTX ranges", ("nvtx",)),
    ("Measuring GPU utilisation and idle gaps", ("utilization",)),
    ("Indexing the timeline", ("index", "large_gaps", "lane_events", "names")),
    ("Explaining the large gaps", ("explained", "gaps", "histogram", "launches")),
    ("Checking for known problems", ("findings",)),
    ("Reading GPU metrics and CUDA graphs",
     ("metrics", "family_metrics", "nvtx_metrics", "metrics_verdicts", "graph_launches",
      "graphs")),
)
"""What the screen's worker computes, stage by stage, before the views show."""


def build(
    path: Path,
    report: TimelineReport,
    *,
    step: Step | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> TimelineData:
    """Compute every view's data; ``step(message)`` announces each stage, ``cancelled()``
    is checked between them (raising OpenCancelled)."""
    data = TimelineData(report, path)
    compute_stages(data, path, STAGES, step=step, cancelled=cancelled)
    return data


def compute_stages(
    data: object,
    path: Path,
    stages: Sequence[tuple[str, Sequence[str]]],
    *,
    step: Step | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> None:
    """Compute ``data``'s cached views stage by stage: ``step(message)`` announces each,
    ``cancelled()`` is checked between them (raising OpenCancelled)."""
    for message, names in stages:
        if cancelled is not None and cancelled():
            raise OpenCancelled(f"Opening {path.name} was cancelled.")
        if step is not None:
            step(message)
        for name in names:
            getattr(data, name)
