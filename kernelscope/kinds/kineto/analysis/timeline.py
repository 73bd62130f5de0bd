"""A Kineto trace's timeline analyses: the nsys timeline's (:class:`TimelineData` on the
trace as an :class:`TimelineReport`), the gap causes its host events name, and HTA's numbers."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path

import polars as pl

from kernelscope.kinds.kineto.analysis.gaps import refine_all
from kernelscope.kinds.kineto.analysis.hta import HtaNumbers, hta_numbers
from kernelscope.kinds.kineto.analysis.op_efficiency import kineto_op_efficiency
from kernelscope.kinds.kineto.model.as_timeline import as_timeline_report, cpu_op_ranges
from kernelscope.kinds.kineto.model.model import KinetoTrace, read_trace
from kernelscope.timeline.analysis.gap_causes import GapExplanation
from kernelscope.timeline.analysis.op_efficiency import OpEfficiency
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.analysis.timeline_data import (
    EXPORT_GAPS,
    STAGES,
    TimelineData,
    compute_stages,
)


class KinetoTimelineData(TimelineData):
    """Everything the timeline views and exports show of one Kineto trace."""

    def __init__(self, trace: KinetoTrace, path: Path | None = None) -> None:
        super().__init__(as_timeline_report(trace), path or trace.path)
        self.trace = trace

    @cached_property
    def explained(self) -> list[GapExplanation]:
        return refine_all(self.trace, super().explained)

    def longest_gaps(
        self, limit: int = EXPORT_GAPS, min_gap_ns: int = TIMELINE_THRESHOLDS.large_gap_ns
    ) -> list[GapExplanation]:
        return refine_all(self.trace, super().longest_gaps(limit, min_gap_ns))

    @property
    def extra_cpu_ranges(self) -> pl.DataFrame:
        """The trace's ``cpu_op`` ranges (start, end, global_tid, name): CPU operators the
        critical path names and a what-if can make faster."""
        return cpu_op_ranges(self.trace)

    @cached_property
    def hta(self) -> HtaNumbers:
        return hta_numbers(self.trace)

    @cached_property
    def op_efficiency(self) -> OpEfficiency:
        """The operators' efficiency from the trace's ``Input Dims`` (``op_efficiency.py``)."""
        return kineto_op_efficiency(self.trace, self.model_flops)


def open_kineto(path: Path, progress: Callable[[str, float | None], None] | None = None
                ) -> KinetoTimelineData:
    """Read the trace at ``path`` (ReportError with one sentence when it cannot be)."""
    return KinetoTimelineData(read_trace(Path(path), progress), Path(path))


def build_kineto(path: Path, *, step: Callable[[str], None] | None = None,
                 cancelled: Callable[[], bool] | None = None) -> KinetoTimelineData:
    """Read the trace and compute every view's data, stage by stage (as ``build`` does)."""
    if step is not None:
        step(f"Reading {path.name}")
    data = open_kineto(path)
    compute_stages(data, path, (*STAGES, ("Computing HTA's numbers", ("hta",))), step=step,
                   cancelled=cancelled)
    return data
