"""The timeline kind's session: the timeline screen opens the report itself (with progress
and cancel) and says what ``e`` exports."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from textual.app import App

from kernelscope.timeline.screens.timeline import TimelineScreen
from kernelscope.ui.session import HelpSections, SessionHost, SessionOptions


class TimelineSession:
    """An Nsight Systems report (or its SQLite export) in the TUI."""

    help_sections: HelpSections = ()

    def __init__(self, app: App[Any], paths: Sequence[Path], options: SessionOptions) -> None:
        self.host = cast(SessionHost, app)
        self.path = Path(paths[0])
        self.cache_dir = options.cache_dir

    def start(self) -> None:
        self.host.show_main_screen(TimelineScreen(self.path, cache_dir=self.cache_dir))

    def close(self) -> None:
        """Nothing to release: the report is read into memory."""
