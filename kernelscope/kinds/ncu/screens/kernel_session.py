"""The kernel report kind's session: opens an Nsight Compute report in a worker and feeds the
kernel list batch by batch; it is the state its screens are made with (``KernelState``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App

from kernelscope.kinds.ncu.analysis.diagnosis import REQUIRED_METRICS
from kernelscope.kinds.ncu.model import KernelDetail, KernelSummary, NcuReport, open_ncu_report
from kernelscope.kinds.ncu.screens.columns import (
    TOP_FLAG_KEY,
    baseline_column,
    required_metrics,
    with_process_column,
)
from kernelscope.kinds.ncu.screens.kernel_commands import KernelReportScreen
from kernelscope.kinds.ncu.screens.kernel_list import KernelListScreen
from kernelscope.kinds.ncu.screens.kernel_state import KernelState
from kernelscope.ui.collection import fewer_collections
from kernelscope.ui.session import HelpSections, OpeningSession, SessionOptions

if TYPE_CHECKING:
    from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis

DIAGNOSIS_KEYS = ("bottleneck", TOP_FLAG_KEY, "flags")
"""The list's columns of the diagnosis (``columns.diagnosis_columns``)."""

READ_BATCH_SECONDS = 0.2
"""While the report loads, the reading worker reads the summaries in batches of this long
(the first at once, a screenful), each diagnosed once it is read (``iter_summaries``'s
``analyse``, ``summary_reader.paired``): a batch of reading and its
diagnosing take ~0.4 s, and the list takes what was read and diagnosed at most once a batch
(``UI_BATCH_CPU_S``). Reading a batch and then diagnosing it, not each kernel in turn, took a
quarter less CPU on a 1,000-launch report (~0.145 against ~0.185 ms a kernel: the same
instructions, run with the reader's and then the diagnosis's code and data warm in the CPU's
caches)."""

UI_BATCH_CPU_S = 0.2
"""A batch goes to the list only once the worker has read for this much CPU time since it
last handed rows over (else it waits for a later one, or the end of reading): on a loaded
machine a batch's 0.2 s hold less reading, and the list, drawn again for each batch it takes,
would otherwise take more of the CPU the more loaded the machine is (on a quiet one each
batch, read and diagnosed, holds ~0.35 s of the worker's CPU)."""


def end_is_near(read_cpu_s: float, read: int, left: int) -> bool:
    """Whether the ``left`` kernels are read within ``UI_BATCH_CPU_S`` of CPU time at the
    pace of ``read`` kernels in ``read_cpu_s``: then no batch goes to the list before the
    end of reading, which comes about as soon and takes them, and the list is drawn again
    once, not twice, as it completes (a batch drawn takes the UI thread ~30 ms of CPU, ~0.04
    of the list's loading; a batch holds at most twice ``UI_BATCH_CPU_S`` of reading)."""
    return read > 0 and left * read_cpu_s / read < UI_BATCH_CPU_S


FIRST_ROWS = 48
"""The first rows go to the list as soon as a screenful is read (the terminal's height, more
rows than the table shows; this many where the height is not known yet), not after a
batch's 0.2 s: a 36-line terminal's 36 are read in about 15 ms."""

FIRST_DRAW_WAIT_S = 2.0
"""The reading worker waits for the list's first rows to be drawn before it reads on (the
CPU is the screen's meanwhile), at most this long."""


def kernel_help_sections() -> HelpSections:
    """Whose keys a kernel report's help lists. The screens are imported here, when help
    opens (or the README's key tables are written), not before the list's first rows."""
    from kernelscope.kinds.ncu.screens.family_table import FamilyTable
    from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
    from kernelscope.kinds.ncu.screens.kernel_list_table import KernelTable
    from kernelscope.kinds.ncu.screens.panes.raw import FilterInput, RawPane
    from kernelscope.kinds.ncu.screens.panes.source import SourcePane
    from kernelscope.kinds.ncu.screens.roofline import RooflineScreen
    from kernelscope.kinds.ncu.screens.widgets.source_listing import SourceListing

    return (
        ("Kernel list", (KernelTable, FamilyTable, KernelListScreen)),
        ("Roofline (r)", (RooflineScreen,)),
        ("Kernel detail", (KernelDetailScreen,)),
        ("Source page (6)", (SourcePane, SourceListing)),
        ("Raw page (8)", (RawPane, FilterInput)),
    )


