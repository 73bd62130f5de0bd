"""What every screen of a diff shares: the diff it shows, and ``e``, which writes that diff
(with the pairs made by hand so far) as Markdown."""

from __future__ import annotations

from pathlib import Path

from kernelscope.kinds.diff.analysis.kernels import KernelDiff
from kernelscope.kinds.diff.analysis.timelines import TimelineDiff
from kernelscope.ui.session import ExportJob, ReportScreen


class DiffScreen(ReportScreen[None]):
    """A screen of ``diff``; ``e`` writes the diff to ``export_name``."""

    def __init__(
        self, diff: KernelDiff | TimelineDiff, export_name: str, *, id: str
    ) -> None:
        super().__init__(id=id)
        self.export_name = export_name
        self.shown_diff = diff

    def can_export(self) -> bool:
        return True

    def export_job(self, directory: Path) -> ExportJob:
        return ExportJob("diff", directory / self.export_name)

    def render_export(self, job: ExportJob) -> str:
        from kernelscope.kinds.diff.export.diff_markdown import render_diff_markdown

        return render_diff_markdown(self.shown_diff)
