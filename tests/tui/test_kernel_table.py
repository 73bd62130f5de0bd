"""The kernel list's table draws each cell itself (cheaper than rich's layout): the same
segments, styles and mouse metadata as DataTable draws them, for every cell on screen, with
and without the cursor or the mouse over it."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.style import Style
from rich.text import Text
from textual.widgets import DataTable
from textual.widgets._data_table import ColumnKey

from kernelscope.kinds.ncu.screens.kernel_list import KernelListScreen
from kernelscope.kinds.ncu.screens.kernel_list_table import KernelTable
from kernelscope.tui.app import create_app
from kernelscope.ui.widgets.sized_table import CellToDraw, LazyRow

from .helpers import SAMPLES, Takes, pending_done_now, screen_text


@pytest.mark.parametrize(("report", "size"), [
    (None, (120, 36)),  # the bundled zoo: every severity's style in the top flag column
    (SAMPLES / "ncu" / "torch_ops.ncu-rep.xz", (80, 24)),  # names and flags cut to fit
])
async def test_cells_drawn_as_datatable_draws_them(report: Path | None, size: tuple[int, int],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    takes = Takes(monkeypatch)
    app = create_app(report) if report is not None else create_app()
    async with app.run_test(size=size):
        await takes.until(lambda: isinstance(app.screen, KernelListScreen) and app.screen.done)
        assert isinstance(app.screen, KernelListScreen)
        table = app.screen.query_one(KernelTable)
        base = Style(color="white", bgcolor="black")
        rows = min(table.row_count, size[1])
        compared = 0
        for row in range(rows):
            key = table._row_locations.get_key(row)
            for column_index, column in enumerate(table.ordered_columns):
                value = table._data[key][column.key]
                assert isinstance(value, Text) and not value.spans  # (drawn by the table)
                width = column.get_render_width(table)
                for cursor, hover in ((False, False), (True, False), (False, True)):
                    cell = CellToDraw(row, column_index, base, width, cursor, hover)
                    assert table._draw_cell(value, cell) == DataTable._render_cell(table, *cell)
                    compared += 1
        assert rows >= 6 and compared == 3 * rows * len(table.columns) > 0


def test_a_lazy_row_makes_its_cells_once_when_first_read() -> None:
    """A row given as a function is made when first read, once, into the columns in order (a
    column past the cells reads None, as DataTable pads a short row)."""
    calls = []

    def make() -> list[Text]:
        calls.append(1)
        return [Text("7"), Text("gemm")]

    columns = [ColumnKey("id"), ColumnKey("name"), ColumnKey("flags")]
    row = LazyRow(columns, make)
    assert not row.made and calls == []
    assert row[ColumnKey("name")] == Text("gemm") and row.get(ColumnKey("flags")) is None
    assert list(row) == columns and len(row) == 3 and row.made and calls == [1]
    row[ColumnKey("flags")] = Text("1✖")
    assert row[ColumnKey("flags")] == Text("1✖") and calls == [1]
    with pytest.raises(ValueError, match="More values"):
        LazyRow(columns[:1], make)[ColumnKey("id")]


async def test_rows_below_the_screen_are_made_when_drawn(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """The list's table makes a row's cells when it first draws the row: of 151 kernels in
    24 lines, the rows on screen; scrolled to the end, the last rows, which then show their
    kernels' IDs."""
    takes = Takes(monkeypatch)
    app = create_app(SAMPLES / "ncu" / "small_family.ncu-rep.xz")
    async with app.run_test(size=(120, 24)) as pilot:
        await takes.until(lambda: isinstance(app.screen, KernelListScreen) and app.screen.done)
        assert isinstance(app.screen, KernelListScreen)
        listed = app.screen.rows.listed
        table = app.screen.query_one(KernelTable)
        on_screen = table.size.height - 1  # (the header's line)
        screen_text(app)  # (draws the screen)
        made = [n for n in range(table.row_count)
                if table._data[table._row_locations.get_key(n)].made]
        assert len(listed) == 151 and made == list(range(on_screen))
        await pilot.press("end")
        lines = screen_text(app).splitlines()
        assert table._data[table._row_locations.get_key(150)].made
        last = next(line for line in reversed(lines) if line.split()[:1] == [str(listed[-1].id)])
        assert last.split()[1:2] == [app.screen.rows.cells(listed[-1])[1].text.split()[0]]


async def test_rows_added_below_a_scrolling_table_extend_its_scrollbar() -> None:
    """Rows added below a table that scrolls already change only its scrollable height (the
    screen is not laid out again for them): the scrollbar spans every row, and the last row
    is reached by moving the cursor to it."""
    from textual.app import App, ComposeResult

    from kernelscope.ui.widgets.sized_table import SizedTable, TableColumn

    def rows(numbers: range) -> list[tuple[str, list[Text]]]:
        return [(str(n), [Text(f"row {n}")]) for n in numbers]

    class OneTable(App[None]):
        def compose(self) -> ComposeResult:
            yield SizedTable(cursor_type="row")

    app = OneTable()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(SizedTable)
        table.fill([TableColumn("n", Text("Rows"), 12)], rows(range(40)))
        await pending_done_now(pilot)
        assert table.show_vertical_scrollbar and table.virtual_size.height == 41
        table.add_row_batch(rows(range(40, 100)))
        await pending_done_now(pilot)
        assert table.virtual_size.height == 101  # the header and a hundred rows
        assert table.vertical_scrollbar.window_virtual_size == 101
        table.move_cursor(row=99)
        await pending_done_now(pilot)
        assert table.scroll_y == table.max_scroll_y == 101 - table.size.height
        assert "row 99" in screen_text(app)


async def test_a_table_filled_again_draws_only_the_cells_that_changed() -> None:
    """Filled again with the same cell objects in the same places (and one new), the table
    draws again only the new cell, and shows what a table drawn afresh shows."""
    from textual.app import App, ComposeResult

    from kernelscope.ui.widgets.sized_table import SizedTable, TableColumn

    class CountingTable(SizedTable):
        drawn = 0

        def _draw_cell(self, value: object, cell: CellToDraw) -> list[list[object]]:  # type: ignore[override]
            self.drawn += 1
            return super()._draw_cell(value, cell)  # type: ignore[return-value]

    class OneTable(App[None]):
        def compose(self) -> ComposeResult:
            yield CountingTable(cursor_type="row")

    columns = [TableColumn("n", Text("Row"), 8), TableColumn("v", Text("Value"), 10)]
    cells = [[Text(f"row {n}"), Text(f"{n * 1.5:.1f}")] for n in range(5)]
    app = OneTable()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(CountingTable)
        table.fill(columns, [(str(n), row) for n, row in enumerate(cells)])
        await pending_done_now(pilot)
        assert table.drawn == 10 and "row 4" in screen_text(app)
        cells[2][1] = Text("changed")
        table.drawn = 0
        table.fill(columns, [(str(n), row) for n, row in enumerate(cells)])
        await pending_done_now(pilot)
        shown = screen_text(app)
        assert table.drawn == 1 and "changed" in shown
        table.notify_style_update()  # (every cell drawn again)
        await pending_done_now(pilot)
        assert table.drawn == 11 and screen_text(app) == shown
