"""The kernel list's table: the shared ``SizedTable`` (every column at the width the list's
view planned, ``KernelListView.lay_out``; rows added in batches while the list loads) with
the list's key."""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual._types import SegmentLines
from textual.binding import Binding

from kernelscope.kinds.ncu.screens.kernel_list_view import Cell
from kernelscope.ui.widgets.sized_table import CellToDraw, SizedTable

NO_STYLE = Style()


class CellTexts:
    """The list's cells as its table holds them: one ``Text`` per distinct ``Cell``, kept
    across a rebuild, so that the table keeps what it drew of a cell left in place (it makes
    a row when it first draws the row: ``LazyRow``, so a row made after a rebuild takes the
    ``Text`` of a cell drawn before it)."""

    def __init__(self) -> None:
        self._made: dict[Cell, Text] = {}
        self._before: dict[Cell, Text] = {}

    def row(self, cells: list[Cell]) -> list[Text]:
        """The ``Text`` of each of ``cells``."""
        made, before, out = self._made, self._before, []
        for cell in cells:
            text = made.get(cell)
            if text is None:
                text = before.get(cell)
                if text is None:
                    text = Text(cell.text, no_wrap=True, style=cell.style)
                made[cell] = text
            out.append(text)
        return out

    def rebuilt(self) -> None:
        """The table is filled again: the cells made so far are kept until the next fill."""
        self._before, self._made = self._made, {}


class KernelTable(SizedTable):
    """The kernel list's table; enter (or a click on the highlighted row) opens a kernel."""

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

    def _draw_cell(self, value: object, cell: CellToDraw) -> SegmentLines:
        """A cell of one style and one line that fits its column (every cell the list
        makes; its rows are one line high) as the segments DataTable would draw, without
        rich laying it out: the text in the table's, the cell's and the cursor's styles,
        then the blanks to the column's width (DataTable's way took about a quarter of the
        list's first paint, ~0.07 ms a cell)."""
        row_index, column_index, base_style, width, cursor, hover = cell
        if not (isinstance(value, Text) and not value.spans and self.cell_padding == 0
                and "\n" not in value.plain and cell_len(value.plain) <= width):
            return super()._draw_cell(value, cell)
        component_style, post_style = self._get_styles_to_render_cell(
            False, False, row_index < self.fixed_rows or column_index < self.fixed_columns,
            hover, cursor, self.show_cursor, self._show_hover_cursor,
            self.cursor_foreground_priority == "css", self.cursor_background_priority == "css",
        )
        base = base_style + Style.from_meta({"row": row_index, "column": column_index})
        pre = base + component_style
        style = value.style
        text_style = self.app.console.get_style(style) if isinstance(style, str) else style
        plain = value.plain
        line = [Segment(plain, pre + text_style + post_style)]
        blanks = width - cell_len(plain)
        if blanks:
            line.append(Segment(" " * blanks, pre + NO_STYLE + post_style))
        return [line]
