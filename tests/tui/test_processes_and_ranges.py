"""The kernel list of a multi-process report shows each kernel's process and filters on it;
range-replay results are listed under their ranges."""

from __future__ import annotations

from textual.widgets import DataTable

from kernelscope.tui.app import create_app
from tests.conftest import NCU_SAMPLES
from tests.ncu.oracle import load_raw

from .helpers import screen_text, settle


def _ids(app) -> list[int]:
    table = app.screen.query_one(DataTable)
    return [int(str(table.get_row_at(i)[0])) for i in range(table.row_count)]


async def test_process_column_filter_and_launch_shapes() -> None:
    """The process column and a filter on it; launches of one name told apart by their
    launch shape in the list, and in the families view alike."""
    raw = load_raw("multi_process")
    app = create_app(NCU_SAMPLES / "multi_process.ncu-rep.xz")
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        assert "process" in table.columns
        pid = max(int(r["Process ID"]) for r in raw.rows.values())
        text = screen_text(app)
        assert f"multi_process ({pid})" in text
        assert "mp_scale [grid 4096×1×1]" in text and "mp_saxpy [grid 8192×1×1]" in text
        await pilot.press("slash", *f"({pid})", "enter")
        assert _ids(app) == [i for i, r in raw.rows.items() if int(r["Process ID"]) == pid]
        await pilot.press("escape", "f")  # the filter cleared; the families view
        await settle(pilot)
        assert "mp_scale [grid 8192×1×1]" in screen_text(app)


async def test_single_process_report_has_no_process_column() -> None:
    app = create_app(NCU_SAMPLES / "zoo_a.ncu-rep.xz")
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        assert "process" not in app.screen.query_one(DataTable).columns


async def test_ranges_are_listed_by_name() -> None:
    app = create_app(NCU_SAMPLES / "range_nvtx.ncu-rep.xz")
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "range<phase_a>" in text and "range<phase_b>" in text
