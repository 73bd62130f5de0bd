"""The kernel list: every profiled kernel with its key metrics, sortable and filterable. The
detail and roofline screens are imported when first opened: the first rows do not wait."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.events import Resize
from textual.widgets import Input, Static
from textual.worker import Worker

from kernelscope.kinds.ncu.model import KernelSummary
from kernelscope.kinds.ncu.screens.columns import SHARE_KEY, ColumnProvider
from kernelscope.kinds.ncu.screens.kernel_commands import KernelReportScreen
from kernelscope.kinds.ncu.screens.kernel_list_chrome import ListChrome
from kernelscope.kinds.ncu.screens.kernel_list_families import FamilyListing
from kernelscope.kinds.ncu.screens.kernel_list_keys import LIST_BINDINGS
from kernelscope.kinds.ncu.screens.kernel_list_prompts import ListPrompts
from kernelscope.kinds.ncu.screens.kernel_list_table import CellTexts, KernelTable
from kernelscope.kinds.ncu.screens.kernel_list_view import CELL_GAP, KernelListView
from kernelscope.kinds.ncu.screens.kernel_state import KernelState, demangled_of
from kernelscope.render.severity import text_style
from kernelscope.ui.session import worker_failed
from kernelscope.ui.widgets.sized_table import SizedTable, TableColumn

if TYPE_CHECKING:
    from kernelscope.kinds.ncu.screens.family_table import FamilyKey, Row

LIVE_REBUILD_ROWS = 200
"""While the list loads, wider columns (or an earlier kernel's short name changed by a new
one) re-fill the table only while it holds at most this many rows; past that the change waits
for the end of loading, which re-fills the table anyway (re-filling a thousand rows at each
wider name took a second of the two cores the list's readers need)."""


class KernelListScreen(FamilyListing, ListPrompts, ListChrome, KernelReportScreen[None]):
    """Lists the report's kernels as they load (the kernel session feeds ``add_summaries``)."""

    HELP_TITLE = "Kernel list"
    BINDINGS = LIST_BINDINGS

    def __init__(self, state: KernelState, columns: Sequence[ColumnProvider]) -> None:
        super().__init__(state, id="kernel-list")
        self.initial_columns = tuple(columns)
        self._view: KernelListView | None = None
        self.loaded = 0
        self.total = 0
        self.done = False
        self._shown_lines: dict[str, str] = {}
        self._names_stale = False
        """Whether rows shown before show a short name that changed since (re-filled at the
        end of loading)."""
        self._texts = CellTexts()
        self.view = "launches"
        self.expanded: set[FamilyKey] = set()
        self.family_rows: list[Row] = []

    @property
    def rows(self) -> KernelListView:
        """The list's filter, sort, columns and cells (made on first use: it needs the
        report's state, which the screen finds once it belongs to the app)."""
        if self._view is None:
            self._view = KernelListView(self.state, self.initial_columns)
        return self._view

    @property
    def columns(self) -> tuple[ColumnProvider, ...]:
        return self.rows.columns

    @property
    def pattern(self) -> re.Pattern[str] | None:
        return self.rows.pattern

    def set_sort(self, key: str, reverse: bool | None = None) -> None:
        """Sort by column ``key`` (``resort`` shows it); numbers default to largest first."""
        self.rows.set_sort(key, reverse)

    @property
    def table(self) -> KernelTable:
        return self.query_one(KernelTable)

    def compose(self) -> ComposeResult:
        yield Static(self.state.title_line(), id="list-title", markup=False)
        yield KernelTable(id="kernels", cursor_type="row", zebra_stripes=True, cell_padding=0)
        with Horizontal(id="list-progress"):  # (its bar and the footer: ``ListChrome``)
            yield Static("", id="progress-text")
        yield Static("", id="list-message")  # (the prompts' input line goes above it)
        yield Static("", id="list-status", markup=False)
        yield Static("", id="list-info", markup=False)
        yield Static("", id="footer-space")  # (the footer's line, until it is mounted)

    def on_mount(self) -> None:
        self.query_one("#list-message").display = False
        self.rebuild()
        self._show_progress()  # (the batches taken before the mount)
        self.table.focus()
        self.mount_chrome_later()

    # -- loading ---------------------------------------------------------------------------
    def add_summaries(
        self, batch: list[KernelSummary], loaded: int, total: int, renamed: bool = False
    ) -> None:
        """Show a newly loaded batch (the session has already kept it with its summaries;
        ``renamed``: it changed the short name of kernels shown before)."""
        self.loaded, self.total = loaded, total
        if not self.is_mounted:
            return
        self._show_progress()
        rows = self.rows
        if renamed:
            rows.forget_texts()
        rows.note_widths(batch)
        wider = rows.plan(self.app.size.width) != rows.widths
        if (renamed or wider) and len(rows.listed) <= LIVE_REBUILD_ROWS:
            self.rebuild()
            return
        self._names_stale = self._names_stale or renamed
        added, in_order = rows.append(batch)
        self.table.add_row_batch((str(s.id), partial(self._cells, s)) for s in added)
        if in_order:
            self._update_labels()
            self._update_status()
        else:  # batches from several reader processes interleave; or another sort
            self.resort()
        if self.view == "families":
            self.rebuild_families()

    def finish_loading(self, total: int) -> None:
        self.done = True
        self.loaded = self.total = total
        if self.is_mounted:
            self._show_progress()
            self.renew_columns((SHARE_KEY,))  # the time shares, known now that every kernel is
            self.chrome_when_complete()

    def renew_columns(self, keys: Sequence[str], summaries: Sequence[KernelSummary] | None = None
                      ) -> None:
        """Write the cells of columns ``keys`` again (values known later: the time shares,
        the first rows' diagnoses), of ``summaries`` only when given, not every row, unless
        the columns' widths change (while the list loads, only for a table short enough to
        re-fill: ``add_summaries``)."""
        rows = self.rows
        for key in keys:
            rows.renew_column(key, summaries)
        refit = self._names_stale or rows.plan(self.app.size.width) != rows.widths
        if refit and (self.done or len(rows.listed) <= LIVE_REBUILD_ROWS):
            self.rebuild()
            return
        shown = [(key, at) for key in keys if (at := rows.shown_position(key)) is not None]
        for key, at in shown:
            self.table.update_column(key, partial(self._cell_of_row, at))
        if not shown and self.done:
            self.rebuild()
        elif rows.sort.key in keys:
            self.resort()
        else:
            self._update_status()

    def _show_progress(self) -> None:
        self.query_one("#list-progress").display = not self.done
        for bar in self.query("#load-progress"):  # (none before ``ListChrome`` mounts it)
            bar.update(total=max(1, self.total), progress=self.loaded)
        self._put("#progress-text", f"loaded {self.loaded:,} of {self.total:,} kernels")
        self._update_info()

    # -- table contents --------------------------------------------------------------------
    def _cell_of_row(self, position: int, row_key: str) -> Text:
        """The cell of the shown column at ``position`` in the row of key ``row_key``, made
        again (``renew_columns``)."""
        summary = self.state.summary(int(row_key))
        assert summary is not None, "the list's rows are the session's kernels"
        cell = self.rows.cells(summary)[position]
        return Text(cell.text, no_wrap=True, style=cell.style)

    def _cells(self, summary: KernelSummary) -> list[Text]:
        """The row's cells as the table holds them (made when the table first draws the row:
        the rows below the screen are not worked out until they are scrolled to)."""
        return self._texts.row(self.rows.cells(summary))

    def highlighted_id(self) -> int | None:
        """The highlighted kernel: in the family view, the highlighted launch or the median
        launch of the highlighted family."""
        if self.view == "families":
            row = self.highlighted_family_row()
            if row is None:
                return None
            return row.kernel_id if row.kernel_id is not None else row.family.representative
        row = self.table.cursor_row
        listed = self.rows.listed
        return listed[row].id if 0 <= row < len(listed) else None

    @on(SizedTable.RowSelected, "#families")
    def _family_selected(self, event: SizedTable.RowSelected) -> None:
        event.stop()
        self.family_chosen(str(event.row_key.value))

    @on(SizedTable.RowHighlighted, "#families")
    def _family_highlighted(self, event: SizedTable.RowHighlighted) -> None:
        event.stop()
        self._update_status()

    @on(Input.Changed, "#list-input")
    def _input_changed(self, event: Input.Changed) -> None:
        self.filter_typed(event.value)

    @on(Input.Submitted, "#list-input")
    def _input_submitted(self, event: Input.Submitted) -> None:
        self.prompt_submitted(event.value)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filter":
            return self.rows.pattern is not None or self.input_mode is not None
        if action in ("sort_next", "sort_reverse"):
            return self.view == "launches"  # families are ranked by their total time
        return True

    def rebuild(self, keep: int | None = None) -> None:
        """Re-fill the table from the session's summaries with the current filter and sort."""
        keep = self.highlighted_id() if keep is None else keep
        self._names_stale = False
        rows = self.rows
        rows.refill()
        rows.lay_out(self.app.size.width)
        table = self.table
        self._texts.rebuilt()
        table.fill(
            [TableColumn(column.key, self._label(column), rows.widths[column.key] + CELL_GAP)
             for column in rows.shown_columns],
            ((str(s.id), partial(self._cells, s)) for s in rows.listed),
        )
        if keep is not None and keep in rows.index:
            table.move_cursor(row=rows.index[keep], animate=False)
        self._update_status()

    def resort(self) -> None:
        """Re-order the rows shown for the current sort (cheaper than ``rebuild``: the
        table re-orders its rows without measuring them again)."""
        keep = self.highlighted_id()
        self.rows.reorder()
        index = self.rows.index
        table = self.table
        table.order_rows(lambda key: index[int(key)])
        self._update_labels()
        if keep is not None and keep in index:
            table.move_cursor(row=index[keep], animate=False)
        self._update_status()

    def _label(self, column: ColumnProvider) -> Text:
        label = self.rows.label(column)
        return Text(label.text, no_wrap=True)

    def _update_labels(self) -> None:
        """Write the headers again where one changed (the sort, or a column found numeric)."""
        table = self.table
        changed = False
        for key, table_column in table.columns.items():
            label = self._label(self.rows.column(str(key.value)))
            if label.plain != table_column.label.plain:
                table_column.label = label
                changed = True
        if changed:
            table.refresh()

    def _put(self, selector: str, content: Text | str, layout: bool = False) -> None:
        """Show ``content`` in a line below the table when it changed (while the list loads,
        each batch would otherwise redraw them; ``layout``: the line's height follows its
        text, so a change re-arranges the screen)."""
        plain = content.plain if isinstance(content, Text) else content
        if self._shown_lines.get(selector) != plain:
            self._shown_lines[selector] = plain
            self.query_one(selector, Static).update(content, layout=layout)

    def on_resize(self, event: Resize) -> None:
        self.laid_out_already(event)
        if self.rows.plan(event.size.width) != self.rows.widths:
            self.rebuild()
            if self.view == "families":
                self.rebuild_families()

    # -- status lines ----------------------------------------------------------------------
    def _update_status(self) -> None:
        """Below the table, the highlighted kernel's whole demangled name (and its top flag
        when the column is cut or hidden)."""
        kernel_id = self.highlighted_id()
        summary = self.state.summary(kernel_id) if kernel_id is not None else None
        text = Text()
        if summary is not None:
            text.append(demangled_of(summary))
            diagnosis = self.state.listed_diagnosis(summary)
            if diagnosis is not None and self.rows.top_flag_cut(summary):
                from kernelscope.kinds.ncu.analysis.diagnosis.verdict import top_flag
                from kernelscope.kinds.ncu.render.flag_cells import top_flag_text

                flag = top_flag(diagnosis)
                if flag is not None:
                    text.append(" · top flag ", style="dim")
                    text.append(top_flag_text(diagnosis), style=text_style(flag.severity))
        self._put("#list-status", text, layout=True)
        self._update_info()

    def _update_info(self) -> None:
        total = len(self.state.summaries)
        parts = self.family_info(total) if self.view == "families" else self.rows.info(total)
        if not self.done:
            parts.insert(1, "loading…")
        if self.rows.pattern is not None:
            parts.append(f"filter /{self.rows.filter_text}/")
        self._put("#list-info", " · ".join(parts))

    def _message(self, text: str = "", style: str = "") -> None:
        message = self.query_one("#list-message", Static)
        message.display = bool(text)
        message.update(Text(text, style=style))

    @on(SizedTable.RowHighlighted, "#kernels")
    def _row_highlighted(self, event: SizedTable.RowHighlighted) -> None:
        self._update_status()

    @on(SizedTable.RowSelected, "#kernels")
    def _row_selected(self, event: SizedTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.open_kernel(int(event.row_key.value))

    @on(SizedTable.HeaderSelected, "#kernels")
    def _header_selected(self, event: SizedTable.HeaderSelected) -> None:
        key = str(event.column_key.value)
        if key == self.rows.sort.key:
            self.rows.sort.flip()
        else:
            self.set_sort(key)
        self.resort()

    # -- actions ---------------------------------------------------------------------------
    def action_sort_next(self) -> None:
        """Sort by the next column on screen (one the width left out is skipped)."""
        self.rows.sort_next()
        self.resort()

    def action_sort_reverse(self) -> None:
        self.rows.sort.flip()
        self.resort()

    # -- detail navigation -----------------------------------------------------------------
    def action_baseline(self) -> None:
        kernel_id = self.highlighted_id()
        if kernel_id is not None:
            self.state.mark_baseline(kernel_id)

    def show_baseline(self, column: ColumnProvider | None) -> None:
        """Show ``column`` (the change against the baseline) and sort by it, or drop it."""
        self.rows.set_baseline_column(column)
        if self.is_mounted:
            self.rebuild()

    def open_kernel(self, kernel_id: int, pane: str | None = None) -> None:
        """Open kernel ``kernel_id``'s detail; n/p there follow this list's order."""
        from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
        if kernel_id in self.rows.index:
            self.table.move_cursor(row=self.rows.index[kernel_id], animate=False)
        self.app.push_screen(KernelDetailScreen(self.state, kernel_id, order=self, pane=pane),
                             callback=self._detail_closed)

    def action_roofline(self) -> None:
        from kernelscope.kinds.ncu.screens.roofline import RooflineScreen
        self.app.push_screen(RooflineScreen(self.state, self.highlighted_id()),
                             callback=self._detail_closed)

    def _detail_closed(self, kernel_id: int | None) -> None:
        if kernel_id is not None and kernel_id in self.rows.index:
            self.table.move_cursor(row=self.rows.index[kernel_id], animate=False)
        if kernel_id is not None and self.view == "families":
            self.select_launch(kernel_id)

    def neighbor(self, kernel_id: int, step: int) -> int | None:
        """The kernel ``step`` rows away in the list's order (report order if it is hidden)."""
        return self.rows.neighbor(kernel_id, step)

    def position(self, kernel_id: int) -> tuple[int, int] | None:
        """(1-based row, rows) of the kernel in the list, None when it is filtered out."""
        return self.rows.position(kernel_id)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker_failed(self, event)
