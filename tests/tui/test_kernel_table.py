"""The kernel list's table draws each cell itself (cheaper than rich's layout): the same
segments, styles and mouse metadata as DataTable draws them, for every cell on screen, with
and without the cursor or the mouse over it."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.style import Style
from rich.text import Text
from textual.widgets import DataTable

from kernelscope.kinds.ncu.screens.kernel_list import KernelListScreen
from kernelscope.kinds.ncu.screens.kernel_list_table import KernelTable
from kernelscope.tui.app import create_app
from kernelscope.ui.widgets.sized_table import CellToDraw

from .helpers import SAMPLES, Takes


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
