"""The Kineto kind's session: the timeline screen, opening a Kineto trace instead of an
Nsight Systems report; ``e`` exports its Markdown (with HTA's numbers)."""

from __future__ import annotations

from pathlib import Path

from textual import work

from kernelscope.core.hooks import OpenCancelled
from kernelscope.timeline.screens.timeline import TimelineLoaded, TimelineScreen
from kernelscope.timeline.screens.timeline_session import TimelineSession
from kernelscope.ui.help import screen_help
from kernelscope.ui.session import ExportJob


def trace_stem(path: Path) -> str:
    """``step.pt.trace.json.gz`` → ``step``: the stem an export's file name starts with."""
    name = path.name
    for suffix in (".xz", ".gz", ".zst", ".json", ".trace", ".pt"):
        name = name.removesuffix(suffix)
    return name or "trace"


class KinetoTimelineScreen(TimelineScreen):
    """The timeline screen of a Kineto trace; ``e`` exports its Markdown (with HTA's
    numbers)."""

    def export_job(self, directory: Path) -> ExportJob:
        return ExportJob("timeline", directory / f"{trace_stem(self.path)}.timeline.md")

    def render_export(self, job: ExportJob) -> str:
        from kernelscope.export.writer import ExportOptions
        from kernelscope.kinds.kineto.analysis.timeline import KinetoTimelineData
        from kernelscope.kinds.kineto.export.kineto_export import render_kineto_md

        if not isinstance(self.data, KinetoTimelineData):
            raise RuntimeError("the trace is still opening")
        return render_kineto_md(self.data, ExportOptions(fmt="md"))

    def help_page(self) -> str:
        """The timeline's help in a PyTorch profiler trace's words."""
        from kernelscope.timeline.screens.timeline_views.help_text import kineto_help

        page = screen_help(self.app, kineto_help(), self.help_sections(), palette_tooltip=(
            "Switch views, jump to a gap or a kernel on the timeline."))
        return page.replace(" (kills a running nsys export)", "")  # a trace needs none

    @work(thread=True, exclusive=True, exit_on_error=False, group="timeline-open")
    def _open(self) -> None:
        from kernelscope.kinds.kineto.analysis.timeline import build_kineto

        cancelled = self.cancel_check()
        data = build_kineto(self.path, step=self.step, cancelled=cancelled)
        if cancelled():
            raise OpenCancelled(f"Opening {self.path.name} was cancelled.")
        self.post_message(TimelineLoaded(data))


class KinetoSession(TimelineSession):
    """A PyTorch profiler trace in the TUI."""

    def start(self) -> None:
        self.host.show_main_screen(KinetoTimelineScreen(self.path, cache_dir=self.cache_dir))
