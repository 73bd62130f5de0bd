"""The Kineto kind's session: the timeline screen, opening a Kineto trace instead of an
Nsight Systems report; ``e`` exports its Markdown (with HTA's numbers)."""

from __future__ import annotations

from textual import work
from textual.screen import Screen
from textual.worker import get_current_worker

from kernelscope.parsers.nsys import OpenCancelled
from kernelscope.screens.session import ExportJob
from kernelscope.screens.timeline import TimelineLoaded, TimelineScreen
from kernelscope.screens.timeline_session import TimelineSession


class KinetoTimelineScreen(TimelineScreen):
    """The timeline screen of a Kineto trace."""

    @work(thread=True, exclusive=True, exit_on_error=False, group="timeline-open")
    def _open(self) -> None:
        from kernelscope.parsers.kineto.timeline import build_kineto

        worker = get_current_worker()

        def cancelled() -> bool:
            return self._cancel.is_set() or worker.is_cancelled

        def step(text: str) -> None:
            self._progress(text, None)

        data = build_kineto(self.path, step=step, cancelled=cancelled)
        if cancelled():
            raise OpenCancelled(f"Opening {self.path.name} was cancelled.")
        self.post_message(TimelineLoaded(data))


class KinetoSession(TimelineSession):
    """A PyTorch profiler trace in the TUI."""

    def start(self) -> None:
        self.host.show_main_screen(KinetoTimelineScreen(self.path, cache_dir=self.cache_dir))

    def render_export(self, job: ExportJob, screen: Screen) -> str:  # type: ignore[type-arg]
        from kernelscope.export.kineto_export import render_kineto
        from kernelscope.export.writer import ExportOptions
        from kernelscope.parsers.kineto.timeline import KinetoTimelineData

        data = screen.data if isinstance(screen, TimelineScreen) else None
        if not isinstance(data, KinetoTimelineData):
            raise RuntimeError("the trace is still opening")
        return render_kineto(data, ExportOptions(fmt="md"))