class KernelSession(KernelState, OpeningSession[int]):
    """An Nsight Compute report in the TUI: the kernel list, details and the roofline."""

    @property
    def help_sections(self) -> HelpSections:
        return kernel_help_sections()

    def __init__(self, app: App[Any], paths: Sequence[Path], options: SessionOptions) -> None:
        KernelState.__init__(self, paths[0], options.extra_columns)
        OpeningSession.__init__(self, app, paths, options)
        self.kernel_list: KernelListScreen | None = None
        self._arrived: list[tuple[KernelSummary, Diagnosis | None]] = []
        """Summaries read and diagnosed (the first rows without their diagnosis), not yet held
        (the loading worker adds, the UI thread takes)."""
        self._diagnosed_late: list[tuple[KernelSummary, Diagnosis]] = []
        """The first rows' diagnoses, made once the rows are drawn, not yet held."""
        self._diagnose: Callable[[KernelSummary], Diagnosis] | None = None
        """How the reading worker diagnoses a summary (None until the first rows are drawn:
        the diagnosis's modules are imported then, not before the first paint)."""
        self._arrived_lock = threading.Lock()
        self._arrival_posted = False
        """Whether the UI thread has been asked to take the arrived summaries and has not yet
        (the worker asks again only then: one request waits at a time, whatever the pace)."""
        self._first_drawn = threading.Event()
        """Set once the list's first rows are drawn (or the app closes)."""
        self._handed_cpu_s = 0.0
        """The reading worker's CPU time when it last asked the UI thread to take rows."""
        self._pace_from = (0.0, 0)
        """The reading worker's CPU time and the kernels read once the first rows were
        diagnosed: its pace from then on (``end_is_near``)."""
        self._shown = 0
        self._first_rows = FIRST_ROWS
        self.baseline_listeners.append(self._baseline_shown)

    # -- opening ---------------------------------------------------------------------------
    def open(self) -> int:
        """Open the report and hand its summaries to the UI thread batch by batch; returns
        how many were read."""
        # The diagnosis's metrics always: the report's analysis diagnoses every kernel, whatever
        # the columns show.
        metrics = tuple(dict.fromkeys((*REQUIRED_METRICS, *required_metrics(self.columns))))
        report = open_ncu_report(self.report_path, extra_metrics=metrics)
        _ = report.device, report.notes  # read in this thread, not on the UI's
        with fewer_collections():
            return self._read_summaries(report)

    def _read_summaries(self, report: NcuReport) -> int:
        loaded = 0
        self._first_rows = self.app.size.height or FIRST_ROWS
        # Each summary comes diagnosed from this thread (as ``analyze`` diagnoses it for the
        # exports), so the UI thread does not diagnose a thousand kernels while it draws rows;
        # the first rows come without, and are diagnosed once they are drawn. A batch is
        # diagnosed once it is read (``READ_BATCH_SECONDS``).
        for pairs in report.iter_summaries(
            batch_seconds=READ_BATCH_SECONDS, cancelled=self.cancelled, analyse=self._diagnosis,
            first=self._first_rows,
        ):
            if loaded == 0:
                self._first_rows_read(report, pairs)
            else:
                self._hand_over(pairs, loaded + len(pairs), report.kernel_count)
            loaded += len(pairs)
        if loaded == 0 and not self.cancelled():
            self.show_soon(self._show_list, report)  # a report without kernels
        return loaded

    def _diagnosis(self, summary: KernelSummary) -> Diagnosis | None:
        """The summary's diagnosis as read (none for the first rows: ``_first_rows_read``)."""
        return None if self._diagnose is None else self._diagnose(summary)

    def _first_rows_read(self, report: NcuReport, pairs: list[Any]) -> None:
        """The first rows go to the list at once, without their diagnosis (its cells say
        n/a); once they are drawn, this thread imports the diagnosis and diagnoses them. The
        diagnoses go to the UI thread with the next batch (or the end of reading), not on
        their own: the list's cells are drawn again once for both (each time the list draws
        its screen again takes the UI thread ~20 ms of CPU)."""
        with self._arrived_lock:
            self._arrived.extend(pairs)
        self.show_soon(self._show_first, report)
        self._first_drawn.wait(FIRST_DRAW_WAIT_S)
        if self.cancelled():
            return
        from kernelscope.kinds.ncu.analysis.kernel_analysis import diagnose_summary

        self._diagnose = diagnose_summary
        diagnosed = [(summary, diagnose_summary(summary)) for summary, _ in pairs]
        with self._arrived_lock:
            self._diagnosed_late.extend(diagnosed)
        self._handed_cpu_s = time.thread_time()
        self._pace_from = (self._handed_cpu_s, len(pairs))

    def _hand_over(self, pairs: list[Any], read: int, total: int) -> None:
        """Add ``pairs`` to what the UI thread takes (``read`` of the ``total`` kernels read
        with them), and ask it to take them unless this thread has read for less than
        ``UI_BATCH_CPU_S`` since it last asked, the end of reading is near
        (``end_is_near``) or an earlier request still waits (one at a time, whatever the
        pace)."""
        cpu_s = time.thread_time()
        since_s, since = self._pace_from
        with self._arrived_lock:
            self._arrived.extend(pairs)
            if cpu_s - self._handed_cpu_s < UI_BATCH_CPU_S or end_is_near(
                    cpu_s - since_s, read - since, total - read):
                return
            self._handed_cpu_s = cpu_s
            ask = not self._arrival_posted
            self._arrival_posted = True
        if ask:
            self.show_soon(self.take_arrived)

    def opened(self, opened: int) -> None:
        # The last rows are taken under the load's thresholds too, and what they make is
        # frozen with the rest (``fewer_collections``): the collections of the list's last
        # batch walked its thousand rows' cells again (~5 ms before the list completed).
        with fewer_collections():
            self.take_arrived()
            self._loaded(opened)

    def _show_list(self, report: NcuReport) -> None:
        self.report = report
        if len(report.processes) > 1:
            self.columns = with_process_column(self.columns)
        self.kernel_list = KernelListScreen(self, self.columns)
        self.kernel_list.total = report.kernel_count
        self.host.show_main_screen(self.kernel_list)
        for note in report.notes:
            self.app.notify(note, title="Old report", timeout=15)

    def _show_first(self, report: NcuReport) -> None:
        """The list with its first rows: the loading screen stays until a screenful is read
        (about 20 ms), so that the list's first paint has rows, not an empty table to paint
        again (each paint of the list takes the UI thread 30 to 60 ms of CPU)."""
        self._show_list(report)
        self._take_first()

    def _take_first(self) -> None:
        """The first rows, a screenful; the reading worker goes on once the screen shows
        them (and asks the UI thread to take each batch it reads from then on)."""
        self.take_arrived(self._first_rows)
        assert self.kernel_list is not None, "shown by _show_list"
        self.kernel_list.when_drawn(self._first_drawn.set)

    def take_arrived(self, limit: int | None = None) -> None:
        """Show the summaries that arrived since the last call, at most ``limit`` of them (on
        the UI thread: the reading worker asks for it after each batch it reads, unless an
        earlier request is still waiting, and once it has read every kernel)."""
        with self._arrived_lock:
            arrived = self._arrived
            cut = len(arrived) if limit is None else min(limit, len(arrived))
            batch, self._arrived = arrived[:cut], arrived[cut:]
            diagnosed, self._diagnosed_late = self._diagnosed_late, []
            if limit is None:
                self._arrival_posted = False
        if diagnosed:  # (the first rows' diagnoses, taken with a later batch)
            self.hold_diagnoses(diagnosed)
        if batch and self.report is not None:
            self._shown += len(batch)
            self._loaded_batch(batch, self._shown, self.report.kernel_count)
        if diagnosed and self.kernel_list is not None and self.kernel_list.is_mounted:
            self.kernel_list.renew_columns(DIAGNOSIS_KEYS, [summary for summary, _ in diagnosed])

    def _loaded_batch(
        self, batch: list[tuple[KernelSummary, Diagnosis | None]], loaded: int, total: int
    ) -> None:
        renamed = self.add_summaries(batch)
        if self.kernel_list is not None:
            summaries = [summary for summary, _ in batch]
            # Only kernels shown before matter (the new ones are drawn with their names).
            earlier = bool(renamed - {s.name for s in summaries})
            self.kernel_list.add_summaries(summaries, loaded, total, renamed=earlier)

    def _loaded(self, total: int) -> None:
        self.loaded_all = True
        self.app.refresh_bindings()  # export is offered once every kernel is loaded
        if self.kernel_list is not None:
            self.kernel_list.finish_loading(total)
        self._redraw_details()

    def _redraw_details(self) -> None:
        """Redraw the detail screens drawn while kernels were still being read (their module
        is imported only when one is open: the list's loading does not wait for it)."""
        if not any(isinstance(screen, KernelReportScreen) and screen is not self.kernel_list
                   for screen in self.app.screen_stack):
            return
        from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, KernelDetailScreen):
                screen.redraw()

    def close(self) -> None:
        self._first_drawn.set()
        if self.report is not None:
            self.report.close()

    # -- navigation ------------------------------------------------------------------------
    def open_kernel(self, kernel_id: int, pane: str | None = None) -> None:
        """Show kernel ``kernel_id``: in the open detail screen, or from the kernel list."""
        app = self.app
        if self.summary(kernel_id) is None:
            app.notify(f"No kernel with ID {kernel_id}.", severity="error")
            return
        from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen

        if isinstance(app.screen, KernelDetailScreen):
            app.screen.show_kernel(kernel_id)
            if pane is not None:
                app.screen.action_show_pane(pane)
            return
        if self.kernel_list is not None and self.kernel_list.is_attached:
            while app.screen is not self.kernel_list and len(app.screen_stack) > 1:
                app.pop_screen()
            self.kernel_list.open_kernel(kernel_id, pane)

    # -- baseline (b) ----------------------------------------------------------------------
    def mark_baseline(self, kernel_id: int, detail: KernelDetail | None = None) -> bool:
        """Make ``kernel_id`` the baseline (``b`` on the baseline clears it); its detail is
        read in a worker when it is not at hand."""
        if super().mark_baseline(kernel_id, detail):
            return True
        report = self.report
        if report is None:
            return False

        def read() -> None:
            detail = report.detail(kernel_id)
            self.app.call_from_thread(self.set_baseline, detail)

        self.app.run_worker(read, thread=True, exclusive=True, exit_on_error=False,
                            group="baseline")
        return True

    def _baseline_shown(self, detail: KernelDetail | None) -> None:
        if self.kernel_list is not None:
            column = None if detail is None else baseline_column(detail.id, detail.duration_ns)
            self.kernel_list.show_baseline(column)
        if detail is None:
            self.app.notify("Baseline cleared.", timeout=3)
        else:
            self.app.notify(f"Kernel {detail.id} is the baseline: the panes show the changes "
                            "against it, the list its Δ base column.", timeout=4)
