"""The timeline kinds' session: the timeline screen opens the report itself (with progress
and cancel), reading it with the opener the kind's session hands it, and says what ``e``
exports. Each kind subclasses it (Nsight Systems' ``NsysSession``, Kineto's sessions)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from textual.app import App

from kernelscope.timeline.screens.timeline import ReportOpener, TimelineScreen
from kernelscope.ui.session import HelpSections, SessionHost, SessionOptions


class TimelineSession:
    """A report shown on the timeline screen; ``opener`` is how the kind reads it."""

    help_sections: HelpSections = ()
    opener: ReportOpener | None = None

    def __init__(self, app: App[Any], paths: Sequence[Path], options: SessionOptions) -> None:
        self.host = cast(SessionHost, app)
        self.path = Path(paths[0])
        self.cache_dir = options.cache_dir

    def start(self) -> None:
        self.host.show_main_screen(TimelineScreen(self.path, opener=self.opener,
                                                   cache_dir=self.cache_dir))

    def close(self) -> None:
        """Nothing to release: the report is read into memory."""
