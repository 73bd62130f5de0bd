"""Keys as terminals send them, and the kernel list's and detail's chrome at 80 and 120
columns: Home/End move through the list (tmux sends ESC [1~ and ESC [4~), escape on a
filtered Raw page clears the filter before it leaves the kernel, the footer shows every key
at 120 columns, the detail header keeps its position at 80."""

from __future__ import annotations

from textual._xterm_parser import XTermParser
from textual.events import Key
from textual.widgets import DataTable, Input

from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.kinds.ncu.screens.kernel_list import KernelListScreen
from kernelscope.tui.app import create_app

from .helpers import SAMPLES, screen_text, settle
from .test_kernel_detail import open_detail

THRUST = SAMPLES / "ncu" / "thrust_lambdas.ncu-rep.xz"


def test_tmux_home_and_end_are_the_home_and_end_keys() -> None:
    keys = [event.key for event in XTermParser().feed("\x1b[1~\x1b[4~")
            if isinstance(event, Key)]
    assert keys == ["home", "end"]


async def test_escape_on_a_filtered_raw_page_clears_the_filter_first() -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot, 4, "8")
        table = screen.query_one("#raw-table", DataTable)
        every = table.row_count
        await pilot.press("slash", *"^dram__")  # the pane refills as each key lands
        field = screen.query_one("#raw-filter", Input)
        assert app.focused is field and field.value == "^dram__"
        assert "matching /^dram__/" in screen_text(app) and 0 < table.row_count < every
        await pilot.press("enter")  # back in the table, the filter kept
        assert app.focused is table and field.value == "^dram__"
        await pilot.press("escape")
        assert app.screen is screen and field.value == ""
        assert "matching" not in screen_text(app)
        assert table.row_count == every and app.focused is table
        await pilot.press("escape")
        assert isinstance(app.screen, KernelListScreen)


async def test_the_footer_holds_every_key_at_120_columns() -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"sa", "enter")
        footer = screen_text(app).splitlines()[-1]
        for key in ("Open", "Filter", "Go to ID", "Sort", "Clear filter", "Roofline",
                    "Baseline", "Families", "Quit", "Help", "Export", "palette"):
            assert key in footer, key


async def test_home_end_and_the_detail_header_at_80_columns() -> None:
    """Home and End go to the first and last kernel; the detail header keeps its place."""
    app = create_app(THRUST)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1 == 12
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("g", "3", "enter", "enter")
        await settle(pilot)
        assert isinstance(app.screen, KernelDetailScreen)
        lines = screen_text(app).splitlines()
        assert lines[0].startswith(" Kernel 3 (4 of 13) ")
        assert lines[1].startswith(" grid 8192 × block 256 · ")
