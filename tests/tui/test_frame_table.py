"""FrameTable (the sortable tables of the timeline and ranks screens): its columns fit the
width the table finally gets, whenever it was filled; narrow tables drop their least useful
columns before the name; kernel names are short, apart and whole where they fit; ``s`` sorts
only by columns on screen."""

from __future__ import annotations

import polars as pl
from textual.app import App, ComposeResult

from kernelscope.timeline.screens.widgets.timeline_table import Column, FrameTable, FrameView

from .helpers import drawn, resized

NAMES = [
    "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, "
    "float, float, at::native::binary_internal::MulFunctor<float>>, std::array<char *, 2>>"
    "(int, T2, T3)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, "
    "float, float, at::native::binary_internal::DivFunctor<float>>, std::array<char *, 2>>"
    "(int, T2, T3)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>>(T3)",
]


def frame() -> pl.DataFrame:
    return pl.DataFrame({
        "total": [3_000_000, 2_000_000, 1_000_000],
        "count": [30, 20, 10],
        "stddev": [123_456.7, 23_456.7, 3_456.7],
        "name": NAMES,
    })


COLUMNS = [
    Column("total", "Total Time (ns)", lambda v: f"{v:,}"),
    Column("count", "Instances", str),
    Column("stddev", "StdDev (ns)", lambda v: f"{v:,.1f}", priority=1),
    Column("name", "Name", str, numeric=False, flex=True, kernel_names=True),
]


class EarlyFill(App[None]):
    """Fills its table before the first layout (as a screen does whose data came first)."""

    def compose(self) -> ComposeResult:
        view = FrameView("", COLUMNS, sort="total", id="view", table_id="table")
        view.set_frame(frame())
        yield view


def cells(table: FrameTable) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def titles(table: FrameTable) -> list[str]:
    return [str(c.label) for c in table.ordered_columns]


async def test_filled_before_layout_fits_the_final_width() -> None:
    app = EarlyFill()
    async with app.run_test(size=(120, 20)) as pilot:
        await drawn(pilot)
        table = app.query_one("#table", FrameTable)
        assert titles(table) == ["Total Time (ns) ▼", "Instances", "StdDev (ns)", "Name"]
        assert [row[-1] for row in cells(table)] == [
            "vectorized_elementwise<AUnaryFunctor<MulFunctor<float>>>",
            "vectorized_elementwise<AUnaryFunctor<DivFunctor<float>>>",
            "reduce<ReduceOp>",
        ]


async def test_narrow_table_drops_a_column_before_cutting_names_alike() -> None:
    app = EarlyFill()
    async with app.run_test(size=(60, 20)) as pilot:
        await drawn(pilot)
        table = app.query_one("#table", FrameTable)
        assert titles(table) == ["Total Time (ns) ▼", "Instances", "Name"]
        names = [row[-1] for row in cells(table)]
        assert len(set(names)) == 3
        assert names[2] == "reduce<ReduceOp>"


async def test_resize_refits_the_name_column() -> None:
    app = EarlyFill()
    async with app.run_test(size=(60, 20)) as pilot:
        await drawn(pilot)
        await resized(pilot, 120, 20)
        table = app.query_one("#table", FrameTable)
        assert "StdDev (ns)" in titles(table)
        assert cells(table)[0][-1] == (
            "vectorized_elementwise<AUnaryFunctor<MulFunctor<float>>>")


async def test_sort_steps_through_shown_columns_only() -> None:
    app = EarlyFill()
    async with app.run_test(size=(60, 20)) as pilot:
        await drawn(pilot)
        table = app.query_one("#table", FrameTable)
        table.focus()
        await pilot.press("s")
        await pilot.press("s")
        assert table.sort_title == "Name"
        assert "sorted by Name ▲" in str(app.query_one("#view .frame-status").render())


class LateFill(App[None]):
    def compose(self) -> ComposeResult:
        yield FrameView("", [Column("total", "T", lambda v: f"{v:,}"),
                             Column("name", "Name", str, numeric=False, flex=True)],
                        sort="total", id="view", table_id="table")


async def test_cells_painted_before_the_table_measured_them_stay_whole() -> None:
    """DataTable measures new cells only when idle, and keeps the cells it painted before at
    their header's width: a paint between the fill and that moment cut ``3,000,000`` to
    ``3,0`` (the flaky ranks snapshot's ``309.``). FrameTable gives every column its width."""
    app = LateFill()
    async with app.run_test(size=(60, 10)) as pilot:
        await drawn(pilot)
        table = app.query_one("#table", FrameTable)
        app.query_one("#view", FrameView).set_frame(frame())
        for y in range(table.size.height):
            table.render_line(y)  # a paint before the table's idle handler ran
        await drawn(pilot)  # (and the Resize its draw sent)
        first = [str(seg.text) for seg in table.render_line(1)]
        assert "3,000,000" in "".join(first)
