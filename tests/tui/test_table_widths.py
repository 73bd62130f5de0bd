"""Every table of every screen is drawn at its final widths, even when the screen paints it
between its fill and the moment the app is idle (issue 39).

Textual's DataTable measures an auto-width column's cells only when its message queue runs
empty and keeps each cell it drew under a key without the width, so a paint in between drew
the Raw page's Metric column six cells wide ("breakd", "device") for good: the flaky
``test_detail_pane[raw]`` snapshot. Each test here makes that paint happen every time: right
after the screen fills its table, the table draws every line it shows (as a refresh of the
screen does on a loaded machine), then the app settles and the test reads the screen. The
FrameTable of the timeline and ranks screens has its own in ``test_frame_table.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import DataTable, Input

from kernelscope.kinds.diff.screens.diff_views import KernelDiffScreen
from kernelscope.kinds.join.screens.join_screen import JoinScreen
from kernelscope.kinds.ncu.screens.kernel_list import KernelListScreen
from kernelscope.kinds.ncu.screens.kernel_list_families import FamilyListing
from kernelscope.kinds.ncu.screens.panes.raw import RawPane
from kernelscope.tui.app import create_app
from tests.diff.conftest import ncu
from tests.join.conftest import KERNELS_XZ, TRACE_XZ

from .helpers import SAMPLES, screen_text, settle, tables_sized

ZOO = SAMPLES / "ncu" / "zoo_a.ncu-rep.xz"
SMALL_FAMILY = SAMPLES / "ncu" / "small_family.ncu-rep.xz"
WIDE = (120, 36)


def paint_after_fill(monkeypatch: pytest.MonkeyPatch, owner: type, method: str,
                     tables: Callable[[Any], Iterator[DataTable[Any]]]) -> None:
    """Make ``owner.method`` (which fills tables) paint ``tables(self)`` as soon as it
    returns, before the app runs anything else (once ``self`` is mounted: a screen given rows
    before it mounts holds them and shows them when it does)."""
    fill = getattr(owner, method)

    def fill_and_paint(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = fill(self, *args, **kwargs)
        if not self.is_mounted:
            return result
        for table in tables(self):
            for y in range(table.size.height):
                table.render_line(y)
        return result

    monkeypatch.setattr(owner, method, fill_and_paint)


def tables_of(widget: Widget, *selectors: str) -> Iterator[DataTable[Any]]:
    for selector in selectors:
        yield widget.query_one(selector, DataTable)


async def shown(app: Any, pilot: Any, *presses: str) -> str:
    """The screen's text after ``presses``, once the app has settled: its workers (a Raw
    pane's read among them) done and their messages handled, and so every table sized."""
    await settle(pilot)
    for key in presses:
        await pilot.press(key)
        await settle(pilot)
    assert tables_sized(app)
    return screen_text(app)


async def test_raw_page_metric_names_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every metric, then filtered: the filter's text set at once (one refill, the one that
    matters here; typing it, which refills at each key, is test_keys_and_chrome's)."""
    paint_after_fill(monkeypatch, RawPane, "_fill", lambda pane: tables_of(pane, "#raw-table"))
    app = create_app(ZOO)
    async with app.run_test(size=WIDE) as pilot:
        every = await shown(app, pilot, "g", "4", "enter", "enter", "8")
        await pilot.press("slash")
        app.screen.query_one("#raw-filter", Input).value = "^dram__"
        filtered = await shown(app, pilot)
    assert "2,230 of 2,230 metrics" in every
    assert "   65,536  block         FE_B.TriageCompute.gr__ctas_launched_realtime.sum " in every
    assert " SM_B.TriageCompute.l1tex__t_sectors_lookup_miss.sum " in every
    assert "32 of 2,230 metrics matching /^dram__/" in filtered
    assert " dram__bytes_read.sum " in filtered


async def test_kernel_list_cells_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    def kernels(screen: KernelListScreen) -> Iterator[DataTable[Any]]:
        return tables_of(screen, "#kernels")

    paint_after_fill(monkeypatch, KernelListScreen, "rebuild", kernels)
    paint_after_fill(monkeypatch, KernelListScreen, "add_summaries", kernels)
    app = create_app(ZOO)
    async with app.run_test(size=WIDE) as pilot:
        loaded = await shown(app, pilot)
        filtered = await shown(app, pilot, "slash", *"trans")
    for text in (loaded, filtered):
        assert ("    4 transpose_sm<0>  327.71 us      4.78  11.05    32.80   94.46 "
                "shared-bank-conflict ✖ shared-bank-conflicts ") in text
    assert "mm_naive" not in filtered


async def test_family_view_cells_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    paint_after_fill(monkeypatch, FamilyListing, "rebuild_families",
                     lambda screen: tables_of(screen, "#families"))
    app = create_app(SMALL_FAMILY)
    async with app.run_test(size=WIDE) as pilot:
        text = await shown(app, pilot, "f", "enter")
    assert ("▾ vec_mul_64blocks       150  352.90 us    96.36  64 × 256      launch-bound       "
            "grid-too-small (warning) ") in text


async def test_diff_tables_cells_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    paint_after_fill(monkeypatch, KernelDiffScreen, "refresh_tables",
                     lambda screen: tables_of(screen, "#diff-pairs", "#diff-unmatched"))
    app = create_app([Path(ncu("torch_ops")), Path(ncu("transpose_padded"))],
                     subcommand="diff")
    async with app.run_test(size=WIDE) as pilot:
        first = await shown(app, pilot)
        marked = await shown(app, pilot, "down", "down", "down", "m")
        paired = await shown(app, pilot, "down", "down", "down", "down", "m")
    assert (" before  0   nvjet_sm90_tst_256x128_64x…_bz_coopA_NNT  180.67 us  "
            "compute-bound ") in first
    assert (" before ◀ marked  3   cunn_SoftMaxFor…<SoftMaxForwardEpilogue>  107.39 us  "
            "instruction-bound ") in marked
    assert (" 3 cunn_SoftM…logue>  0 transpose_smem<1>  107.39 us    143.49 us   0.75×    "
            "+33.6 %  instruction-bound → dram-bound ") in paired
    assert " before  4   vectorized_layer_norm<float, float, 0>    91.52 us   l2-bound " in paired


async def test_join_ranking_cells_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    paint_after_fill(monkeypatch, JoinScreen, "_fill",
                     lambda screen: tables_of(screen, "#join-ranking"))
    app = create_app([TRACE_XZ, KERNELS_XZ])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)  # the join built (a worker) and its screen shown
        assert isinstance(app.screen, JoinScreen) and app.screen.query("#join-ranking")
        text = await shown(app, pilot)
    assert "   6  nvjet_sm90_t…pA_NNT  10.55 ms    13.9 %        0 ns  compute-bound" in text
