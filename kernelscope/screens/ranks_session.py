"""The ranks kind's session: the ranks screen reduces the traces itself (with progress and
cancel); ``e`` exports the run, or the rank timeline on screen."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from textual.app import App
from textual.command import Provider
from textual.screen import Screen

from kernelscope.screens.ranks import RanksScreen
from kernelscope.screens.session import (
    ExportJob,
    HelpSections,
    SessionHost,
    SessionOptions,
    report_stem,
)
from kernelscope.screens.timeline import TimelineScreen


class RanksSession:
    """Per-rank traces of one run in the TUI."""

    help_sections: HelpSections = ()
    commands: frozenset[type[Provider]] = frozenset()

    def __init__(self, app: App[Any], paths: Sequence[Path], options: SessionOptions) -> None:
        self.host = cast(SessionHost, app)
        self.paths = [Path(p) for p in paths]
        self.options = options

    def start(self) -> None:
        from kernelscope.parsers.errors import ReportError
        from kernelscope.parsers.ranks.discover import trace_files

        try:
            paths = trace_files(self.paths)
        except ReportError as exc:  # an empty or unlistable directory: exit 2 with it
            self.host.show_error(str(exc), fatal=True)
            return
        self.host.show_main_screen(RanksScreen(
            paths, cache_dir=self.options.cache_dir,
            workers=self.options.workers, scheduler=self.options.scheduler))

    def can_export(self, screen: Screen[Any]) -> bool:
        if isinstance(screen, RanksScreen):
            return screen.doc is not None
        return isinstance(screen, TimelineScreen) and screen.data is not None

    def export_job(self, screen: Screen[Any], directory: Path) -> ExportJob:
        if isinstance(screen, TimelineScreen):
            return ExportJob("timeline", directory / f"{report_stem(screen.path)}.timeline.md")
        first = self.paths[0]
        stem = first.name if first.is_dir() or len(self.paths) == 1 else first.parent.name
        return ExportJob("ranks", directory / f"{report_stem(Path(stem or 'run'))}.ranks.md")

    def render_export(self, job: ExportJob, screen: Screen[Any]) -> str:
        if isinstance(screen, TimelineScreen):
            from kernelscope.export.timeline_export import render_timeline_report
            from kernelscope.export.writer import ExportOptions

            if screen.data is None:
                raise RuntimeError("the timeline is still opening")
            return render_timeline_report(screen.data, ExportOptions(fmt="md"))
        from kernelscope.export.ranks import render_document

        doc = screen.doc if isinstance(screen, RanksScreen) else None
        if doc is None:
            raise RuntimeError("the ranks are still being read")
        return render_document(doc, "md")

    def can_copy(self, screen: Screen[Any]) -> bool:
        return False

    def copy_text(self, screen: Screen[Any]) -> tuple[str, str]:
        raise RuntimeError("a run has nothing to copy")

    def close(self) -> None:
        """Nothing to release: the summaries are in memory and the workers have ended."""
