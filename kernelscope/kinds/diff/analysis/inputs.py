"""The two inputs of a diff: both kernel reports or both timelines, opened.

Each input's kind is read from its content (never its extension); a missing or bad input, or
one kernel report with one timeline, is refused with one sentence naming which input it is.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernelscope.core.detect import ReportKind, detect_kind
from kernelscope.core.errors import ReportError, safe_text
from kernelscope.kinds.diff.analysis.kernels import KernelDiff, diff_kernels
from kernelscope.kinds.ncu.analysis.diagnosis import REQUIRED_METRICS
from kernelscope.kinds.ncu.analysis.metric_changes import DIFF_METRIC_NAMES

if TYPE_CHECKING:
    from kernelscope.kinds.diff.analysis.timelines import TimelineDiff

SIDES = ("before", "after")
KIND_WORDS = {
    ReportKind.NCU: "a kernel report (Nsight Compute)",
    ReportKind.NSYS: "a timeline (Nsight Systems)",
    ReportKind.SQLITE: "a timeline (Nsight Systems)",
}
DIFF_METRICS_TO_READ: tuple[str, ...] = tuple(dict.fromkeys((*REQUIRED_METRICS,
                                                             *DIFF_METRIC_NAMES)))
"""What the list pass of a diffed kernel report reads: the diagnosis's and the diff's metrics."""

Progress = Callable[[str], None]



def input_kind(path: Path, side: str) -> str:
    """``ncu`` or ``nsys`` (a timeline: Nsight Systems or a PyTorch profiler trace) for the
    input on ``side``; raises ReportError naming the side."""
    from kernelscope.kinds.kineto.model import is_kineto_file

    if Path(path).is_file() and is_kineto_file(Path(path)):
        return "nsys"
    try:
        kind = detect_kind(path)
    except ReportError as exc:
        raise ReportError(f"The {side} input: {exc}") from exc
    return "ncu" if kind is ReportKind.NCU else "nsys"


def pair_kind(paths: Sequence[Path]) -> str:
    """The one kind both inputs are (``ncu`` or ``nsys``), else a ReportError."""
    if len(paths) != 2:
        raise ReportError(f"A diff compares 2 reports (BEFORE AFTER), not {len(paths)}.")
    kinds = [input_kind(p, side) for p, side in zip(paths, SIDES, strict=True)]
    if kinds[0] != kinds[1]:
        words = [KIND_WORDS[ReportKind.NCU if k == "ncu" else ReportKind.NSYS] for k in kinds]
        raise ReportError(
            f"{safe_text(paths[0].name)} is {words[0]} and {safe_text(paths[1].name)} is "
            f"{words[1]}: a diff compares two of one kind."
        )
    return kinds[0]


@dataclass
class DiffInputs:
    """Both reports of a diff, opened (``ncu``: NcuReport, ``nsys``: TimelineData)."""

    kind: str
    paths: tuple[Path, Path]
    before: Any
    after: Any
    _analysed: tuple[Any, Any] | None = None

    def analysed(self, progress: Progress | None = None) -> tuple[Any, Any]:
        """The two reports analysed (every kernel diagnosed; a timeline's tables built)."""
        if self._analysed is None:
            if self.kind == "ncu":
                from kernelscope.kinds.ncu.analysis.kernel_analysis import analyze

                out = []
                for side, report in zip(SIDES, (self.before, self.after), strict=True):
                    if progress is not None:
                        progress(f"Diagnosing the {side} report's kernels")
                    out.append(analyze(report))
                self._analysed = (out[0], out[1])
            else:
                self._analysed = (self.before, self.after)
        return self._analysed

    def diff(
        self,
        pairs: Sequence[tuple[str, str]] = (),
        pattern: str | None = None,
        progress: Progress | None = None,
    ) -> KernelDiff | TimelineDiff:
        before, after = self.analysed(progress)
        if progress is not None:
            progress("Comparing")
        if self.kind == "ncu":
            return diff_kernels(before, after, pairs, pattern)
        if pairs:
            raise ReportError("--pair pairs kernels of two kernel reports, not of timelines.")
        from kernelscope.kinds.diff.analysis.timelines import diff_timelines

        return diff_timelines(before, after, pattern)

    def close(self) -> None:
        for report in (self.before, self.after):
            report = getattr(report, "report", report)
            close = getattr(report, "close", None)
            if callable(close):
                close()


def open_pair(
    paths: Sequence[str | os.PathLike[str]],
    *,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
) -> DiffInputs:
    """Open both inputs of a diff; raises ReportError (naming the input) when one is bad."""
    files = tuple(Path(p) for p in paths)
    kind = pair_kind(files)
    opened: list[Any] = []
    try:
        for path, side in zip(files, SIDES, strict=True):
            if progress is not None:
                progress(f"Opening the {side} report {safe_text(path.name)}")
            opened.append(_open_one(kind, path, side, cache_dir))
    except BaseException:
        for report in opened:
            DiffInputs(kind, (files[0], files[1]), report, report).close()
        raise
    return DiffInputs(kind, (files[0], files[1]), opened[0], opened[1])


def _open_one(kind: str, path: Path, side: str, cache_dir: Path | None) -> Any:
    try:
        if kind == "ncu":
            from kernelscope.kinds.ncu.model import open_ncu_report

            return open_ncu_report(path, extra_metrics=DIFF_METRICS_TO_READ)
        from kernelscope.kinds.kineto.model import is_kineto_file

        if is_kineto_file(path):
            from kernelscope.kinds.kineto.analysis.timeline import open_kineto

            return open_kineto(path)
        from kernelscope.kinds.nsys.model.opener import open_report
        from kernelscope.timeline.analysis.timeline_data import TimelineData

        return TimelineData(open_report(path, cache_dir=cache_dir), path)
    except ReportError as exc:
        raise ReportError(f"The {side} input: {exc}") from exc
