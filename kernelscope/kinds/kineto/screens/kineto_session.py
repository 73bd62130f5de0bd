"""The Kineto kind's session: the timeline screen, opening a Kineto trace instead of an
Nsight Systems report; ``e`` exports its Markdown (with HTA's numbers)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App, ComposeResult
from textual.widgets import Footer, Markdown

from kernelscope.core.hooks import OpenCancelled
from kernelscope.timeline.screens.timeline import TimelineLoaded, TimelineScreen
from kernelscope.timeline.screens.timeline_session import TimelineSession
from kernelscope.ui.help import screen_help
from kernelscope.ui.session import ExportJob, ReportScreen, SessionOptions, report_stem


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


RUN_HELP = """\
# kernelscope — a run of PyTorch profiler traces

One Kineto trace per rank (a directory of `*.pt.trace.json[.gz]` files, or the traces named),
read side by side. Ranks are numbered from the `distributedInfo` each trace records; clocks
are aligned on the collectives' ends (each rank's median shift from rank 0).

- **Ranks**: per rank, the median of its `ProfilerStep#N` durations, the time in
  communication kernels (NCCL), HTA's idle, compute and non-compute shares of the kernel time,
  how much communication overlapped compute, and the clock shift applied.
- **Straggler**: the rank most often last at a collective, and by how much (the median).
- **Collectives**: each collective in order, the rank that arrived last, how late, and how
  long every other rank waited for it in it.

A rank's own timeline: open its trace alone (`kernelscope rank0.pt.trace.json.gz`).

<!-- keys -->
"""


class KinetoRunScreen(ReportScreen[None]):
    """The run's ranks, straggler and collectives (the Markdown export), read in a worker;
    ``e`` writes that Markdown."""

    BINDINGS = [("q", "app.quit", "Quit")]

    def help_page(self) -> str:
        """This screen's own help (``?``), not the kernel list's."""
        return screen_help(self.app, RUN_HELP, (("Run screen", (type(self),)),))

    def __init__(self, paths: list[Path]) -> None:
        super().__init__()
        self.paths = paths
        self.text = ""

    def can_export(self) -> bool:
        return bool(self.text)

    def export_job(self, directory: Path) -> ExportJob:
        return ExportJob("timeline", directory / f"{report_stem(self.paths[0])}.timeline.md")

    def render_export(self, job: ExportJob) -> str:
        return self.text

    def compose(self) -> ComposeResult:
        yield Markdown("Opening the run…", id="kineto-run")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._open()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _open(self) -> None:
        from kernelscope.core.errors import ReportError
        from kernelscope.kinds.kineto.analysis.ranks import open_kineto_run
        from kernelscope.kinds.kineto.export.kineto_ranks import run_markdown

        try:
            self.text = run_markdown(open_kineto_run(self.paths))
        except ReportError as exc:
            self.text = str(exc)
        self.app.call_from_thread(self.query_one(Markdown).update, self.text)


class KinetoRunSession(TimelineSession):
    """A run of per-rank PyTorch profiler traces in the TUI."""

    def __init__(self, app: App[Any], paths: Sequence[Path], options: SessionOptions) -> None:
        super().__init__(app, paths, options)
        self.paths = [Path(p) for p in paths]

    def start(self) -> None:
        self.host.show_main_screen(KinetoRunScreen(self.paths))
