"""The timeline kind's session: the timeline screen opens the report itself (with progress
and cancel); ``e`` exports the view data it holds."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from textual.app import App
from textual.command import Provider
from textual.screen import Screen

from kernelscope.screens.session import (
    ExportJob,
    HelpSections,
    SessionHost,
    SessionOptions,
    report_stem,
)
from kernelscope.screens.timeline import TimelineScreen


class TimelineSession:
    """An Nsight Systems report (or its SQLite export) in the TUI."""

    help_sections: HelpSections = ()
    commands: frozenset[type[Provider]] = frozenset()  # the screen has its own

    def __init__(self, app: App[Any], paths: Sequence[Path], options: SessionOptions) -> None:
        self.host = cast(SessionHost, app)
        self.path = Path(paths[0])
        self.cache_dir = options.cache_dir

    def start(self) -> None:
        self.host.show_main_screen(TimelineScreen(self.path, cache_dir=self.cache_dir))

    def can_export(self, screen: Screen[Any]) -> bool:
        return isinstance(screen, TimelineScreen) and screen.data is not None

    def export_job(self, screen: Screen[Any], directory: Path) -> ExportJob:
        return ExportJob("timeline", directory / f"{report_stem(self.path)}.timeline.md")

    def render_export(self, job: ExportJob, screen: Screen[Any]) -> str:
        from kernelscope.export.timeline_export import render_timeline_report
        from kernelscope.export.writer import ExportOptions

        data = screen.data if isinstance(screen, TimelineScreen) else None
        if data is None:
            raise RuntimeError("the timeline is still opening")
        return render_timeline_report(data, ExportOptions(fmt="md"))

    def can_copy(self, screen: Screen[Any]) -> bool:
        return False

    def copy_text(self, screen: Screen[Any]) -> tuple[str, str]:
        raise RuntimeError("a timeline has nothing to copy")

    def close(self) -> None:
        """Nothing to release: the report is read into memory."""
