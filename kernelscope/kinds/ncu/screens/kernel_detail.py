"""One kernel in detail: a header line and one pane per concern, in diagnosis order."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Protocol

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static, TabbedContent, TabPane
from textual.worker import Worker

from kernelscope.core.durations import fmt_duration
from kernelscope.core.units import NOT_AVAILABLE
from kernelscope.kinds.ncu.model import KernelDetail, NcuReport
from kernelscope.kinds.ncu.model.panes import PANES
from kernelscope.kinds.ncu.screens.kernel_commands import KernelReportScreen
from kernelscope.kinds.ncu.screens.kernel_state import KernelState, demangled_of
from kernelscope.kinds.ncu.screens.messages import DetailLoaded, MetricsLoaded, SourceLoaded
from kernelscope.kinds.ncu.screens.panes import (
    PANE_TYPES,
    MetricsNeeded,
    Pane,
    RawPane,
    SourceNeeded,
    SourcePane,
)
from kernelscope.ui.palette import Command
from kernelscope.ui.session import ExportJob, worker_failed
from kernelscope.ui.tabbed import TabbedScreen
from kernelscope.ui.widgets.footer import Footer

PANE_IDS = tuple(spec.id for spec in PANES)


class KernelOrder(Protocol):
    """The order n/p walk in (the kernel list's current sort and filter)."""

    def neighbor(self, kernel_id: int, step: int) -> int | None: ...

    def position(self, kernel_id: int) -> tuple[int, int] | None: ...


def _pane_bindings() -> list[Binding]:
    return [
        Binding(
            spec.key, f"show_pane('{spec.id}')", spec.title, show=False,
            id=f"detail.pane-{spec.id}", tooltip=f"Show the {spec.title} pane.",
        )
        for spec in PANES
    ]


class KernelDetailScreen(KernelReportScreen[int], TabbedScreen[int]):
    """Kernel ``kernel_id``'s panes; dismissed with the kernel shown last. ``e`` exports the
    kernel's record, ``y`` copies it."""

    HELP_TITLE = "Kernel detail"
    TABS = "panes"
    TAB_IDS = PANE_IDS
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [
        *_pane_bindings(),
        Binding("tab", "next_pane", "Next pane", show=False, id="detail.next-pane",
                tooltip="Show the next pane."),
        Binding("shift+tab", "prev_pane", "Previous pane", show=False, id="detail.prev-pane",
                tooltip="Show the previous pane."),
        Binding("n", "next_kernel", "Next kernel", id="detail.next-kernel",
                tooltip="Show the next kernel of the list (its sort and filter), same pane."),
        Binding("p", "prev_kernel", "Prev kernel", id="detail.prev-kernel",
                tooltip="Show the previous kernel of the list, same pane."),
        Binding("escape,backspace", "back", "Back", id="detail.back",
                tooltip="Back to the kernel list."),
        Binding("b", "baseline", "Baseline", id="detail.baseline",
                tooltip="Mark this kernel as the baseline: every pane then shows the changes "
                "against it (b on the baseline clears it)."),
    ]

    def __init__(
        self, state: KernelState, kernel_id: int, *, order: KernelOrder | None = None,
        pane: str | None = None,
    ) -> None:
        super().__init__(state, id="kernel-detail")
        self.kernel_id = kernel_id
        self.order = order
        self.initial_pane = pane if pane in PANE_IDS else PANE_IDS[0]
        self.detail: KernelDetail | None = None
        self.fetching = False
        self._shown: dict[str, int] = {}

    @property
    def report(self) -> NcuReport:
        report = self.state.report
        assert report is not None, "the detail screen needs an opened report"
        return report

    def compose(self) -> ComposeResult:
        yield Static("", id="detail-header")
        with TabbedContent(id="panes", initial=self.initial_pane):
            for pane_type in PANE_TYPES:
                with TabPane(f"{pane_type.spec.key} {pane_type.tab_label}", id=pane_type.spec.id):
                    yield pane_type()
        yield Footer()

    def on_mount(self) -> None:
        self.state.baseline_listeners.append(self._baseline_changed)
        self.show_kernel(self.kernel_id)
        self.active_pane().focus()

    def on_unmount(self) -> None:
        self.state.baseline_listeners.remove(self._baseline_changed)

    # -- which kernel ----------------------------------------------------------------------
    def show_kernel(self, kernel_id: int) -> None:
        """Show ``kernel_id`` in the current pane (at once when its detail is cached)."""
        self.kernel_id = kernel_id
        detail = self.report.cached_detail(kernel_id)
        if detail is not None:
            self._display(detail)
            return
        self.fetching = True
        self._update_header()
        self._load_detail(self.report, kernel_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="detail")
    def _load_detail(self, report: NcuReport, kernel_id: int) -> None:
        detail = report.detail(kernel_id)
        self.state.pane_view.read(detail)  # the Diagnosis pane's, made here: not on the UI
        self.post_message(DetailLoaded(detail))

    @work(thread=True, exclusive=True, exit_on_error=False, group="prefetch")
    def _prefetch(self, report: NcuReport, kernel_ids: list[int]) -> None:
        """Read the neighbours' details and their Diagnosis pane's diagnoses (``n``/``p``
        then show them at once)."""
        report.prefetch(kernel_ids)
        for kernel_id in kernel_ids:
            detail = report.cached_detail(kernel_id)
            if detail is not None:
                self.state.pane_view.read(detail)

    @work(thread=True, exclusive=True, exit_on_error=False, group="source")
    def _load_source(self, report: NcuReport, kernel_id: int) -> None:
        self.post_message(SourceLoaded(kernel_id, report.kernel_source(kernel_id)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="metrics")
    def _load_metrics(self, report: NcuReport, kernel_id: int) -> None:
        self.post_message(MetricsLoaded(kernel_id, report.all_metrics(kernel_id)))

    @on(MetricsNeeded)
    def _metrics_needed(self, event: MetricsNeeded) -> None:
        self._load_metrics(self.report, event.kernel_id)

    @on(MetricsLoaded)
    def _metrics_loaded(self, event: MetricsLoaded) -> None:
        self.query_one(RawPane).show_metrics(event.kernel_id, event.metrics)

    @on(DetailLoaded)
    def _detail_loaded(self, event: DetailLoaded) -> None:
        if event.detail.id == self.kernel_id:
            self._display(event.detail)

    @on(SourceNeeded)
    def _source_needed(self, event: SourceNeeded) -> None:
        self._load_source(self.report, event.kernel_id)

    @on(SourceLoaded)
    def _source_loaded(self, event: SourceLoaded) -> None:
        self.query_one(SourcePane).show_listing(event.kernel_id, event.listing)
        if self.focused is None:  # the listing had it, and lost it while hidden (n, p)
            self.active_pane().focus()

    def _display(self, detail: KernelDetail) -> None:
        self.detail = detail
        self.fetching = False
        self._shown.clear()
        self._update_header()
        self._render_active()
        neighbors = [self._neighbor(step) for step in (1, -1)]
        wanted = [n for n in neighbors if n is not None and self.report.cached_detail(n) is None]
        if wanted:
            self._prefetch(self.report, wanted)

    def _neighbor(self, step: int) -> int | None:
        if self.order is not None:
            return self.order.neighbor(self.kernel_id, step)
        other = self.kernel_id + step
        return other if 0 <= other < self.report.kernel_count else None

    def _update_header(self) -> None:
        summary = self.state.summary(self.kernel_id)
        first = Text(no_wrap=True, overflow="ellipsis")
        first.append(f"Kernel {self.kernel_id} ", style="bold")
        position = self.order.position(self.kernel_id) if self.order is not None else None
        if position is not None:  # before the name, which is cut first
            first.append(f"({position[0]} of {position[1]}) ", style="dim")
        if summary is not None:
            first.append(self.state.short_name(summary), style="bold cyan")
        second = Text(no_wrap=True, overflow="ellipsis")
        grid, block = summary.identity.shape if summary is not None else ("?", "?")
        second.append(f"grid {grid} × block {block}")
        duration = summary.duration_ns if summary is not None else None
        second.append(" · ")
        second.append(
            fmt_duration(duration) if duration is not None else NOT_AVAILABLE,
            style="bold",
        )
        second.append(f" · {self.state.device_line()}")
        baseline = self.state.baseline
        if baseline is not None:
            mark = "this is the baseline" if baseline.id == self.kernel_id else \
                f"baseline: kernel {baseline.id}"
            second.append(f" · {mark}", style="bold magenta")
        if self.fetching:
            second.append(" · loading…", style="yellow")
        # The whole demangled name, wrapped (long template names take a few lines).
        whole = Text(demangled_of(summary) if summary is not None else "", style="dim")
        header = self.query_one("#detail-header", Static)
        header.update(Group(first, second, whole))  # each line its own: the first two cut

    # -- which pane ------------------------------------------------------------------------
    @property
    def active_pane_id(self) -> str:
        return self.active_tab

    def active_pane(self) -> Pane:
        return self.query_one(f"#{self.active_pane_id}-pane", Pane)

    def _render_active(self) -> None:
        if self.detail is None:
            return
        pane_id = self.active_pane_id
        if self._shown.get(pane_id) != self.detail.id:
            pane = self.active_pane()
            pane.show(self.detail, self.state)
            # Each kernel starts at the top of the pane, where its verdict is.
            pane.scroll_home(animate=False, immediate=True)
            self._shown[pane_id] = self.detail.id

    @on(TabbedContent.TabActivated, "#panes")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._render_active()
        self.active_pane().focus()

    def action_show_pane(self, pane_id: str) -> None:
        self.show_tab(pane_id)

    def action_next_pane(self) -> None:
        self.show_tab(self.neighbour_tab(1))

    def action_prev_pane(self) -> None:
        self.show_tab(self.neighbour_tab(-1))

    # -- kernel navigation -----------------------------------------------------------------
    def _step_kernel(self, step: int) -> None:
        other = self._neighbor(step)
        if other is None:
            self.app.bell()
            self.notify("This is the last kernel." if step > 0 else "This is the first kernel.",
                        timeout=2)
            return
        self.show_kernel(other)

    def action_next_kernel(self) -> None:
        self._step_kernel(1)

    def action_prev_kernel(self) -> None:
        self._step_kernel(-1)

    def action_baseline(self) -> None:
        if not self.state.mark_baseline(self.kernel_id, self.detail):
            self.app.bell()
            self.notify("This kernel is still being read.", timeout=2)

    def _baseline_changed(self, baseline: KernelDetail | None) -> None:
        """Show the panes again against the new baseline."""
        self.redraw()

    def redraw(self) -> None:
        """Draw the header and the panes again (a new baseline; or every kernel read, so a
        pane drawn meanwhile, weighed among the kernels read by then, is weighed afresh)."""
        self._shown.clear()
        self._update_header()
        self._render_active()

    def palette_commands(self) -> Iterator[Command]:
        for spec in PANES:
            yield Command(f"Pane {spec.key}: {spec.title}", partial(self.action_show_pane, spec.id),
                          f"Show the {spec.title} pane of this kernel.")
        yield Command("Next kernel (n)", self.action_next_kernel,
                      "The next kernel in the list's order, same pane.")
        yield Command("Previous kernel (p)", self.action_prev_kernel,
                      "The previous kernel in the list's order, same pane.")
        yield Command("Back to the kernel list", self.action_back)

    # -- export (e) and copy (y) -----------------------------------------------------------
    def export_job(self, directory: Path) -> ExportJob:
        return self.state.kernel_job(self.kernel_id, directory)

    def can_copy(self) -> bool:
        return self.state.report is not None

    def copy_text(self) -> tuple[str, str]:
        text = self.state.record(self.kernel_id)
        return text, f"kernel {self.kernel_id}'s record ({len(text):,} characters)"

    def action_back(self) -> None:
        self.dismiss(self.kernel_id)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker_failed(self, event)
