"""The kernel list's table: a DataTable whose columns all have the widths the list's view
planned (``KernelListView.lay_out``), so nothing in it is measured."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import zip_longest
from typing import Any

from rich.style import Style
from rich.text import Text
from textual._types import SegmentLines
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets._data_table import DuplicateKey, Row, RowKey

KEPT_CELLS = 4096
"""Drawn cells kept across changes of the table (a few screens' worth)."""


class KernelTable(DataTable[Text]):
    """The kernel list's table; enter (or a click on the highlighted row) opens a kernel.

    Every column is added with its width and every row is one line high, so the cells need
    no measuring: DataTable measures each cell of each new row with Rich (the costliest part
    of showing a thousand kernels, on the thread that also reads them), and only an
    auto-width column or an auto-height row would use what it measured.

    DataTable also draws every cell on screen again after any change to the table, such as
    each batch of rows added below the screen while the list loads; this table keeps each
    drawn cell for as long as the same cell object is shown at the same place in the same
    style, so only the cells that changed are drawn again."""

    BINDINGS = [
        Binding(
            "enter", "select_cursor", "Open", id="list.open",
            tooltip="Open the highlighted kernel (clicking a highlighted row does too).",
        ),
        # Textual reads every terminal's Home and End (xterm's ESC [H, tmux's and the
        # console's ESC [1~ and ESC [4~, rxvt's ESC [7~ and ESC [8~) as home and end; a
        # DataTable binds them to sideways scrolling, which a row list does not need.
        Binding("home", "scroll_top", "First", show=False, id="list.first",
                tooltip="Go to the first kernel."),
        Binding("end", "scroll_bottom", "Last", show=False, id="list.last",
                tooltip="Go to the last kernel."),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._kept_cells: LRUCache[tuple[object, ...], tuple[object, SegmentLines]] = (
            LRUCache(KEPT_CELLS)
        )  # (before DataTable's own set-up, which clears the caches)
        self._row_styles: dict[tuple[str, object], Style] = {}
        super().__init__(*args, **kwargs)

    def add_row_batch(self, rows: Iterable[tuple[str, Sequence[Text]]]) -> None:
        """Add ``(key, cells)`` rows at the bottom, each one line high, as ``add_row`` does
        one by one, but with the cursor and the table's bookkeeping settled once for the
        batch (``add_row`` assigns the cursor, a reactive with its watchers, for each row)."""
        columns = self.ordered_columns
        had_rows = self.row_count > 0
        added = False
        for key, cells in rows:
            row_key = RowKey(key)
            if row_key in self._row_locations:
                raise DuplicateKey(f"The row key {row_key!r} already exists.")
            if len(cells) > len(columns):
                raise ValueError("More values provided than there are columns.")
            self._row_locations[row_key] = self.row_count
            self._data[row_key] = {
                column.key: cell for column, cell in zip_longest(columns, cells)
            }
            self.rows[row_key] = Row(row_key, 1)
            self._new_rows.add(row_key)
            added = True
        if not added:
            return
        self._require_update_dimensions = True
        self.cursor_coordinate = self.cursor_coordinate
        if not had_rows and self.columns and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()  # a cell is under the cursor now
        self._update_count += 1
        self.check_idle()

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> SegmentLines:
        if row_index < 0 or column_index < 0:  # the header, the row labels
            return super()._render_cell(row_index, column_index, base_style, width, cursor,
                                        hover)
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        row = self.rows.get(row_key) if row_key is not None else None
        if row is None or column_key is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor,
                                        hover)
        value = self._data[row.key].get(column_key)
        place = (row_index, column_index, id(value), base_style, width, cursor, hover,
                 self._show_hover_cursor, self._pseudo_class_state, row.height)
        kept = self._kept_cells.get(place)
        if kept is not None and kept[0] is value:
            return kept[1]
        lines = super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        self._kept_cells[place] = (value, lines)
        return lines

    def _get_row_style(self, row_index: int, base_style: Style) -> Style:
        """The row's style (the header's, a fixed row's, or a zebra stripe's), kept until the
        styles change: DataTable computes it from the CSS for every line it draws, and each
        batch of rows added while the list loads draws every line on screen again."""
        if row_index == -1:
            kind = "header"
        elif row_index < self.fixed_rows:
            kind = "fixed"
        elif self.zebra_stripes:
            kind = "odd" if row_index % 2 else "even"
        else:
            return base_style
        key = (kind, self._pseudo_class_state)
        style = self._row_styles.get(key)
        if style is None:
            style = self._row_styles[key] = super()._get_row_style(row_index, base_style)
        return style

    def _clear_caches(self) -> None:
        super()._clear_caches()
        self._kept_cells.clear()
        self._row_styles.clear()

    def notify_style_update(self) -> None:
        self._kept_cells.clear()
        self._row_styles.clear()
        super().notify_style_update()

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        rows = self.rows
        if any(column.auto_width for column in self.columns.values()) or any(
            row.label is not None or row.auto_height
            for row in (rows.get(key) for key in new_rows) if row is not None
        ):
            super()._update_dimensions(new_rows)
            return
        width = sum(column.get_render_width(self) for column in self.columns.values())
        header = self.header_height if self.show_header else 0
        self.virtual_size = Size(width + self._row_label_column_width,
                                 self._total_row_height + header)
