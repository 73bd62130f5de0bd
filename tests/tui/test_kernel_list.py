"""The kernel list: loading, columns, sort, filter, jump and opening a kernel."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from rich.text import Text
from textual.widgets import DataTable, Input, Static

from kernelscope.kinds.ncu.model import NcuReport
from kernelscope.kinds.ncu.screens import kernel_session
from kernelscope.kinds.ncu.screens.columns import ColumnProvider
from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.kinds.ncu.screens.kernel_list import KernelListScreen
from kernelscope.tui.app import create_app

from .helpers import SAMPLES, Takes, batches_by_hand, drawn, screen_text, settle


def shown_ids(app) -> list[int]:
    """The kernel IDs in the table's first column, top to bottom, as displayed."""
    table = app.screen.query_one(DataTable)
    return [int(str(table.get_row_at(i)[0]).strip()) for i in range(table.row_count)]


ZOO_A_CELLS = [  # ID, Kernel, Duration, SM %: as the list prints zoo_a (literals, not formatters)
    (0, "saxpy_f4", "182.59 us", "11.23"),
    (1, "strided_gather", "1.18 ms", "7.67"),
    (2, "mm_naive", "3.17 ms", "64.73"),
    (3, "mm_tiled<32>", "1.84 ms", "76.40"),
    (4, "transpose_sm<0>", "327.71 us", "11.05"),
    (5, "transpose_sm<1>", "143.74 us", "25.79"),
]


def shown_line(app, selector: str) -> str:
    """The text of the line ``selector`` of the screen (a ``Static`` below the table)."""
    content = app.screen.query_one(selector, Static).content
    return content.plain if isinstance(content, Text) else str(content)


def cell(app, row: int, column: str) -> str:
    table = app.screen.query_one(DataTable)
    return str(table.get_cell_at((row, table.get_column_index(column)))).strip()


async def test_list_shows_every_kernel(zoo_rows) -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, KernelListScreen)
        assert shown_ids(app) == [row["id"] for row in zoo_rows] == [0, 1, 2, 3, 4, 5]
        text = screen_text(app)
        for i, (_, name, duration, sm_pct) in enumerate(ZOO_A_CELLS):
            assert cell(app, i, "name") == name
            assert cell(app, i, "duration") == duration
            assert cell(app, i, "sm_pct") == sm_pct
            assert duration in text
        assert f"{len(zoo_rows)} of {len(zoo_rows)} kernels" in text
        # The status line shows the highlighted kernel's full demangled name.
        assert str(zoo_rows[0]["demangled"]) in text
        await pilot.press("down")
        assert str(zoo_rows[1]["demangled"]) in screen_text(app)


async def test_rows_arrive_batch_by_batch(monkeypatch) -> None:
    """Each batch is shown as it comes (in ID order, whatever order batches arrive in),
    with 'loaded N of M' and a progress bar."""
    gate, held = threading.Event(), threading.Event()

    def plan(report, items):  # type: ignore[no-untyped-def]
        # Out of ID order, as batches from several reader processes arrive.
        yield items([1])
        yield items([0])
        held.set()
        gate.wait(120)  # the test opens it; the timeout only frees a failed test
        rest = list(range(2, report.kernel_count))
        yield items(reversed(rest[:2]))
        yield items(rest[2:])

    batches_by_hand(monkeypatch, plan)
    takes = Takes(monkeypatch)
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        try:
            await _two_batches_then_the_rest(app, pilot, takes, (held, gate))
        finally:
            gate.set()  # (a failed test frees the reading worker)


