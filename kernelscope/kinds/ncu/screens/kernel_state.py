"""What the kernel-report screens share: the open report and the kernels' summaries so far.

The kernel list, the detail and the roofline are made with the state they show
(``kernel_commands.KernelReportScreen``). The kernel report kind's session
(``kernel_session.KernelSession``) is one and fills it from its opening worker; a join makes
one per kernel report it opens a kernel of. Each says how a kernel of it is opened; both mark
a baseline (``b``) the same way, and ``e`` exports the report (on the detail: its kernel).
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kernelscope.core.kernel_names import ShortNames
from kernelscope.kinds.ncu.analysis.report_analysis import ReportAnalysis
from kernelscope.kinds.ncu.model import KernelDetail, KernelSummary, NcuReport
from kernelscope.kinds.ncu.screens.columns import ColumnProvider, list_columns
from kernelscope.ui.session import ExportJob, report_stem

if TYPE_CHECKING:
    from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis
    from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport
    from kernelscope.kinds.ncu.screens.diagnosis_view import DiagnosisPaneView

BaselineListener = Callable[[KernelDetail | None], None]


class KernelReportData:
    """An Nsight Compute report being read: its one analysis (``ReportAnalysis``: the
    summaries in ID order as batches arrive, their diagnoses, shares, short names and
    families), the list's columns and the baseline. What the kernel list's view logic
    (``KernelListView``), the panes and the roofline read; no screen is opened from here."""

    def __init__(self, path: Path, extra_columns: Sequence[ColumnProvider] | None = None) -> None:
        self.report_path = Path(path)
        self.analysis = ReportAnalysis()
        """Everything worked out of the report: every view reads it, none makes its own."""
        self.undiagnosed: set[int] = set()
        """The kernels whose diagnosis the reading worker is still making (the list's first
        rows, shown before the diagnosis's modules are imported)."""
        self.columns = list_columns(extra_columns, share=self.time_share,
                                    diagnosis=self.listed_diagnosis)
        self._pane_view: DiagnosisPaneView | None = None
        self._pane_view_lock = threading.Lock()  # (a detail's worker may ask first)
        self.baseline: KernelDetail | None = None
        """The kernel marked with ``b``: every pane shows the deltas against it."""
        self.baseline_listeners: list[BaselineListener] = []
        """Called with the new baseline (None: cleared) each time it changes."""

    @property
    def report(self) -> NcuReport | None:
        return self.analysis.report

    @report.setter
    def report(self, report: NcuReport | None) -> None:
        self.analysis.report = report

    @property
    def summaries(self) -> list[KernelSummary]:
        """The kernels read so far, in ID order."""
        return self.analysis.summaries

    @property
    def names(self) -> ShortNames:
        """The report's short kernel names (unique among the kernels loaded so far)."""
        return self.analysis.names

    @property
    def loaded_all(self) -> bool:
        """Whether every kernel is read."""
        return self.analysis.complete

    @loaded_all.setter
    def loaded_all(self, loaded: bool) -> None:
        if loaded:
            self.analysis.finish()

    @property
    def pane_view(self) -> DiagnosisPaneView:
        """What the Diagnosis pane and the roofline show of the analysis (made when first
        asked: its chart's modules load with a detail or the roofline, not before the list's
        first rows)."""
        with self._pane_view_lock:
            if self._pane_view is None:
                from kernelscope.kinds.ncu.screens.diagnosis_view import DiagnosisPaneView

                self._pane_view = DiagnosisPaneView(self.analysis)
            return self._pane_view

    def hold(self, analyzed: AnalyzedReport) -> None:
        """Show a report ``analyze`` read whole (a join's kernel report)."""
        self.analysis = ReportAnalysis.of(analyzed)
        with self._pane_view_lock:
            self._pane_view = None  # (made again for this analysis when asked)

    def add_summaries(
        self, batch: Sequence[KernelSummary | tuple[KernelSummary, Diagnosis | None]]
    ) -> set[str]:
        """Keep ``batch`` (each summary with its diagnosis as read, where it has one; a pair
        whose diagnosis is None: the reading worker makes it later, ``hold_diagnoses``);
        returns the demangled names whose short name changed (``ReportAnalysis.add``)."""
        self.undiagnosed.update(item[0].id for item in batch
                                if isinstance(item, tuple) and item[1] is None)
        return self.analysis.add(batch)

    def short_name(self, summary: KernelSummary) -> str:
        """The kernel's short name (``ReportAnalysis.short_name``)."""
        return self.analysis.short_name(summary)

    def time_share(self, summary: KernelSummary) -> float | None:
        """The kernel's share of the summed kernel time (0–1); None until every kernel is
        loaded (the sum is not known before)."""
        return self.analysis.time_share(summary.id)

    def diagnosis(self, summary: KernelSummary) -> Diagnosis:
        """The kernel's diagnosis as read (the list's bottleneck and flags)."""
        return self.analysis.diagnosis(summary)

    def listed_diagnosis(self, summary: KernelSummary) -> Diagnosis | None:
        """The kernel's diagnosis as the list shows it: None while the reading worker is
        still making it (its cells say n/a meanwhile, as the shares do until every kernel
        is read)."""
        return None if summary.id in self.undiagnosed else self.analysis.diagnosis(summary)

    def hold_diagnoses(self, diagnosed: Sequence[tuple[KernelSummary, Diagnosis]]) -> None:
        """Keep the diagnoses of kernels held without one until now (``undiagnosed``)."""
        self.analysis.hold_diagnoses(diagnosed)
        self.undiagnosed.difference_update(summary.id for summary, _ in diagnosed)

    def summary(self, kernel_id: int) -> KernelSummary | None:
        return self.analysis.summary(kernel_id)

    def device_line(self) -> str:
        """``NVIDIA H200 (CC 9.0, 132 SMs)``."""
        if self.report is None:
            return ""
        device = self.report.device
        facts = []
        if device.compute_capability:
            facts.append(f"CC {device.compute_capability}")
        if device.sm_count:
            facts.append(f"{device.sm_count} SMs")
        return f"{device.name} ({', '.join(facts)})" if facts else device.name

    def title_line(self) -> str:
        """The kernel list's top line: report file, device, kernel count."""
        count = self.report.kernel_count if self.report is not None else 0
        parts = ["kernelscope", self.report_path.name, self.device_line(), f"{count:,} kernels"]
        return " · ".join(p for p in parts if p)

    # -- baseline (b) ----------------------------------------------------------------------
    def mark_baseline(self, kernel_id: int, detail: KernelDetail | None = None) -> bool:
        """Make kernel ``kernel_id`` the baseline (again on the baseline: clear it). False when
        its detail is neither given nor read yet: nothing changed."""
        if self.baseline is not None and self.baseline.id == kernel_id:
            self.set_baseline(None)
            return True
        if detail is None and self.report is not None:
            detail = self.report.cached_detail(kernel_id)
        if detail is None or detail.id != kernel_id:
            return False
        self.set_baseline(detail)
        return True

    def set_baseline(self, detail: KernelDetail | None) -> None:
        self.baseline = detail
        for listener in list(self.baseline_listeners):
            listener(detail)

    # -- export (e) and copy (y) -----------------------------------------------------------
    def report_job(self, directory: Path) -> ExportJob:
        return ExportJob("report", directory / f"{report_stem(self.report_path)}.kernelscope.md")

    def kernel_job(self, kernel_id: int, directory: Path) -> ExportJob:
        target = directory / f"{report_stem(self.report_path)}.kernel-{kernel_id}.md"
        return ExportJob("kernel", target, kernel_id)

    def render_job(self, job: ExportJob) -> str:
        """The Markdown of ``job``: a kernel's record, or the whole report (a thread's work)."""
        from kernelscope.kinds.ncu.export.ncu_markdown import render_ncu_markdown

        if job.scope == "kernel" and job.item is not None:
            return self.record(job.item)
        # What is held, rendered: the report is neither opened nor analysed again (only the
        # families' representatives are read for their records, as the CLI's export reads them).
        return render_ncu_markdown(self.analysis.analyzed(), records_as_read=True)

    def record(self, kernel_id: int) -> str:
        """Kernel ``kernel_id``'s case record (Markdown)."""
        from kernelscope.kinds.ncu.export.ncu_markdown import single_kernel_markdown

        assert self.report is not None, "records need the opened report"
        analysis = self.analysis
        return single_kernel_markdown(self.report, analysis.families, analysis.names, kernel_id)


class KernelState(KernelReportData, ABC):
    """A kernel report shown by a kind: the report's data, and how a kernel of it is opened
    (:meth:`open_kernel`), which each kind that shows one says."""

    @abstractmethod
    def open_kernel(self, kernel_id: int, pane: str | None = None) -> None:
        """Show kernel ``kernel_id`` (in the detail screen shown, else a new one)."""


def demangled_of(summary: KernelSummary) -> str:
    """The kernel's demangled name (its function name when the report has none)."""
    return summary.name
