"""The table views show what ``nsys stats`` printed (the committed oracle CSVs), sort, and
``enter`` on a gap or a kernel opens the timeline there. (That the NVTX view says when there
are no ranges: the nvtx snapshot of test_snapshots.py.)"""

from __future__ import annotations

import csv
import io
import lzma
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import TabbedContent

from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.screens.timeline_views import TimelinePane
from kernelscope.timeline.screens.widgets.timeline_table import FrameTable

from .conftest import ORACLE, ZOO_SQLITE_XZ
from .helpers import make_app, screen_text, wait_until_open


def oracle(report: str) -> list[dict[str, str]]:
    text = lzma.decompress((ORACLE / f"zoo_{report}.csv.xz").read_bytes()).decode()
    return list(csv.DictReader(io.StringIO(text)))


def shown_rows(table: FrameTable) -> list[dict[str, str]]:
    """The table's cells as displayed, by column title (sort arrows removed)."""
    titles = [str(col.label).rstrip(" ▲▼") for col in table.ordered_columns]
    rows = []
    for i in range(table.row_count):
        cells = [str(c) for c in table.get_row_at(i)]
        rows.append(dict(zip(titles, cells, strict=True)))
    return rows


def same(shown: str, expected: str) -> bool:
    """nsys prints 13733535, the table 13,733,535; a long name may end in '…'."""
    value = shown
    if value.replace(",", "").replace(".", "").isdigit():
        value = value.replace(",", "")
    if value.endswith("…"):
        return expected.startswith(value[:-1])
    return value == expected


TABLES = (  # the key of the view, its table, the nsys stats report it reproduces
    ("3", "kernels-table", "cuda_gpu_kern_sum"),
    ("4", "api-table", "cuda_api_sum"),
    ("7", "mem-time-table", "cuda_gpu_mem_time_sum"),
    ("7", "mem-size-table", "cuda_gpu_mem_size_sum"),
)


async def kernel_table_top_row_status_and_sorting(pilot: Pilot[object]) -> None:
    """The Kernels view's top row by its short name, the status line's full name, and
    sorting by key and by a header click."""
    app = pilot.app
    top = oracle("cuda_gpu_kern_sum")[0]
    await pilot.press("3")
    table = app.screen.query_one("#kernels-table", FrameTable)
    row = shown_rows(table)[0]
    assert top["Name"] == "hist_contended(const int *, int *, int)"
    assert row["Name"] == "hist_contended"  # its short name
    assert row["Instances"] == top["Instances"]
    text = screen_text(app)
    # The status line spells out the highlighted kernel's full name.
    assert top["Name"] in text
    assert f"{len(oracle('cuda_gpu_kern_sum'))} kernel names" in text
    await pilot.press("s")  # next column: Instances, largest first
    assert table.sort_key == "Instances"
    assert shown_rows(table)[0]["Instances"] == "50"
    await pilot.press("S")
    assert shown_rows(table)[0]["Instances"] == "1"
    assert "sorted by Instances ▲" in screen_text(app)
    first = str(table.ordered_columns[0].key.value)
    await pilot.click("#kernels-table", offset=(2, 0))  # the first header cell
    assert table.sort_key == first




async def test_tables_match_nsys_stats(cache_dir: Path) -> None:
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    async with app.run_test(size=(200, 40)) as pilot:
        await wait_until_open(pilot)
        for key, table_id, report in TABLES:
            expected = oracle(report)
            await pilot.press(key)
            table = app.screen.query_one(f"#{table_id}", FrameTable)
            rows = shown_rows(table)
            assert len(rows) == len(expected), table_id
            for i, (got, want) in enumerate(zip(rows, expected, strict=True)):
                for column, value in want.items():
                    if column == "Name":  # shown by its short name; the row holds nsys's name
                        assert table.row_at(i)["Name"] == value  # type: ignore[index]
                        continue
                    assert same(got[column], value), (table_id, column, got[column], value)
        await kernel_table_top_row_status_and_sorting(pilot)


async def test_enter_on_a_gap_and_on_a_kernel_opens_the_timeline_there(
    zoo_data: TimelineData, cache_dir: Path
) -> None:
    longest = max(zoo_data.large_gaps, key=lambda g: g.duration_ns)
    kernels = zoo_data.report.kernels
    small = kernels.filter(kernels["name"].cast(str).str.starts_with("scale_small"))
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        tabs = app.screen.query_one("#tl-views", TabbedContent)
        await pilot.press("6")
        text = screen_text(app)
        assert "Gap sizes" in text and "100 us-1 ms: 5" in text
        assert f"{zoo_data.gaps.height} gaps" in text
        await pilot.press("enter")
        assert tabs.active == "timeline"
        pane = app.screen.query_one(TimelinePane)
        assert pane.selected == longest
        explanation = zoo_data.explanation(longest)
        assert explanation is not None
        assert f"Cause {explanation.cause}" in screen_text(app)
        await pilot.press("escape", "escape")  # close the panel, then back to the gaps
        assert tabs.active == "gaps"
        # enter on a kernel: the window holds every instance, and says how many.
        await pilot.press("3")
        table = app.screen.query_one("#kernels-table", FrameTable)
        names = [str(r["Name"]) for r in table.shown.iter_rows(named=True)]  # type: ignore[union-attr]
        table.move_cursor(row=next(i for i, n in enumerate(names) if n.startswith("scale_small")))
        await pilot.press("enter")
        assert tabs.active == "timeline"
        port = pane.viewport
        assert port.t0 <= int(small["start"].min()) and int(small["end"].max()) <= port.t1
        assert f"{small.height} instances" in screen_text(app)
