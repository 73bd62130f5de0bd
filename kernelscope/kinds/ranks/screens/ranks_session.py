"""The ranks kind's session: the ranks screen reduces the traces itself (with progress and
cancel); ``e`` exports what the screen shown says (the run, or a rank's timeline)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from textual.app import App

from kernelscope.kinds.ranks.screens.ranks import RanksScreen
from kernelscope.ui.session import HelpSections, SessionHost, SessionOptions, report_stem


class RanksSession:
    """Per-rank traces of one run in the TUI."""

    help_sections: HelpSections = ()

    def __init__(self, app: App[Any], paths: Sequence[Path], options: SessionOptions) -> None:
        self.host = cast(SessionHost, app)
        self.paths = [Path(p) for p in paths]
        self.options = options

    def start(self) -> None:
        from kernelscope.core.errors import ReportError
        from kernelscope.kinds.ranks.analysis.discover import trace_files

        try:
            paths = trace_files(self.paths)
        except ReportError as exc:  # an empty or unlistable directory: exit 2 with it
            self.host.show_error(str(exc), fatal=True)
            return
        first = self.paths[0]
        stem = first.name if first.is_dir() or len(self.paths) == 1 else first.parent.name
        self.host.show_main_screen(RanksScreen(
            paths, cache_dir=self.options.cache_dir,
            workers=self.options.workers, scheduler=self.options.scheduler,
            export_name=f"{report_stem(Path(stem or 'run'))}.ranks.md"))

    def close(self) -> None:
        """Nothing to release: the summaries are in memory and the workers have ended."""
