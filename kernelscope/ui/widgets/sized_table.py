"""The one table widget of every screen: a DataTable whose columns all have their widths
before it first paints, so no cell is ever drawn at its header's width.

Textual's DataTable (8.x) measures an auto-width column's cells only when its message queue
runs empty, and keeps each cell it drew under a key without the width: a paint between a fill
and that moment draws the column at its header's width and keeps it so ("breakd" for a
metric's name on the Raw page, "309." for "309.52 ms" on the ranks screen), as a loaded
machine shows now and then. So here a column is never added without a width: ``fill`` takes
each column's width as declared or, where none is, from the cells it is filled with.

Because every width is known, nothing is measured when rows come (``_update_dimensions``),
however many: the kernel list adds a thousand in batches while it loads. And DataTable draws
every cell on screen again after any change to the table, such as each batch of rows added
below the screen; this table keeps each drawn cell while the same cell object stays at the
same place, width and style (a ``fill`` included), so only the cells that changed are drawn
again, and rows added below the last one leave every line drawn before as it was
(``add_row_batch``).

A row may also come as a function that makes its cells (``LazyRow``): they are made when the
row is first drawn or read, so a thousand rows added below the screen make only the cells
drawn (the kernel list's rows, whose cells are worked out of each kernel's summary).

It reaches into DataTable's private state (pinned: ``textual>=8.2.8,<9``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, MutableMapping, Sequence
from itertools import zip_longest
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text, TextType
from textual._two_way_dict import TwoWayDict
from textual._types import SegmentLines
from textual.cache import LRUCache
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets._data_table import CellDoesNotExist, ColumnKey, DuplicateKey, Row, RowKey

if TYPE_CHECKING:
    from typing_extensions import Self

KEPT_CELLS = 4096
"""Drawn cells kept across changes of the table (a few screens' worth)."""

CellsMaker = Callable[[], Sequence[Text]]
TableRow = tuple[str | None, Sequence[Text] | CellsMaker]
"""A row to add: its key (None: one made up) and its cells, one line high, or the function
that makes them when the row is first drawn or read (``LazyRow``)."""


class LazyRow(MutableMapping[ColumnKey, Text | None]):
    """A row's cells by column, as DataTable holds a row, made by ``make`` when first read
    (drawn, or asked for by a key or a test) and kept from then on."""

    __slots__ = ("_cells", "_columns", "_make")

    def __init__(self, columns: Sequence[ColumnKey], make: CellsMaker) -> None:
        self._columns: Sequence[ColumnKey] | None = columns
        self._make: CellsMaker | None = make
        self._cells: dict[ColumnKey, Text | None] | None = None

    @property
    def made(self) -> bool:
        """Whether the cells have been made."""
        return self._cells is not None

    def _made(self) -> dict[ColumnKey, Text | None]:
        cells = self._cells
        if cells is None:
            assert self._columns is not None and self._make is not None
            made = self._make()
            if len(made) > len(self._columns):
                raise ValueError("More values provided than there are columns.")
            cells = self._cells = dict(zip_longest(self._columns, made))
            self._columns = self._make = None
        return cells

    def __getitem__(self, key: ColumnKey) -> Text | None:
        return self._made()[key]

    def get(self, key: ColumnKey, default: Any = None) -> Any:
        return self._made().get(key, default)

    def __setitem__(self, key: ColumnKey, value: Text | None) -> None:
        self._made()[key] = value

    def __delitem__(self, key: ColumnKey) -> None:
        del self._made()[key]

    def __iter__(self) -> Iterator[ColumnKey]:
        return iter(self._made())

    def __len__(self) -> int:
        return len(self._made())


class TableColumn(NamedTuple):
    """A column to fill a table with: its key, its header and its width in cells (None: the
    widest of its header and its cells)."""

    key: str
    label: Text
    width: int | None = None


def text_width(text: Text) -> int:
    """The cells ``text`` takes on its widest line."""
    return max(cell_len(line) for line in text.plain.split("\n"))


def column_widths(columns: Sequence[TableColumn],
                  rows: Sequence[tuple[str | None, Sequence[Text]]]) -> list[int]:
    """Each column's width: the declared one, else its widest header or cell."""
    widths = []
    for n, column in enumerate(columns):
        if column.width is not None:
            widths.append(column.width)
            continue
        cells = (cells[n] for _, cells in rows if n < len(cells))
        widths.append(max([text_width(column.label), *(text_width(c) for c in cells)]))
    return widths


class CellToDraw(NamedTuple):
    """Where DataTable draws a cell and how: its row and column, the style under it, its
    width, and whether the cursor or the mouse is on it (``DataTable._render_cell``'s
    arguments, in its order)."""

    row_index: int
    column_index: int
    base_style: Style
    width: int
    cursor: bool
    hover: bool


class SizedTable(DataTable[Text]):
    """A DataTable whose every column has a width before anything is drawn."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._kept_cells: LRUCache[tuple[object, ...], tuple[object, SegmentLines]] = (
            LRUCache(KEPT_CELLS)
        )  # (before DataTable's own set-up, which clears the caches)
        self._row_styles: dict[tuple[str, object], Style] = {}
        self._keep_drawn = False
        """Whether clearing the caches keeps the cells drawn (while ``clear`` runs)."""
        super().__init__(*args, **kwargs)

    # -- contents --------------------------------------------------------------------------
    def fill(self, columns: Sequence[TableColumn], rows: Iterable[TableRow]) -> None:
        """Show ``rows`` (``(key, cells)``, one line high) in ``columns`` instead of what the
        table holds, each column at its declared width or at its widest header or cell (a
        row given as the function that makes its cells is made now only where a column has
        no declared width: its cells are measured)."""
        rows = list(rows)
        declared = [column.width for column in columns]
        if None in declared:
            made = [(key, cells() if callable(cells) else cells) for key, cells in rows]
            widths, rows = column_widths(columns, made), made
        else:
            widths = [width for width in declared if width is not None]
        self.clear(columns=True)
        for column, width in zip(columns, widths, strict=True):
            self.add_column(column.label, key=column.key, width=width)
        self.add_row_batch(rows)

    def add_column(
        self,
        label: TextType,
        *,
        width: int | None = None,
        key: str | None = None,
        default: Text | None = None,
    ) -> ColumnKey:
        """DataTable's ``add_column``, refusing a column without a width (which DataTable
        would draw at its header's width until it is idle)."""
        if width is None:
            raise TypeError("a SizedTable column needs its width (fill measures the cells)")
        return super().add_column(label, width=width, key=key, default=default)

    def add_row_batch(self, rows: Iterable[TableRow]) -> None:
        """Add ``(key, cells)`` rows at the bottom, each one line high, as ``add_row`` does
        one by one, but with the cursor and the table's bookkeeping settled once for the
        batch (``add_row`` assigns the cursor, a reactive with its watchers, for each row),
        and without drawing again the lines already drawn. A row's cells given as a
        function are made when the row is first drawn or read (``LazyRow``)."""
        columns = self.ordered_columns
        keys = [column.key for column in columns]
        data: dict[RowKey, Any] = self._data
        locations, held = self._row_locations, self.rows
        had_rows = self.row_count > 0
        added = False
        for key, cells in rows:
            row_key = RowKey(key)
            if row_key in locations:
                raise DuplicateKey(f"The row key {row_key!r} already exists.")
            if callable(cells):
                data[row_key] = LazyRow(keys, cells)
            elif len(cells) > len(columns):
                raise ValueError("More values provided than there are columns.")
            else:
                data[row_key] = dict(zip_longest(keys, cells))
            locations[row_key] = len(held)
            held[row_key] = Row(row_key, 1)
            self._new_rows.add(row_key)
            added = True
        if not added:
            return
        self._require_update_dimensions = True
        self.cursor_coordinate = self.cursor_coordinate
        if not had_rows and self.columns and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()  # a cell is under the cursor now
        # Rows below the last one change no line drawn before: the lines DataTable keeps
        # (under its count of updates, which add_row bumps) stay valid, so the lines on
        # screen are not drawn again for each batch added below them; only the rows'
        # offsets (kept under that count) are worked out again.
        self._offset_cache.clear()
        self.check_idle()

    def update_column(self, column_key: str, cell_of: Callable[[str], Text]) -> None:
        """Write column ``column_key``'s cell of each row whose cells are made, as
        ``cell_of(row key)`` gives it, the column keeping its width: ``update_cell`` for each,
        but with the table updated once for all of them (``update_cell`` asks to draw the
        table again after each). A row whose cells are not made yet is left to make them
        (its function is to give the cell as it is then: ``LazyRow``)."""
        column = ColumnKey(column_key)
        if column not in self._column_locations:
            raise CellDoesNotExist(f"No column exists for column_key={column_key!r}.")
        data: dict[RowKey, Any] = self._data
        for row_key, row in data.items():
            if not isinstance(row, LazyRow) or row.made:
                row[column] = cell_of(str(row_key.value))
        self._update_count += 1
        self.refresh()

    def order_rows(self, position: Callable[[str], int]) -> None:
        """Put the rows in the order of ``position(row key)`` (DataTable's ``sort`` reads
        every row's cells, which would make every row's cells here)."""
        ordered = sorted(self._data, key=lambda key: position(str(key.value)))
        self._row_locations = TwoWayDict({key: index for index, key in enumerate(ordered)})
        self._update_count += 1
        self.refresh()

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """The scrollable size, from the columns' widths: nothing to measure (DataTable
        measures every cell of every new row, the costliest part of a thousand rows)."""
        rows = self.rows
        if any(column.auto_width for column in self.columns.values()) or any(
            row.label is not None or row.auto_height
            for row in (rows.get(key) for key in new_rows) if row is not None
        ):
            super()._update_dimensions(new_rows)
            return
        width = sum(column.get_render_width(self) for column in self.columns.values())
        header = self.header_height if self.show_header else 0
        size = Size(width + self._row_label_column_width, self._total_row_height + header)
        if self.show_vertical_scrollbar and size.width == self.virtual_size.width and (
                size.height >= self.virtual_size.height):
            # Rows added below a table that scrolls already: only the scrollbar's extent
            # changes, not where any widget goes, so the screen is not laid out again (which
            # setting ``virtual_size`` does: ~8 ms of the UI thread each batch a list loads).
            self.set_reactive(SizedTable.virtual_size, size)
            self._scroll_update(size)
            return
        self.virtual_size = size

    # -- drawing ---------------------------------------------------------------------------
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
        lines = self._draw_cell(value, CellToDraw(row_index, column_index, base_style, width,
                                                  cursor, hover))
        self._kept_cells[place] = (value, lines)
        return lines

    def _draw_cell(self, value: object, cell: CellToDraw) -> SegmentLines:
        """The lines of cell ``value`` at ``cell``, not kept yet: DataTable's (a table may
        draw its cells more cheaply)."""
        return super()._render_cell(*cell)

    def _get_row_style(self, row_index: int, base_style: Style) -> Style:
        """The row's style (the header's, a fixed row's, or a zebra stripe's), kept until the
        styles change: DataTable computes it from the CSS for every line it draws, and each
        batch of rows added while a list loads draws every line on screen again."""
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

    def clear(self, columns: bool = False) -> Self:
        """DataTable's ``clear``, keeping the cells drawn (``_render_cell``): a value that
        comes back to the same place, width and style when the table is filled again is not
        drawn again (the kernel list fills its table again as it completes, with the same
        ``Text`` for a cell that did not change: ``CellTexts``)."""
        self._keep_drawn = True
        try:
            return super().clear(columns)
        finally:
            self._keep_drawn = False

    def _clear_caches(self) -> None:
        super()._clear_caches()
        if not self._keep_drawn:
            self._kept_cells.clear()
        self._row_styles.clear()

    def notify_style_update(self) -> None:
        self._kept_cells.clear()
        self._row_styles.clear()
        super().notify_style_update()
