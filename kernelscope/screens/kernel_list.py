"""The kernel list: every profiled kernel with its key metrics, sortable and filterable."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import partial

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Resize
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Input, ProgressBar, Static
from textual.worker import Worker

from kernelscope.parsers.diagnosis.cache import summary_diagnosis, top_flag_of
from kernelscope.parsers.families import ReportFamilies, kernel_families
from kernelscope.parsers.kernel_names import fit_names
from kernelscope.parsers.ncu import KernelSummary
from kernelscope.render.table_fit import ColumnFit, fit_columns, fit_words
from kernelscope.screens.columns import (
    BASELINE_KEY,
    NAME_KEY,
    SHARE_KEY,
    TOP_FLAG_KEY,
    CellValue,
    ColumnProvider,
)
from kernelscope.screens.family_table import (
    COLUMNS as FAMILY_COLUMNS,
)
from kernelscope.screens.family_table import (
    FAMILY_PREFIX,
    LAUNCH_PREFIX,
    FamilyKey,
    FamilyTable,
    Row,
    family_rows,
    fitted_cells,
    plan_family_columns,
)
from kernelscope.screens.family_table import MARKER as NAME_MARKER
from kernelscope.screens.family_table import WHOLE as WHOLE_NAMES
from kernelscope.screens.family_table import Row as FamilyRow
from kernelscope.screens.kernel_commands import KernelReportScreen
from kernelscope.screens.kernel_detail import KernelDetailScreen
from kernelscope.screens.kernel_state import KernelState, demangled_of
from kernelscope.screens.palette import Command
from kernelscope.screens.roofline import RooflineScreen
from kernelscope.screens.session import worker_failed

ID_KEY = "id"
"""The ID column's key; its cells hold the plain ID, which ``resort`` reads back."""
INSTANT_FILTER_ROWS = 500
"""Up to this many kernels the filter follows every keystroke; beyond, it waits for a pause."""
FILTER_DELAY = 0.25

CELL_GAP = 1
"""The space before each cell (the table itself pads none)."""
LIVE_REBUILD_ROWS = 200
"""While the list loads, wider columns (or an earlier kernel's short name changed by a new
one) re-fill the table only while it holds at most this many rows; past that the change waits
for the end of loading, which re-fills the table anyway (re-filling a thousand rows at each
wider name took a second of the two cores the list's readers need)."""
SCROLLBAR = 1


class KernelTable(DataTable[Text]):
    """The kernel list's table; enter (or a click on the highlighted row) opens a kernel."""

    BINDINGS = [
        Binding(
            "enter", "select_cursor", "Open", id="list.open",
            tooltip="Open the highlighted kernel (clicking a highlighted row does too).",
        ),
    ]


FLAG_STYLES = {"critical": "bold red", "warning": "yellow", "info": "cyan"}


def _sort_token(value: CellValue) -> tuple[int, float | str]:
    if isinstance(value, (int, float)):
        return (0, float(value))
    return (1, str(value).lower())


def compile_filter(text: str) -> re.Pattern[str] | None:
    """The filter's regex (case-insensitive unless it has a capital); None for no filter.

    Raises ``re.error`` for an invalid expression.
    """
    if not text:
        return None
    flags = 0 if any(ch.isupper() for ch in text) else re.IGNORECASE
    return re.compile(text, flags)


