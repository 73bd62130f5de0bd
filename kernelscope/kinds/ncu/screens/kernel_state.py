"""What the kernel-report screens share: the open report and the kernels' summaries so far.

The kernel list, the detail and the roofline are made with the state they show
(``kernel_commands.KernelReportScreen``). The kernel report kind's session
(``kernel_session.KernelSession``) is one and fills it from its opening worker; a join makes
one per kernel report it opens a kernel of. Each says how a kernel of it is opened; both mark
a baseline (``b``) the same way, and ``e`` exports the report (on the detail: its kernel).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path

from kernelscope.core.families import shape_tag, with_shape
from kernelscope.core.kernel_names import ShortNames
from kernelscope.kinds.ncu.analysis.kernel_analysis import time_shares
from kernelscope.kinds.ncu.model import KernelDetail, KernelSummary, NcuReport
from kernelscope.kinds.ncu.screens.columns import ColumnProvider, list_columns
from kernelscope.ui.session import ExportJob, report_stem

BaselineListener = Callable[[KernelDetail | None], None]


class KernelReportData:
    """An Nsight Compute report being read: its summaries in ID order as batches arrive, their
    columns, shares, short names and the baseline. What the kernel list's view logic
    (``KernelListView``) reads; no screen is opened from here."""

    def __init__(self, path: Path, extra_columns: Sequence[ColumnProvider] | None = None) -> None:
        self.report_path = Path(path)
        self.columns = list_columns(extra_columns, share=self.time_share)
        self.report: NcuReport | None = None
        self.summaries: list[KernelSummary] = []
        self._by_id: dict[int, KernelSummary] = {}
        self.loaded_all = False
        self.baseline: KernelDetail | None = None
        """The kernel marked with ``b``: every pane shows the deltas against it."""
        self.names = ShortNames()
        """The report's short kernel names (unique among the kernels loaded so far)."""
        self._shapes: dict[str, set[tuple[str, str]]] = {}
        """Per demangled name, the launch configurations (grid, block) loaded so far."""
        self._shares: tuple[int, dict[int, float | None]] | None = None
        self.baseline_listeners: list[BaselineListener] = []
        """Called with the new baseline (None: cleared) each time it changes."""

    def add_summaries(self, batch: list[KernelSummary]) -> set[str]:
        """Keep ``batch``; batches may arrive roughly, not strictly, in ID order (read by child
        processes), and the summaries are kept in ID order. Returns the demangled names whose
        short name changed (a new kernel can make an earlier name ambiguous)."""
        in_order = not self.summaries or min(s.id for s in batch) > self.summaries[-1].id
        self.summaries.extend(batch)
        if not in_order:
            self.summaries.sort(key=lambda s: s.id)
        reshaped: set[str] = set()
        for summary in batch:
            self._by_id[summary.id] = summary
            shapes = self._shapes.setdefault(demangled_of(summary), set())
            if _config(summary) not in shapes:
                shapes.add(_config(summary))
                if len(shapes) > 1:
                    reshaped.add(demangled_of(summary))
        return self.names.add(demangled_of(s) for s in batch) | reshaped

    def short_name(self, summary: KernelSummary) -> str:
        """The kernel's short name, unique among the report's kernels loaded so far, with its
        launch shape where only that tells it from launches of the same name
        (``core.families.shape_tag``)."""
        name = demangled_of(summary)
        shape = shape_tag(_config(summary), self._shapes.get(name, ()))
        return with_shape(self.names[name], shape)

    def time_share(self, summary: KernelSummary) -> float | None:
        """The kernel's share of the summed kernel time (0–1); None until every kernel is
        loaded (the sum is not known before)."""
        if not self.loaded_all:
            return None
        if self._shares is None or self._shares[0] != len(self.summaries):
            shares, _ = time_shares(self.summaries)
            by_id = {s.id: share for s, share in zip(self.summaries, shares, strict=True)}
            self._shares = (len(self.summaries), by_id)
        return self._shares[1].get(summary.id)

    def summary(self, kernel_id: int) -> KernelSummary | None:
        return self._by_id.get(kernel_id)

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
        from kernelscope.export.writer import ExportOptions, render

        if job.scope == "kernel" and job.item is not None:
            return self.record(job.item)
        return render(self.report_path, ExportOptions(fmt="md"))

    def record(self, kernel_id: int) -> str:
        """Kernel ``kernel_id``'s case record (Markdown)."""
        from kernelscope.kinds.ncu.export.ncu_markdown import single_kernel_markdown

        assert self.report is not None, "records need the opened report"
        return single_kernel_markdown(self.report, list(self.summaries), kernel_id)


class KernelState(KernelReportData, ABC):
    """A kernel report shown by a kind: the report's data, and how a kernel of it is opened
    (:meth:`open_kernel`), which each kind that shows one says."""

    @abstractmethod
    def open_kernel(self, kernel_id: int, pane: str | None = None) -> None:
        """Show kernel ``kernel_id`` (in the detail screen shown, else a new one)."""


def _config(summary: KernelSummary) -> tuple[str, str]:
    return summary.identity.shape


def demangled_of(summary: KernelSummary) -> str:
    """The kernel's demangled name (its function name when the report has none)."""
    return summary.name