async def _two_batches_then_the_rest(app, pilot, takes, events) -> None:  # type: ignore[no-untyped-def]
    """The steps of the test above once the app runs."""
    held, gate = events
    # The two batches handed over (the rest held back until gate.set()): the worker has asked
    # the UI thread to take them, which it does once it handles its messages.
    await asyncio.get_running_loop().run_in_executor(None, held.wait, 120)
    await takes.until(lambda: len(app.session.summaries) >= 2)
    assert isinstance(app.screen, KernelListScreen)
    assert len(app.session.summaries) == 2
    assert shown_ids(app) == [0, 1]
    # (the lines' words, not the screen: the screen lays the lines out again when it next
    # refreshes, which no message of the app says has happened)
    assert shown_line(app, "#progress-text") == "loaded 2 of 6 kernels"
    assert shown_line(app, "#list-info") == "2 of 2 kernels · loading… · sorted by ID ▲"
    assert app.screen.query_one("#list-progress").display
    gate.set()
    screen = app.screen
    await takes.until(lambda: screen.done)  # the worker's last request: its take, then the end
    assert shown_ids(app) == [0, 1, 2, 3, 4, 5]
    assert not app.screen.query_one("#list-progress").display
    assert "6 of 6 kernels · sorted by ID ▲" in shown_line(app, "#list-info")
    assert "loading…" not in shown_line(app, "#list-info")


def drawn_rows(app) -> list[str]:
    """The table's rows as drawn on the terminal (below the title and the header)."""
    table = app.screen.query_one(DataTable)
    return [line.strip() for line in screen_text(app).splitlines()[2:2 + table.row_count]]


async def test_sort_keys_header_click_and_the_rows_drawn(zoo_rows) -> None:
    """Sorting, and what is drawn, not only the table's data: the table keeps a drawn cell
    only while the same cell is at the same place, so moved rows and the shares written in
    place once every kernel is loaded are drawn again."""
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert drawn_rows(app)[2] == (
            "2 mm_naive           3.17 ms     46.33  64.73     0.30   97.87 l1-bound"
            "             ⚠ l1tex-pressure"
        )
        await pilot.press("s")  # ID -> Name, A to Z
        assert shown_ids(app) == [2, 3, 0, 1, 4, 5]  # mm_naive, mm_tiled<32>, saxpy_f4, …
        assert "sorted by Kernel ▲" in screen_text(app)
        await pilot.press("s")  # Duration, longest first
        by_duration = sorted(zoo_rows, key=lambda r: -float(r["duration_ns"]))
        assert shown_ids(app) == [r["id"] for r in by_duration]
        rows = drawn_rows(app)
        assert [row.split()[0] for row in rows] == ["2", "3", "1", "4", "0", "5"]
        assert rows[4] == (
            "0 saxpy_f4         182.59 us      2.66  11.23    89.13   80.64 dram-bound"
            "           ⚠ dram-bandwidth-saturated"
        )
        await pilot.press("S")
        assert shown_ids(app) == [r["id"] for r in reversed(by_duration)]
        # Clicking the "SM %" header sorts by it (largest first), clicking again reverses.
        header = screen_text(app).splitlines()[1]
        x = header.index("SM %")
        await pilot.click(offset=(x + 1, 1))
        by_sm = sorted(zoo_rows, key=lambda r: -float(r["sm_pct"]))
        assert shown_ids(app) == [r["id"] for r in by_sm]
        await pilot.click(offset=(x + 1, 1))
        assert shown_ids(app) == [r["id"] for r in reversed(by_sm)]


async def test_filter_by_regex_and_jump_by_id(zoo_rows) -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"mm_")
        expected = [r["id"] for r in zoo_rows if "mm_" in str(r["demangled"]).lower()]
        assert expected and shown_ids(app) == expected
        assert "filter /mm_/" in screen_text(app)
        await pilot.press("enter")
        assert isinstance(app.focused, DataTable)
        # An invalid expression says so and keeps the last good filter.
        await pilot.press("slash", "[")
        assert "Invalid regular expression" in screen_text(app)
        assert shown_ids(app) == expected
        # q types into the prompt instead of quitting.
        await pilot.press("q")
        assert app.is_running
        assert app.screen.query_one(Input).value == "mm_[q"
        await pilot.press("escape")
        assert shown_ids(app) == [r["id"] for r in zoo_rows]
        assert "filter" not in screen_text(app).splitlines()[-2]
        # escape on the table clears a filter too.
        await pilot.press("slash", *"^zzz", "enter")
        assert shown_ids(app) == []
        await pilot.press("escape")
        assert shown_ids(app) == [r["id"] for r in zoo_rows]

        # : and g jump to a kernel by ID.
        last = zoo_rows[-1]["id"]
        await pilot.press("colon", *str(last), "enter")
        table = app.screen.query_one(DataTable)
        assert shown_ids(app)[table.cursor_row] == last
        assert str(zoo_rows[-1]["demangled"]) in screen_text(app)
        await pilot.press("g", "9", "9", "enter")
        assert "No kernel with ID 99" in screen_text(app)
        assert shown_ids(app)[table.cursor_row] == last
        # Jumping to a kernel hidden by the filter clears the filter.
        await pilot.press("slash", *"^saxpy", "enter")
        hidden = next(r["id"] for r in zoo_rows if "saxpy" not in str(r["demangled"]))
        await pilot.press("g", *str(hidden), "enter")
        assert shown_ids(app)[table.cursor_row] == hidden
        assert len(shown_ids(app)) == len(zoo_rows)


