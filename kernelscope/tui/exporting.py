"""The TUI's export (``e``) and copy (``y``): the same Markdown as ``kernelscope export``.

``e`` writes the current scope to a file in the working directory: the kernel shown in the
detail, the whole kernel report from the list or the roofline, or the timeline report. An
existing file is only replaced after a yes. ``y`` copies the current kernel's record to the
clipboard with OSC 52, which reaches the local clipboard over SSH where the terminal allows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.screen import Screen

from kernelscope.export.writer import ExportOptions

if TYPE_CHECKING:
    from kernelscope.tui.app import KernelscopeApp


@dataclass(frozen=True)
class ExportJob:
    """What to export: a kernel of the open kernel report, the kernel report, or a timeline."""

    scope: str  # "kernel", "report" or "timeline"
    target: Path
    kernel_id: int | None = None


def report_stem(path: Path) -> str:
    name = path.name
    for suffix in (".xz", ".gz", ".ncu-rep", ".nsys-rep", ".sqlite"):
        name = name.removesuffix(suffix)
    return name or "report"


def export_job(app: KernelscopeApp, screen: Screen[object], directory: Path) -> ExportJob:
    """The scope the user is looking at, and the file it goes to."""
    from kernelscope.screens.kernel_detail import KernelDetailScreen

    stem = report_stem(app.report_path)
    if isinstance(screen, KernelDetailScreen):
        kernel_id = screen.kernel_id
        return ExportJob("kernel", directory / f"{stem}.kernel-{kernel_id}.md", kernel_id)
    if app.report is None:
        return ExportJob("timeline", directory / f"{stem}.timeline.md")
    return ExportJob("report", directory / f"{stem}.kernelscope.md")


def render_job(app: KernelscopeApp, job: ExportJob, screen: Screen[object]) -> str:
    """The Markdown of ``job`` (call from a thread worker: a report export reads every kernel)."""
    from kernelscope.export.ncu_markdown import single_kernel_markdown
    from kernelscope.export.writer import render, render_timeline_report

    if job.scope == "kernel" and app.report is not None and job.kernel_id is not None:
        return single_kernel_markdown(app.report, list(app.summaries), job.kernel_id)
    if job.scope == "report":
        return render(app.report_path, ExportOptions(fmt="md"))
    data = getattr(screen, "data", None)
    if data is None:
        raise RuntimeError("the timeline is still opening")
    return render_timeline_report(data.report, ExportOptions(fmt="md"))
