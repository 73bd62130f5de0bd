"""The kernelscope app: opens a report in a worker and shows the screen its kind calls for.

``create_app`` builds the app for the CLI and the tests alike.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from kernelscope.parsers.detect import ReportKind, detect_kind
from kernelscope.parsers.ncu import KernelSummary, NcuReport, open_ncu_report
from kernelscope.screens.error import ErrorScreen, error_sentence
from kernelscope.screens.help import HelpScreen, help_markdown
from kernelscope.screens.kernel_detail import KernelDetailScreen
from kernelscope.screens.kernel_list import KernelListScreen, KernelTable
from kernelscope.screens.loading import LoadingScreen
from kernelscope.tui.columns import ColumnProvider, list_columns, required_metrics
from kernelscope.tui.commands import KernelscopeCommands
from kernelscope.tui.exporting import ExportJob
from kernelscope.tui.messages import (
    ReportLoaded,
    ReportOpened,
    SummariesLoaded,
    TimelineRequested,
)

if TYPE_CHECKING:
    from kernelscope.export.ranks import RunOptions

DEFAULT_REPORT = "data/default.ncu-rep.xz"
TIMELINE_MODULE = "kernelscope.screens.timeline"


def default_report_path() -> Path:
    """The sample report bundled with kernelscope (opened when no report is given)."""
    return Path(str(resources.files("kernelscope").joinpath(DEFAULT_REPORT)))


class KernelscopeApp(App[None]):
    """Opens ``report_path``: a kernel report shows the kernel list, a timeline report the
    timeline screen; anything else an error screen with one sentence."""

    TITLE = "kernelscope"
    CSS_PATH = "styles.tcss"
    COMMANDS = App.COMMANDS | {KernelscopeCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit kernelscope."),
        Binding(
            "question_mark,f1", "help", "Help", id="app.help",
            tooltip="Show this help: every key, and what each pane shows.",
        ),
        Binding(
            "e", "export", "Export", id="app.export",
            tooltip="Write what is shown (this kernel, the report or the timeline) as Markdown "
            "into the working directory.",
        ),
        Binding(
            "y", "copy_record", "Copy record", id="app.copy",
            tooltip="Copy this kernel's case record (Markdown) to the clipboard (OSC 52).",
        ),
    ]
    HELP_SECTIONS: tuple[tuple[str, tuple[type[DOMNode], ...]], ...] = (
        ("Kernel list", (KernelTable, KernelListScreen)),
        ("Kernel detail", (KernelDetailScreen,)),
    )
    """Whose keys the help lists (title, classes), after the app's; the current screen's
    keys come first when it is not one of these (its ``HELP_TITLE`` names them)."""

    def __init__(
        self,
        report_path: Path,
        *,
        cache_dir: Path | None = None,
        extra_columns: Sequence[ColumnProvider] | None = None,
        ranks: Sequence[Path] | None = None,
        run_options: RunOptions | None = None,
    ) -> None:
        super().__init__()
        self.report_path = Path(report_path)
        self.ranks = list(ranks or [])
        self.run_options = run_options
        self.cache_dir = cache_dir
        self.columns = list_columns(extra_columns)
        self.report: NcuReport | None = None
        self.summaries: list[KernelSummary] = []
        self._by_id: dict[int, KernelSummary] = {}
        self.loaded_all = False
        self.kernel_list: KernelListScreen | None = None

    # -- opening ---------------------------------------------------------------------------
    def on_mount(self) -> None:
        if self.ranks:
            from kernelscope.screens.ranks import RanksScreen

            self.push_screen(RanksScreen(self.ranks, cache_dir=self.cache_dir,
                                         options=self.run_options))
            return
        self.push_screen(LoadingScreen(self.report_path))
        self.open_report(self.report_path)

    @work(thread=True, exclusive=True, exit_on_error=False, group="open")
    def open_report(self, path: Path) -> None:
        """Detect the kind, open a kernel report and post its summaries batch by batch."""
        worker = get_current_worker()
        kind = detect_kind(path)
        if kind is not ReportKind.NCU:
            self.post_message(TimelineRequested(path))
            return
        report = open_ncu_report(path, extra_metrics=required_metrics(self.columns))
        _ = report.device  # read in this thread, not on the UI's
        self.post_message(ReportOpened(report))
        loaded = 0
        for batch in report.iter_summaries(
            batch_seconds=0.1, cancelled=lambda: worker.is_cancelled
        ):
            loaded += len(batch)
            self.post_message(SummariesLoaded(batch, loaded, report.kernel_count))
        if not worker.is_cancelled:
            self.post_message(ReportLoaded(loaded))

    @on(ReportOpened)
    def _report_opened(self, event: ReportOpened) -> None:
        self.report = event.report
        self.kernel_list = KernelListScreen(self.columns)
        self.kernel_list.total = event.report.kernel_count
        self.show_main_screen(self.kernel_list)

    @on(SummariesLoaded)
    def _summaries_loaded(self, event: SummariesLoaded) -> None:
        # Batches may arrive roughly, not strictly, in ID order (read by child processes):
        # the summaries are kept in ID order.
        in_order = not self.summaries or min(s.id for s in event.batch) > self.summaries[-1].id
        self.summaries.extend(event.batch)
        if not in_order:
            self.summaries.sort(key=lambda s: s.id)
        for summary in event.batch:
            self._by_id[summary.id] = summary
        if self.kernel_list is not None:
            self.kernel_list.add_summaries(event.batch, event.loaded, event.total)

    @on(ReportLoaded)
    def _report_loaded(self, event: ReportLoaded) -> None:
        self.loaded_all = True
        if self.kernel_list is not None:
            self.kernel_list.finish_loading(event.total)

    @on(TimelineRequested)
    def _timeline_requested(self, event: TimelineRequested) -> None:
        self.open_timeline(event.path)

    def open_timeline(self, path: Path) -> None:
        """Show an Nsight Systems report or SQLite export in the timeline screen."""
        try:
            from kernelscope.screens.timeline import TimelineScreen
        except ModuleNotFoundError as exc:
            if exc.name != TIMELINE_MODULE:
                raise
            self.show_error(
                f"{path.name} is an Nsight Systems report, and this build of kernelscope "
                "cannot show timelines yet.",
                fatal=True,
            )
            return
        self.show_main_screen(TimelineScreen(path, cache_dir=self.cache_dir))

    # -- errors ----------------------------------------------------------------------------
    def show_error(self, message: str, *, fatal: bool) -> None:
        """Show ``message``; a fatal one replaces the current screen (only q is left)."""
        screen = ErrorScreen(message, fatal=fatal)
        if fatal:
            self.show_main_screen(screen)
        else:
            self.push_screen(screen)

    def show_main_screen(self, screen: Screen[object]) -> None:
        """Make ``screen`` the one screen above the app's base (closing help or the palette
        opened meanwhile), replacing the loading screen."""
        while len(self.screen_stack) > 2:
            self.pop_screen()
        if len(self.screen_stack) == 2:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def worker_failed(self, event: Worker.StateChanged) -> None:
        """Turn a failed worker (of the app or a screen) into an error screen."""
        if event.state is not WorkerState.ERROR or event.worker.error is None:
            return
        self.log.error(event.worker.error)
        self.show_error(error_sentence(event.worker.error), fatal=self.report is None)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.worker_failed(event)

    def on_unmount(self) -> None:
        self.workers.cancel_all()
        if self.report is not None:
            with contextlib.suppress(Exception):
                self.report.close()

    # -- data for the screens --------------------------------------------------------------
    def summary(self, kernel_id: int) -> KernelSummary | None:
        return self._by_id.get(kernel_id)

    def device_line(self) -> str:
        """``NVIDIA H200 (CC 9.0, 132 SMs)``."""
        if self.report is None:
            return ""
        device = self.report.device
        facts = []
        if device.compute_capability:
            facts.append(f"CC {device.compute_capability}")
        if device.sm_count:
            facts.append(f"{device.sm_count} SMs")
        return f"{device.name} ({', '.join(facts)})" if facts else device.name

    def title_line(self) -> str:
        """The kernel list's top line: report file, device, kernel count."""
        count = self.report.kernel_count if self.report is not None else 0
        parts = ["kernelscope", self.report_path.name, self.device_line(), f"{count:,} kernels"]
        return " · ".join(p for p in parts if p)

    # -- actions ---------------------------------------------------------------------------
    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        palette = Binding(
            self.COMMAND_PALETTE_BINDING, "command_palette", "Commands",
            tooltip="Jump to a kernel by ID or name, switch panes, sort…",
        )
        sections: list[tuple[str, list[BindingType]]] = [
            ("Everywhere", [*self.BINDINGS, palette])
        ]
        known = {cls for _, classes in self.HELP_SECTIONS for cls in classes}
        current = type(self.screen)
        if current not in known:
            sections.append((getattr(current, "HELP_TITLE", current.__name__), current.BINDINGS))
        for title, classes in self.HELP_SECTIONS:
            sections.append((title, [b for cls in classes for b in cls.BINDINGS]))
        self.push_screen(HelpScreen(help_markdown(self, sections)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "copy_record":
            return isinstance(self.screen, KernelDetailScreen)
        if action == "export":
            loading = isinstance(self.screen, (LoadingScreen, ErrorScreen, HelpScreen))
            return not loading and (self.report is None or self.loaded_all)
        return True

    def action_export(self) -> None:
        """Export the current scope to a file in the working directory (asks before replacing)."""
        from kernelscope.screens.confirm import ConfirmScreen
        from kernelscope.tui.exporting import export_job

        screen = self.screen
        job = export_job(self, screen, Path.cwd())
        if not job.target.exists():
            self._export(job, screen)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._export(job, screen)

        self.push_screen(ConfirmScreen(f"{job.target.name} exists. Replace it?"), answered)

    @work(thread=True, exclusive=True, exit_on_error=False, group="export")
    def _export(self, job: ExportJob, screen: Screen[object]) -> None:
        from kernelscope.export.writer import write_text
        from kernelscope.tui.exporting import render_job

        self.call_from_thread(self.notify, f"Exporting to {job.target.name}…", timeout=2)
        try:
            write_text(render_job(self, job, screen), job.target)
        except Exception as exc:  # one sentence, never a traceback
            self.call_from_thread(
                self.notify, f"Export failed: {error_sentence(exc)}", severity="error"
            )
            return
        self.call_from_thread(self.notify, f"Wrote {job.target}", title="Exported")

    def action_copy_record(self) -> None:
        """Copy the current kernel's case record to the clipboard."""
        screen = self.screen
        if isinstance(screen, KernelDetailScreen) and self.report is not None:
            self._copy_record(self.report, screen.kernel_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="export")
    def _copy_record(self, report: NcuReport, kernel_id: int) -> None:
        from kernelscope.export.ncu_markdown import single_kernel_markdown

        text = single_kernel_markdown(report, list(self.summaries), kernel_id)
        self.call_from_thread(self.copy_to_clipboard, text)
        self.call_from_thread(
            self.notify, f"Copied kernel {kernel_id}'s record ({len(text):,} characters)."
        )

    def action_open_kernel(self, kernel_id: int, pane: str | None = None) -> None:
        """Show kernel ``kernel_id``: in the open detail screen, or from the kernel list."""
        if self.summary(kernel_id) is None:
            self.notify(f"No kernel with ID {kernel_id}.", severity="error")
            return
        if isinstance(self.screen, KernelDetailScreen):
            self.screen.show_kernel(kernel_id)
            if pane is not None:
                self.screen.action_show_pane(pane)
            return
        if self.kernel_list is not None and self.kernel_list.is_attached:
            while self.screen is not self.kernel_list and len(self.screen_stack) > 1:
                self.pop_screen()
            self.kernel_list.open_kernel(kernel_id, pane)


def create_app(
    report: Path | None = None,
    *,
    cache_dir: Path | None = None,
    extra_columns: Sequence[ColumnProvider] | None = None,
    ranks: Sequence[Path] | None = None,
    run_options: RunOptions | None = None,
) -> KernelscopeApp:
    """The app for ``report`` (the bundled sample when None), used by the CLI and the tests.

    ``cache_dir`` is handed to the timeline screen (converted Nsight Systems exports);
    ``extra_columns`` replaces ``kernelscope.tui.columns.EXTRA_COLUMNS`` for this app;
    ``ranks`` (trace files of one run) opens the ranks screen instead of a report.
    """
    if ranks:
        first = Path(ranks[0])
        return KernelscopeApp(first, cache_dir=cache_dir, extra_columns=extra_columns,
                              ranks=ranks, run_options=run_options)
    path = Path(report) if report is not None else default_report_path()
    return KernelscopeApp(path, cache_dir=cache_dir, extra_columns=extra_columns)