async def test_enter_and_clicks_open_a_kernel(zoo_rows) -> None:
    app = create_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, KernelDetailScreen)
        assert app.screen.kernel_id == zoo_rows[1]["id"]
        await pilot.press("escape")
        assert isinstance(app.screen, KernelListScreen)
        table = app.screen.query_one(DataTable)
        assert table.cursor_row == 1
        # One click highlights a row; a click on the highlighted row opens it.
        await pilot.click(DataTable, offset=(8, 3))
        assert isinstance(app.screen, KernelListScreen)
        assert shown_ids(app)[table.cursor_row] == zoo_rows[2]["id"]
        await pilot.click(DataTable, offset=(8, 3))
        await settle(pilot)
        assert isinstance(app.screen, KernelDetailScreen)
        assert app.screen.kernel_id == zoo_rows[2]["id"]


async def test_extra_column_providers(zoo_rows) -> None:
    def broken(_summary: object) -> int:
        raise ValueError("a column that fails")

    columns = [
        ColumnProvider("Blocks", lambda s: s.row["grid_size"]),
        ColumnProvider("Broken", broken),
    ]
    app = create_app(extra_columns=columns)
    async with app.run_test(size=(160, 36)) as pilot:
        await settle(pilot)
        header = screen_text(app).splitlines()[1]
        assert "Blocks" in header and "Broken" in header
        assert cell(app, 0, "blocks") == f"{zoo_rows[0]['grid_size']:,}"
        assert cell(app, 0, "broken") == "n/a"
        app.screen.set_sort("blocks")
        app.screen.resort()
        by_blocks = sorted(zoo_rows, key=lambda r: (-int(r["grid_size"]), r["id"]))
        assert shown_ids(app) == [r["id"] for r in by_blocks]


async def test_80_columns_keep_the_distinguishing_word_and_whole_bottlenecks() -> None:
    """At 80 columns a name whose template arguments are only types keeps its identifier
    (it read ``vectoriz…<float, float, 0>``), bottleneck labels are whole, and ``s`` steps
    only through the columns on screen (it reached a hidden "DRAM %")."""
    app = create_app(SAMPLES / "ncu" / "torch_ops.ncu-rep.xz")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "    4 vectorized_layer_nor…   91.52 us     16.75 l2-bound" in text
        assert " instruction-bound " in text and " compute-bound " in text
        assert "vectoriz…<float, float, 0>" not in text
        titles = []
        for _ in range(6):
            await pilot.press("s")
            line = next(x for x in screen_text(app).splitlines() if "sorted by" in x)
            titles.append(line.split("sorted by ")[1].split(" ▼")[0].split(" ▲")[0])
        assert titles == ["Kernel", "Duration", "Share %", "Bottleneck", "Top flag", "ID"]



MANY_LAUNCHES = SAMPLES / "ncu" / "many_launches.ncu-rep.xz"


def row_words(app, kernel_id: int) -> list[str]:
    """The words of the screen line of kernel ``kernel_id`` (none when it is not shown)."""
    for line in screen_text(app).splitlines():
        words = line.split()
        if words[:1] == [str(kernel_id)] and len(words) > 3:
            return words
    return []


