"""The diff kind's session: opens both inputs and compares them in a worker (the loading
screen says which step it is on), then shows the matched kernels or the two timelines. Its
screens say what ``e`` and ``y`` do: ``e`` exports the diff as Markdown, ``y`` on a pair copies
the after kernel's case record with its Change / Re-measure / Conclusion filled in."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from textual.app import App
from textual.css.query import NoMatches
from textual.widgets import Static

from kernelscope.parsers.diff.inputs import DiffInputs, open_pair
from kernelscope.parsers.diff.kernels import KernelDiff
from kernelscope.parsers.diff.timelines import TimelineDiff
from kernelscope.screens.diff_views import KernelDiffScreen, PairScreen, TimelineDiffScreen
from kernelscope.screens.session import HelpSections, SessionHost, SessionOptions, report_stem


class DiffSession:
    """Two kernel reports or two timelines, before and after."""

    help_sections: HelpSections = (
        ("Diff of two kernel reports", (KernelDiffScreen,)),
        ("Diff: one pair", (PairScreen,)),
    )

    def __init__(self, app: App[Any], paths: Sequence[Path], options: SessionOptions) -> None:
        self.app = app
        self.host = cast(SessionHost, app)
        self.paths = tuple(Path(p) for p in paths)
        self.options = options
        self.inputs: DiffInputs | None = None

    def start(self) -> None:
        self.app.run_worker(self._open, thread=True, exclusive=True, exit_on_error=False,
                            group="open")

    def _progress(self, message: str) -> None:
        self.app.call_from_thread(self._show_step, message)

    def _show_step(self, message: str) -> None:
        with contextlib.suppress(NoMatches):
            self.app.screen.query_one("#loading-message", Static).update(f"{message}…")

    def _open(self) -> None:
        self.inputs = open_pair(self.paths, cache_dir=self.options.cache_dir,
                                progress=self._progress)
        diff = self.inputs.diff(self.options.pairs, self.options.pattern, self._progress)
        self.app.call_from_thread(self._compared, diff)

    def _compared(self, diff: KernelDiff | TimelineDiff) -> None:
        stems = [report_stem(p) for p in self.paths]
        name = f"{stems[0]}-vs-{stems[1]}.diff.md"
        screen = KernelDiffScreen(diff, name) if isinstance(diff, KernelDiff) else \
            TimelineDiffScreen(diff, name)
        self.host.show_main_screen(screen)
        self.app.refresh_bindings()

    def close(self) -> None:
        if self.inputs is not None:
            self.inputs.close()
