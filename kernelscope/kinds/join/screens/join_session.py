"""The join kind's session: opens the timeline and the kernel reports in a worker, shows the
ranking, and opens a ranked kernel's panes (the kernel detail screen, made with its report's
state, as when the report is opened alone) or its family on the timeline (the timeline
screen, given the data the join read)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual.app import App

from kernelscope.kinds.join.analysis import (
    JoinInputs,
    JoinReport,
    RankedItem,
    build_join,
    open_join,
)
from kernelscope.kinds.join.screens.join_screen import JoinScreen
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.kinds.ncu.screens.kernel_state import KernelState
from kernelscope.timeline.analysis.timeline_view import Gap
from kernelscope.timeline.screens.timeline import TimelineScreen
from kernelscope.ui.session import (
    HelpSections,
    OpeningSession,
    SessionOptions,
    report_stem,
)


class JoinKernelState(KernelState):
    """One kernel report of a join, whole: its kernels open in the detail screen, one over
    the ranking."""

    def __init__(self, app: App[Any], path: Path) -> None:
        super().__init__(path)
        self.app = app
        self.baseline_listeners.append(self._baseline_shown)

    def open_kernel(self, kernel_id: int, pane: str | None = None) -> None:
        screen = self.app.screen
        if isinstance(screen, KernelDetailScreen) and screen.state is self:
            screen.show_kernel(kernel_id)
            if pane is not None:
                screen.action_show_pane(pane)
            return
        self.app.push_screen(KernelDetailScreen(self, kernel_id, pane=pane))

    def _baseline_shown(self, detail: KernelDetail | None) -> None:
        if detail is None:
            self.app.notify("Baseline cleared.", timeout=3)
        else:
            self.app.notify(f"Kernel {detail.id} is the baseline: the panes show the changes "
                            "against it.", timeout=4)


class JoinSession(OpeningSession[JoinReport]):
    """A timeline and its kernel reports in the TUI."""

    help_sections: HelpSections = (
        ("What to fix first (join)", (JoinScreen,)),
        ("Kernel detail", (KernelDetailScreen,)),
    )

    def __init__(self, app: App[Any], paths: Sequence[Path], options: SessionOptions) -> None:
        super().__init__(app, paths, options)
        self.inputs: JoinInputs | None = None
        """The timeline and kernel reports (kept from the worker on: ``close`` closes them)."""
        self.join: JoinReport | None = None
        self._states: dict[int, KernelState] = {}

    # -- opening ---------------------------------------------------------------------------
    def open(self) -> JoinReport:
        self.inputs = inputs = open_join(self.paths, cache_dir=self.options.cache_dir,
                                         step=self.step)
        self.step("Matching the kernels and ranking")
        return build_join(inputs.timeline, inputs.reports)

    def opened(self, opened: JoinReport) -> None:
        self.join = opened
        name = f"{report_stem(self.paths[0])}.join.md"
        self.host.show_main_screen(JoinScreen(opened, self, name))

    def kernels_of(self, report: int) -> KernelState:
        """The kernel screens' state of kernel report ``report`` (made on first use)."""
        if report not in self._states:
            assert self.inputs is not None
            analyzed = self.inputs.kernel_reports[report]
            state = JoinKernelState(self.app, self.inputs.kernel_paths[report])
            state.hold(analyzed)
            self._states[report] = state
        return self._states[report]

    # -- navigation ------------------------------------------------------------------------
    def open_item(self, item: RankedItem) -> None:
        """A profiled kernel's panes (its longest profiled launch); else the timeline."""
        inputs = self.inputs
        if item.kind == "kernel" and item.profiled and item.ncu_ids and inputs is not None:
            report, kernel_id = max(
                item.ncu_ids,
                key=lambda rk: inputs.kernel_reports[rk[0]].kernel(rk[1]).duration_ns or 0,
            )
            self.kernels_of(report).open_kernel(kernel_id)
            return
        self.show_on_timeline(item)

    def show_on_timeline(self, item: RankedItem) -> None:
        if self.inputs is None:
            return
        data = self.inputs.timeline

        def focus(screen: TimelineScreen) -> None:
            if item.kind == "kernel" and item.name:
                screen.show_kernel(item.name)
            elif item.gap is not None:
                device, start, end = item.gap
                screen.show_gap(Gap(device, start, end))

        self.app.push_screen(TimelineScreen(data.path, data=data, then=focus))

    def close(self) -> None:
        if self.inputs is not None:
            self.inputs.close()