async def test_rows_added_below_the_first_screen_and_the_shares_show(monkeypatch) -> None:
    """many_launches' first screenful is drawn before its other launches are read: rows
    added below it while the rest is read show when the list scrolls to them (the first
    100 re-fill the table as its columns widen; launches 100 to 299 are added below the rows
    drawn), the lines drawn first show the same, and the time shares written into the drawn
    rows once every kernel is read show too."""
    stops = {99: (threading.Event(), threading.Event()), 299: (threading.Event(),
                                                               threading.Event())}
    real_open = kernel_session.open_ncu_report

    def held_open(path: Path, **kwargs: object) -> NcuReport:
        report = real_open(path, **kwargs)
        real_batches = report.iter_summaries

        def batches(**options: object):
            for batch in real_batches(**options):  # type: ignore[arg-type]
                while batch:
                    stop = next((k for k in stops if batch[0][0].id <= k), None)
                    head = [pair for pair in batch if stop is None or pair[0].id <= stop]
                    batch = batch[len(head):]
                    yield head
                    if stop is not None and head[-1][0].id == stop:  # hand over, then wait
                        held, gate = stops[stop]
                        held.set()
                        gate.wait(120)  # the test opens it; the timeout frees a failed test

        report.iter_summaries = batches  # type: ignore[method-assign]
        return report

    monkeypatch.setattr(kernel_session, "open_ncu_report", held_open)
    monkeypatch.setattr(kernel_session, "UI_BATCH_CPU_S", 0.0)  # (each batch handed over)
    takes = Takes(monkeypatch)
    app = create_app(MANY_LAUNCHES)
    async with app.run_test(size=(120, 36)) as pilot:
        try:
            await _rows_added_below(app, pilot, stops, takes)
        finally:
            for _, gate in stops.values():
                gate.set()  # (a failed test frees the reading worker)


async def _rows_added_below(app, pilot, stops, takes) -> None:  # type: ignore[no-untyped-def]
    """The test's steps once the app runs."""
    loop = asyncio.get_running_loop()
    screen = None
    for stop, words in ((99, ["99", "ml_copy_2m_f4", "6.11", "us", "n/a", "4.13", "33.84",
                              "28.65", "40.68", "launch-bound", "⚠", "short-kernel", "1⚠"]),
                        (299, ["299", "ml_copy_2m_f4", "6.02", "us", "n/a", "4.20", "34.41",
                               "29.11", "40.59", "launch-bound", "⚠", "short-kernel", "1⚠"])):
        held, gate = stops[stop]
        await loop.run_in_executor(None, held.wait, 120)
        await takes.until(lambda stop=stop: isinstance(app.screen, KernelListScreen)
                          and len(app.screen.rows.listed) > stop)  # the worker's request, taken
        screen = app.screen
        assert isinstance(screen, KernelListScreen)
        assert len(screen.rows.listed) == stop + 1
        await pilot.press("end")
        # (no share while loading; the columns are laid out again once every kernel is read)
        assert row_words(app, stop) == words
        await pilot.press("home")
        gate.set()

    await takes.until(lambda: screen.done)  # the worker's last request: its take, then the end
    assert screen.done
    # the screen laid out again without the loading line, and what that sets going (the
    # table's new size, its scrollbar) handled and drawn, however many rounds it takes
    await drawn(pilot)
    assert row_words(app, 0) == ["0", "ml_scale_4k", "2.27", "us", "0.07", "16", "0.30",
                                 "0.75", "0.18", "12.23", "launch-bound", "✖",
                                 "grid-too-small▇"]  # (the scrollbar's thumb)
    assert row_words(app, 30) == ["30", "ml_fma_loop_64blocks", "2.46", "us", "0.07", "16",
                                  "3.44", "0.76", "0.03", "6.21", "launch-bound", "⚠",
                                  "grid-too-small"]
    await pilot.press("end")
    assert row_words(app, 0) == []
    assert row_words(app, 969)[:5] == ["969", "ml_add_256k", "3.01", "us", "0.09"]
    assert row_words(app, 999) == ["999", "ml_copy_2m_f4", "5.95", "us", "0.17", "18",
                                   "4.25", "34.85", "29.46", "40.48", "launch-bound", "⚠",
                                   "short-kernel"]
    assert "1,000 of 1,000 kernels · sorted by ID ▲" in screen_text(app)