class KernelListScreen(KernelReportScreen[None]):
    """Lists the report's kernels as they load (the kernel session feeds ``add_summaries``)."""

    HELP_TITLE = "Kernel list"
    BINDINGS = [
        Binding(
            "slash", "filter", "Filter", id="list.filter",
            tooltip="Filter kernels by a regular expression on their name "
            "(case-insensitive unless it has a capital); escape clears it.",
        ),
        Binding(
            "colon,g", "jump", "Go to ID", id="list.jump",
            tooltip="Type a kernel ID and press enter to jump to it.",
        ),
        Binding("s", "sort_next", "Sort", id="list.sort", tooltip="Sort by the next column."),
        Binding(
            "S", "sort_reverse", "Reverse", id="list.reverse",
            tooltip="Reverse the sort order (clicking a column header sorts by it).",
        ),
        Binding(
            "escape", "clear_filter", "Clear filter", id="list.clear-filter",
            tooltip="Clear the filter (or close the filter/ID prompt).",
        ),
        Binding(
            "r", "roofline", "Roofline", id="list.roofline",
            tooltip="Every kernel on a roofline, the highlighted one selected.",
        ),
        Binding(
            "b", "baseline", "Baseline", id="list.baseline",
            tooltip="Mark the highlighted kernel as the baseline: every pane then shows the "
            "changes against it, and the list a Δ base column sorted by change (b on the "
            "baseline clears it).",
        ),
        Binding(
            "f", "toggle_families", "Families", id="list.families",
            tooltip="Switch between launches and kernel families (launches grouped by name and "
            "launch shape, ranked by total time); enter expands a family into its launches.",
        ),
    ]

    def __init__(self, state: KernelState, columns: Sequence[ColumnProvider]) -> None:
        super().__init__(state, id="kernel-list")
        self.columns = tuple(columns)
        self.sort_key = "id"
        self.sort_reverse = False
        self.filter_text = ""
        self.pattern: re.Pattern[str] | None = None
        self.listed: list[KernelSummary] = []
        self._index: dict[int, int] = {}
        self.input_mode: str | None = None
        self.loaded = 0
        self.total = 0
        self.done = False
        self.widths: dict[str, int] = {}
        """The columns shown (by key) and their widths, for the current terminal width."""
        self._texts: dict[int, list[str]] = {}
        self._natural: dict[str, int] = {}
        self._least: dict[str, int] = {}
        self._fitted_names: dict[str, str] = {}
        self._cell_cache: dict[int, list[Text]] = {}
        self._numeric: dict[str, bool] = {}
        self._filter_timer: Timer | None = None
        self.view = "launches"
        """What the list shows: ``launches`` (one row per kernel) or ``families``."""
        self.expanded: set[FamilyKey] = set()
        self.family_rows: list[Row] = []
        self._families: tuple[int, ReportFamilies] | None = None

    @property
    def table(self) -> KernelTable:
        return self.query_one(KernelTable)

    @property
    def family_table(self) -> FamilyTable:
        return self.query_one(FamilyTable)

    @property
    def families(self) -> ReportFamilies:
        """The families of the kernels loaded so far (grouped again when more arrive)."""
        count = len(self.state.summaries)
        if self._families is None or self._families[0] != count:
            self._families = (count, kernel_families(self.state.summaries))
        return self._families[1]

    def compose(self) -> ComposeResult:
        yield Static(self.state.title_line(), id="list-title", markup=False)
        yield KernelTable(id="kernels", cursor_type="row", zebra_stripes=True, cell_padding=0)
        yield FamilyTable(id="families", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="list-progress"):
            yield ProgressBar(id="load-progress", show_eta=False)
            yield Static("", id="progress-text")
        yield Input(id="list-input", select_on_focus=False)
        yield Static("", id="list-message")
        yield Static("", id="list-status", markup=False)
        yield Static("", id="list-info", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#list-input").display = False
        self.query_one("#list-message").display = False
        self.family_table.display = False
        self.rebuild()
        self.table.focus()

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
        if renamed:
            self._texts.clear()
            self._natural.clear()
        self._note_widths(batch if self._natural else self.state.summaries)
        if (renamed or self._plan() != self.widths) and len(self.listed) <= LIVE_REBUILD_ROWS:
            self.rebuild()
            return
        table = self.table
        last = self.listed[-1].id if self.listed else -1
        in_order = True
        for summary in batch:
            if self._matches(summary):
                in_order = in_order and summary.id > last
                last = max(last, summary.id)
                self._index[summary.id] = len(self.listed)
                self.listed.append(summary)
                table.add_row(*self._cells(summary), key=str(summary.id))
        if in_order and self.sort_key == "id" and not self.sort_reverse:
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
            # The time shares are known now that every kernel is.
            self._texts.clear()
            self._natural.clear()
            self.rebuild()

    def _show_progress(self) -> None:
        self.query_one("#list-progress").display = not self.done
        bar = self.query_one("#load-progress", ProgressBar)
        bar.update(total=max(1, self.total), progress=self.loaded)
        self.query_one("#progress-text", Static).update(
            f"loaded {self.loaded:,} of {self.total:,} kernels"
        )
        self._update_info()

    # -- table contents --------------------------------------------------------------------
    def _full_texts(self, summary: KernelSummary) -> list[str]:
        """The row's texts before fitting (the short name, the whole top flag)."""
        texts = self._texts.get(summary.id)
        if texts is None:
            texts = []
            for column in self.columns:
                if column.key == NAME_KEY:
                    texts.append(self.state.short_name(summary))
                else:
                    texts.append(column.cell_text(column.cell_value(summary)))
            self._texts[summary.id] = texts
        return texts

    def _note_widths(self, summaries: Sequence[KernelSummary]) -> None:
        """Widen the natural widths of the columns for ``summaries``' texts."""
        natural, least = self._natural, self._least
        for column in self.columns:
            natural.setdefault(column.key, len(column.title) + 2)
            if column.compact is not None:
                least.setdefault(column.key, len(column.title) + 2)
        for summary in summaries:
            for column, text in zip(self.columns, self._full_texts(summary), strict=True):
                key = column.key
                if len(text) > natural[key]:
                    natural[key] = len(text)
                if column.compact is not None:
                    least[key] = max(least[key], len(column.compact(text)))

    def _plan(self, width: int | None = None) -> dict[str, int]:
        """The columns that fit the screen and their widths (``render.table_fit``)."""
        if not self._natural:
            self._note_widths(self.state.summaries)
        width = self.app.size.width if width is None else width
        fits = [
            ColumnFit(
                column.key,
                self._natural.get(column.key, len(column.title) + 2),
                minimum=column.minimum if column.compact is None else self._least[column.key],
                priority=column.priority,
                grows=column.key == NAME_KEY,
            )
            for column in self.columns
        ]
        return fit_columns(fits, width - SCROLLBAR, gap=CELL_GAP)

    @property
    def shown_columns(self) -> list[ColumnProvider]:
        """The columns on screen, in their order."""
        return [column for column in self.columns if column.key in self.widths]

    def _matches(self, summary: KernelSummary) -> bool:
        if self.pattern is None:
            return True
        row = summary.row
        names = any(
            isinstance(row.get(k), str) and self.pattern.search(str(row[k]))
            for k in ("demangled", "name")
        ) or bool(self.pattern.search(self.state.short_name(summary)))
        return names or any(
            self.pattern.search(text)
            for text in (column.search_text(summary) for column in self.columns)
            if text
        )

    def _cells(self, summary: KernelSummary) -> list[Text]:
        """The row's cells (computed once per kernel and layout)."""
        cells = self._cell_cache.get(summary.id)
        if cells is None:
            cells = self._cell_cache[summary.id] = self._make_cells(summary)
        return cells

    def _make_cells(self, summary: KernelSummary) -> list[Text]:
        cells = []
        texts = dict(zip((c.key for c in self.columns), self._full_texts(summary), strict=True))
        for column in self.shown_columns:
            text = texts[column.key]
            width = self.widths[column.key]
            if column.key == NAME_KEY:
                cells.append(Text(" " + self._fitted_names.get(text, text), no_wrap=True))
                continue
            if len(text) > width and column.compact is not None:
                text = column.compact(text)
            if len(text) > width:
                text = fit_words(text, width)
            value = column.cell_value(summary) if column.key != TOP_FLAG_KEY else None
            if isinstance(value, (int, float)) or column.key == SHARE_KEY:
                cells.append(Text(" " + text.rjust(width), no_wrap=True))
            else:
                cells.append(Text(" " + text, no_wrap=True, style=self._style(column, summary)))
        return cells

    @staticmethod
    def _style(column: ColumnProvider, summary: KernelSummary) -> str:
        if column.key != TOP_FLAG_KEY:
            return ""
        flag = top_flag_of(summary_diagnosis(summary))
        return FLAG_STYLES.get(flag.severity, "") if flag is not None else "dim"

    def _column(self, key: str) -> ColumnProvider:
        return next((c for c in self.columns if c.key == key), self.columns[0])

    def _sorted(self, rows: list[KernelSummary]) -> list[KernelSummary]:
        column = self._column(self.sort_key)
        if column.key == ID_KEY:
            return sorted(rows, key=lambda s: s.id, reverse=self.sort_reverse)
        keyed = [(column.sort_value(s), s) for s in rows]
        present = [(v, s) for v, s in keyed if v is not None]
        missing = [s for v, s in keyed if v is None]
        if column.key == NAME_KEY:
            present = [(self.state.short_name(s), s) for _, s in present]
        # Ties keep ID order in either direction (sorting is stable, also when reversed).
        present.sort(key=lambda item: item[1].id)
        present.sort(key=lambda item: _sort_token(item[0]), reverse=self.sort_reverse)
        return [s for _, s in present] + missing

    def highlighted_id(self) -> int | None:
        """The highlighted kernel: in the family view, the highlighted launch or the median
        launch of the highlighted family."""
        if self.view == "families":
            row = self.highlighted_family_row()
            if row is None:
                return None
            return row.kernel_id if row.kernel_id is not None else row.family.representative
        row = self.table.cursor_row
        return self.listed[row].id if 0 <= row < len(self.listed) else None

    # -- family view -----------------------------------------------------------------------
    def highlighted_family_row(self) -> Row | None:
        row = self.family_table.cursor_row
        return self.family_rows[row] if 0 <= row < len(self.family_rows) else None

    def rebuild_families(self, keep: str | None = None) -> None:
        """Re-fill the family table (families of the kernels the filter keeps), keeping the
        highlighted row (or the row ``keep``)."""
        table = self.family_table
        if keep is None:
            current = self.highlighted_family_row()
            keep = current.key if current is not None else None
        by_id = {s.id: s for s in self.state.summaries}

        def rows(name_width: int) -> list[FamilyRow]:
            return family_rows(self.families, by_id, self.expanded, self._matches, name_width,
                               short=self.state.names.get)

        widths = plan_family_columns(rows(WHOLE_NAMES), self.app.size.width)
        self.family_rows = rows(widths["family"] - NAME_MARKER)
        table.clear(columns=True)
        for key, title, numeric in FAMILY_COLUMNS:
            if key in widths:
                table.add_column(Text(title, justify="right" if numeric else "left"), key=key,
                                 width=widths[key])
        for row in self.family_rows:
            table.add_row(*fitted_cells(row, widths), key=row.key)
        keys = [row.key for row in self.family_rows]
        if keep in keys:
            table.move_cursor(row=keys.index(keep), animate=False)
        self._update_status()

    def action_toggle_families(self) -> None:
        """Show the families instead of the launches, or back."""
        families = self.view == "launches"
        self.view = "families" if families else "launches"
        self.table.display = not families
        self.family_table.display = families
        if families:
            self.rebuild_families()
            self.family_table.focus()
        else:
            self.table.focus()
        self.refresh_bindings()
        self._update_status()

    def toggle_family(self, row: Row) -> None:
        """Expand a folded family into its launches, or fold it."""
        key = row.family.key
        if key in self.expanded:
            self.expanded.discard(key)
        else:
            self.expanded.add(key)
        self.rebuild_families(keep=f"{FAMILY_PREFIX}{row.family.index}")

    @on(DataTable.RowSelected, "#families")
    def _family_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = str(event.row_key.value)
        row = next((r for r in self.family_rows if r.key == key), None)
        if row is None:
            return
        if key.startswith(LAUNCH_PREFIX) and row.kernel_id is not None:
            self.open_kernel(row.kernel_id)
        elif row.family.count == 1:
            self.open_kernel(row.family.ids[0])
        else:
            self.toggle_family(row)

    @on(DataTable.RowHighlighted, "#families")
    def _family_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._update_status()

    def rebuild(self, keep: int | None = None) -> None:
        """Re-fill the table from the session's summaries with the current filter and sort."""
        keep = self.highlighted_id() if keep is None else keep
        rows = [s for s in self.state.summaries if self._matches(s)]
        self.listed = self._sorted(rows)
        self._index = {s.id: i for i, s in enumerate(self.listed)}
        self.widths = self._plan()
        self._cell_cache.clear()
        self._fitted_names = fit_names(
            (self.state.short_name(s) for s in self.state.summaries),
            self.widths.get(NAME_KEY, 0),
        )
        table = self.table
        table.clear(columns=True)
        for column in self.shown_columns:
            table.add_column(
                self._label(column), key=column.key, width=self.widths[column.key] + CELL_GAP
            )
        for summary in self.listed:
            table.add_row(*self._cells(summary), key=str(summary.id))
        if keep is not None and keep in self._index:
            table.move_cursor(row=self._index[keep], animate=False)
        self._update_status()

    def resort(self) -> None:
        """Re-order the rows shown for the current sort (cheaper than ``rebuild``: the
        table re-orders its rows without measuring them again)."""
        keep = self.highlighted_id()
        self.listed = self._sorted(self.listed)
        self._index = index = {s.id: i for i, s in enumerate(self.listed)}
        table = self.table
        table.sort(ID_KEY, key=lambda cell: index[int(cell.plain)])
        self._update_labels()
        if keep is not None and keep in index:
            table.move_cursor(row=index[keep], animate=False)
        self._update_status()

    def _label(self, column: ColumnProvider) -> Text:
        """A header: the title and the sort arrow (space for it is always kept, so a header's
        width never changes); numbers are right-aligned."""
        arrow = " "
        if column.key == self.sort_key:
            arrow = "▼" if self.sort_reverse else "▲"
        numeric = self._numeric.get(column.key)
        if numeric is None:
            sample = self._sample_value(column)
            numeric = isinstance(sample, (int, float))
            if sample is not None:  # known for good once a value is seen
                self._numeric[column.key] = numeric
        label = f"{column.title} {arrow}"
        if numeric or column.key == SHARE_KEY:
            return Text(" " + label.rjust(self.widths.get(column.key, len(label))), no_wrap=True)
        return Text(" " + label, no_wrap=True)

    def _update_labels(self) -> None:
        table = self.table
        for key, table_column in table.columns.items():
            table_column.label = self._label(self._column(str(key.value)))
        table.refresh()

    def on_resize(self, event: Resize) -> None:
        if self._plan(event.size.width) != self.widths:
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
            flag = top_flag_of(summary_diagnosis(summary))
            position = self._position(TOP_FLAG_KEY)
            shown = self._full_texts(summary)[position] if position is not None else ""
            if flag is not None and len(shown) > self.widths.get(TOP_FLAG_KEY, 0):
                text.append(" · top flag ", style="dim")
                text.append(f"{flag.id} ({flag.severity})", style=FLAG_STYLES[flag.severity])
        self.query_one("#list-status", Static).update(text)
        self._update_info()

    def _position(self, key: str) -> int | None:
        return next((i for i, c in enumerate(self.columns) if c.key == key), None)

    def _update_info(self) -> None:
        column = self._column(self.sort_key)
        total = len(self.state.summaries)
        if self.view == "families":
            shown = sum(1 for r in self.family_rows if r.kernel_id is None)
            parts = [f"{shown:,} of {len(self.families):,} families ({total:,} kernels)"]
            if not self.done:
                parts.append("loading…")
            parts.append("ranked by total time · enter expands · f shows launches")
            if self.pattern is not None:
                parts.append(f"filter /{self.filter_text}/")
            self.query_one("#list-info", Static).update(" · ".join(parts))
            return
        parts = [f"{len(self.listed):,} of {total:,} kernels"]
        if not self.done:
            parts.append("loading…")
        hidden = "" if column.key in self.widths else " (a column too wide to show here)"
        parts.append(f"sorted by {column.title} {'▼' if self.sort_reverse else '▲'}{hidden}")
        if self.pattern is not None:
            parts.append(f"filter /{self.filter_text}/")
        self.query_one("#list-info", Static).update(" · ".join(parts))

    def _message(self, text: str = "", style: str = "") -> None:
        message = self.query_one("#list-message", Static)
        message.display = bool(text)
        message.update(Text(text, style=style))

    @on(DataTable.RowHighlighted, "#kernels")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._update_status()

    @on(DataTable.RowSelected, "#kernels")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.open_kernel(int(event.row_key.value))

    @on(DataTable.HeaderSelected, "#kernels")
    def _header_selected(self, event: DataTable.HeaderSelected) -> None:
        key = str(event.column_key.value)
        if key == self.sort_key:
            self.sort_reverse = not self.sort_reverse
        else:
            self.set_sort(key)
        self.resort()

    # -- actions ---------------------------------------------------------------------------
    def _sample_value(self, column: ColumnProvider, sort: bool = False) -> CellValue:
        """The column's first known value (its type decides alignment and sort direction)."""
        get = column.sort_value if sort else column.cell_value
        return next((v for s in self.state.summaries if (v := get(s)) is not None), None)

    def set_sort(self, key: str, reverse: bool | None = None) -> None:
        """Sort by column ``key``; numbers default to largest first, text to A→Z."""
        self.sort_key = key
        if reverse is None:
            sample = self._sample_value(self._column(key), sort=True)
            reverse = key != "id" and isinstance(sample, (int, float))
        self.sort_reverse = reverse

    def action_sort_next(self) -> None:
        """Sort by the next column on screen (one the width left out is skipped)."""
        keys = [c.key for c in self.shown_columns]
        position = keys.index(self.sort_key) if self.sort_key in keys else -1
        self.set_sort(keys[(position + 1) % len(keys)])
        self.resort()

    def action_sort_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self.resort()

    def _open_input(self, mode: str, value: str, placeholder: str) -> None:
        self.input_mode = mode
        field = self.query_one("#list-input", Input)
        field.restrict = r"[0-9]*" if mode == "jump" else None
        field.placeholder = placeholder
        field.value = value
        field.cursor_position = len(value)
        field.display = True
        field.focus()
        self.refresh_bindings()

    def _close_input(self) -> None:
        self.input_mode = None
        self.query_one("#list-input", Input).display = False
        self.table.focus()
        self.refresh_bindings()

    def action_filter(self) -> None:
        self._open_input(
            "filter", self.filter_text, "regex on the name, bottleneck or flag ids, e.g. gemm|dram"
        )

    def action_jump(self) -> None:
        self._open_input("jump", "", "kernel ID, then enter")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filter":
            return self.pattern is not None or self.input_mode is not None
        if action in ("sort_next", "sort_reverse"):
            return self.view == "launches"  # families are ranked by their total time
        return True

    def action_clear_filter(self) -> None:
        self._cancel_filter_timer()
        mode = self.input_mode
        if mode is not None:
            self._close_input()
        if mode != "jump":
            self.set_filter("")
        self._message()

    def set_filter(self, text: str) -> bool:
        """Filter by the regex ``text``; False (and a message) when it does not compile."""
        try:
            pattern = compile_filter(text)
        except re.error as exc:
            self._message(f"Invalid regular expression: {exc}", "bold red")
            return False
        self.filter_text, self.pattern = text, pattern
        self._message()
        self.rebuild()
        if self.view == "families":
            self.rebuild_families()
        self.refresh_bindings()
        return True

    @on(Input.Changed, "#list-input")
    def _input_changed(self, event: Input.Changed) -> None:
        if self.input_mode != "filter":
            return
        self._cancel_filter_timer()
        if len(self.state.summaries) <= INSTANT_FILTER_ROWS:
            self.set_filter(event.value)
        else:  # a long list: filter once typing pauses
            self._filter_timer = self.set_timer(
                FILTER_DELAY, lambda: self.set_filter(event.value)
            )

    @on(Input.Submitted, "#list-input")
    def _input_submitted(self, event: Input.Submitted) -> None:
        mode = self.input_mode
        self._close_input()
        if mode == "jump" and event.value:
            self.jump_to(int(event.value))
        elif mode == "filter" and self._cancel_filter_timer():
            self.set_filter(event.value)

    def _cancel_filter_timer(self) -> bool:
        """Stop a pending delayed filter; True if there was one."""
        timer, self._filter_timer = self._filter_timer, None
        if timer is not None:
            timer.stop()
        return timer is not None

    def jump_to(self, kernel_id: int) -> bool:
        """Highlight kernel ``kernel_id`` (clearing a filter that hides it; from the family
        view, in the launch list)."""
        if self.view == "families" and self.state.summary(kernel_id) is not None:
            self.action_toggle_families()
        if self.state.summary(kernel_id) is None:
            count = len(self.state.summaries)
            self._message(f"No kernel with ID {kernel_id} (IDs are 0–{count - 1}).", "bold red")
            return False
        if kernel_id not in self._index:
            self.set_filter("")
        self.table.move_cursor(row=self._index[kernel_id], animate=False)
        self._message()
        return True

    # -- detail navigation -----------------------------------------------------------------
    def action_baseline(self) -> None:
        kernel_id = self.highlighted_id()
        if kernel_id is not None:
            self.state.mark_baseline(kernel_id)

    def show_baseline(self, column: ColumnProvider | None) -> None:
        """Show ``column`` (the change against the baseline) and sort by it, or drop it."""
        self.columns = tuple(c for c in self.columns if c.key != BASELINE_KEY)
        if column is not None:
            self.columns = (*self.columns, column)
        self._numeric.pop(BASELINE_KEY, None)
        self._texts.clear()
        self._natural.clear()
        self._least.clear()
        self._cell_cache.clear()
        if column is not None:
            self.set_sort(BASELINE_KEY, reverse=False)
        elif self.sort_key == BASELINE_KEY:
            self.set_sort("id")
        if self.is_mounted:
            self.rebuild()

    def open_kernel(self, kernel_id: int, pane: str | None = None) -> None:
        """Open kernel ``kernel_id``'s detail; n/p there follow this list's order."""
        if kernel_id in self._index:
            self.table.move_cursor(row=self._index[kernel_id], animate=False)
        self.app.push_screen(
            KernelDetailScreen(self.state, kernel_id, order=self, pane=pane),
            callback=self._detail_closed,
        )

    def action_roofline(self) -> None:
        self.app.push_screen(RooflineScreen(self.state, self.highlighted_id()),
                             callback=self._detail_closed)

    def _detail_closed(self, kernel_id: int | None) -> None:
        if kernel_id is not None and kernel_id in self._index:
            self.table.move_cursor(row=self._index[kernel_id], animate=False)
        if kernel_id is not None and self.view == "families":
            keys = [row.key for row in self.family_rows]
            key = f"{LAUNCH_PREFIX}{kernel_id}"
            if key in keys:
                self.family_table.move_cursor(row=keys.index(key), animate=False)

    def neighbor(self, kernel_id: int, step: int) -> int | None:
        """The kernel ``step`` rows away in the list's order (report order if it is hidden)."""
        position = self._index.get(kernel_id)
        if position is None:
            other = kernel_id + step
            return other if self.state.summary(other) is not None else None
        target = position + step
        return self.listed[target].id if 0 <= target < len(self.listed) else None

    def position(self, kernel_id: int) -> tuple[int, int] | None:
        """(1-based row, rows) of the kernel in the list, None when it is filtered out."""
        position = self._index.get(kernel_id)
        return None if position is None else (position + 1, len(self.listed))

    def palette_commands(self) -> Iterator[Command]:
        for column in self.columns:
            yield Command(f"Sort kernels by {column.title}",
                          partial(self._sort_and_show, column.key), column.tooltip)
        if self.pattern is not None:
            yield Command("Clear the kernel filter", self.action_clear_filter)
        yield Command("Filter kernels by name (regex)", self.action_filter)

    def _sort_and_show(self, key: str) -> None:
        self.set_sort(key)
        self.resort()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker_failed(self, event)
