"""The diff kind's session: opens both inputs and compares them in a worker (the loading
screen says which step it is on), then shows the matched kernels or the two timelines. Its
screens say what ``e`` and ``y`` do: ``e`` exports the diff as Markdown, ``y`` on a pair copies
the after kernel's case record with its Change / Re-measure / Conclusion filled in."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual.app import App

from kernelscope.kinds.diff.analysis.inputs import DiffInputs, open_pair
from kernelscope.kinds.diff.analysis.kernels import KernelDiff
from kernelscope.kinds.diff.analysis.timelines import TimelineDiff
from kernelscope.kinds.diff.screens.diff_views import (
    KernelDiffScreen,
    PairScreen,
    TimelineDiffScreen,
)
from kernelscope.ui.session import (
    HelpSections,
    OpeningSession,
    SessionOptions,
    report_stem,
)


class DiffSession(OpeningSession[KernelDiff | TimelineDiff]):
    """Two kernel reports or two timelines, before and after."""

    help_sections: HelpSections = (
        ("Diff of two kernel reports", (KernelDiffScreen,)),
        ("Diff: one pair", (PairScreen,)),
    )

    def __init__(self, app: App[Any], paths: Sequence[Path], options: SessionOptions) -> None:
        super().__init__(app, paths, options)
        self.inputs: DiffInputs | None = None
        """Both inputs (kept from the worker on: ``close`` closes them)."""

    def open(self) -> KernelDiff | TimelineDiff:
        self.inputs = open_pair(self.paths, cache_dir=self.options.cache_dir,
                                progress=self.step)
        return self.inputs.diff(self.options.pairs, self.options.pattern, self.step)

    def opened(self, opened: KernelDiff | TimelineDiff) -> None:
        stems = [report_stem(p) for p in self.paths]
        name = f"{stems[0]}-vs-{stems[1]}.diff.md"
        screen = KernelDiffScreen(opened, name) if isinstance(opened, KernelDiff) else \
            TimelineDiffScreen(opened, name)
        self.host.show_main_screen(screen)
        self.app.refresh_bindings()

    def close(self) -> None:
        if self.inputs is not None:
            self.inputs.close()
