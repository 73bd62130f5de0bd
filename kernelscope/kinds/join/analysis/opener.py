"""Open the inputs of a join: one timeline and one or more kernel reports of one program.

The inputs are told apart by content (never by extension), in any order; anything else is
refused with one sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kernelscope.core.compressed import head_of
from kernelscope.core.detect import ReportKind, _kind_of_head, check_readable
from kernelscope.core.errors import ReportError, safe_text
from kernelscope.kinds.join.analysis.measured_peaks import CEILING_METRICS
from kernelscope.kinds.ncu.analysis.kernel_analysis import (
    AnalyzedReport,
    analyze,
    open_for_analysis,
)
from kernelscope.kinds.ncu.model import NcuReport
from kernelscope.timeline.analysis.timeline_data import TimelineData

if TYPE_CHECKING:
    from kernelscope.kinds.join.analysis.model import JoinReport

TIMELINE_KINDS = (ReportKind.NSYS, ReportKind.SQLITE)
Step = Callable[[str], None]


def kind_of(path: Path) -> ReportKind | None:
    """The Nsight format ``path``'s first bytes announce (raises ReportError if unreadable)."""
    try:
        return _kind_of_head(head_of(check_readable(path)))
    except OSError as exc:
        raise ReportError(f"{safe_text(path)} cannot be read ({exc.strerror or exc}).") from exc


TIMELINE_WORDS = "a timeline (.nsys-rep, .sqlite or a PyTorch profiler trace)"


def split_inputs(paths: Sequence[Path]) -> tuple[Path, tuple[Path, ...]]:
    """(the timeline, the kernel reports); raises ReportError unless exactly one input is a
    timeline and every other one a kernel report."""
    if len(paths) < 2:
        raise ReportError(f"A join takes {TIMELINE_WORDS} and at least one kernel report "
                          "(.ncu-rep).")
    timelines: list[Path] = []
    kernels: list[Path] = []
    for path in paths:
        kind = kind_of(path)
        if kind in TIMELINE_KINDS or (kind is None and _is_kineto(path)):
            timelines.append(path)
        elif kind is ReportKind.NCU:
            kernels.append(path)
        else:
            raise ReportError(f"{safe_text(path)} is neither a timeline nor a kernel report, so "
                              "it cannot be joined.")
    if len(timelines) != 1:
        raise ReportError(
            f"A join takes exactly one timeline, not {len(timelines)}: {TIMELINE_WORDS} and "
            "kernel reports." if timelines else
            f"A join needs {TIMELINE_WORDS} besides the kernel reports.")
    if not kernels:
        raise ReportError("A join needs at least one kernel report (.ncu-rep) besides the "
                          "timeline.")
    return timelines[0], tuple(kernels)


def is_join(paths: Sequence[Path]) -> bool:
    """Whether ``paths`` are a timeline plus kernel reports (for detection; never raises on
    the kinds, only on unreadable files)."""
    if len(paths) < 2 or any(_is_dir(p) for p in paths):
        return False
    kinds = [kind_of(p) for p in paths]
    timelines = [k in TIMELINE_KINDS or (k is None and _is_kineto(p))
                 for k, p in zip(kinds, paths, strict=True)]
    return (sum(timelines) == 1
            and all(t or k is ReportKind.NCU for k, t in zip(kinds, timelines, strict=True)))


def _is_kineto(path: Path) -> bool:
    """A PyTorch profiler (Kineto) trace: a timeline too."""
    from kernelscope.kinds.kineto.model import is_kineto_file

    return is_kineto_file(path)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


@dataclass
class JoinInputs:
    """The opened inputs: the timeline's data and each kernel report, analysed."""

    timeline: TimelineData
    kernel_paths: tuple[Path, ...]
    kernel_reports: list[AnalyzedReport] = field(default_factory=list)

    def close(self) -> None:
        for analyzed in self.kernel_reports:
            analyzed.report.close()

    @property
    def reports(self) -> list[tuple[Path, AnalyzedReport]]:
        return list(zip(self.kernel_paths, self.kernel_reports, strict=True))


def open_timeline(trace: Path, cache_dir: Path | None = None) -> TimelineData:
    """The timeline's data as the join reads it: a PyTorch profiler trace's, else an Nsight
    Systems report's (``cache_dir``: where its SQLite export is cached)."""
    if _is_kineto(trace):
        from kernelscope.kinds.kineto.analysis.timeline import open_kineto

        return open_kineto(trace)
    from kernelscope.kinds.nsys.model.opener import open_report

    return TimelineData(open_report(trace, cache_dir=cache_dir), trace)


def open_join(paths: Sequence[Path], cache_dir: Path | None = None,
              step: Step | None = None) -> JoinInputs:
    """Open and analyse every input (``step(message)`` says which)."""
    trace, kernel_paths = split_inputs(paths)
    if step is not None:
        step(f"Opening the timeline {trace.name}")
    data = open_timeline(trace, cache_dir)
    inputs = JoinInputs(data, kernel_paths)
    try:
        for path in kernel_paths:
            if step is not None:
                step(f"Reading and diagnosing {path.name}")
            report: NcuReport = open_for_analysis(path, also=CEILING_METRICS)
            analyzed = analyze(report)
            inputs.kernel_reports.append(analyzed)
            if not analyzed.kernels:
                raise ReportError(f"{safe_text(path.name)} holds no kernel, so there is "
                                  "nothing to join.")
        if not data.report.kernels.height:
            raise ReportError(f"{safe_text(trace.name)} holds no kernel (was CUDA traced?), so "
                              "there is nothing to join.")
    except BaseException:
        inputs.close()
        raise
    return inputs


def analyse_join(inputs: JoinInputs, options: object = None) -> JoinReport:
    """The join of the opened inputs (the kind's ``analyse``)."""
    from kernelscope.kinds.join.analysis.model import build_join

    return build_join(inputs.timeline, inputs.reports)
