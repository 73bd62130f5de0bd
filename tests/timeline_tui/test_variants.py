"""Traces of other shapes (built from the zoo with tests/nsys/variants.py): NVTX ranges, a
second GPU (its overview and lanes from the plain objects the views show), no GPU work at all."""

from __future__ import annotations

import lzma
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.analysis.nvtx import nvtx_gpu_busy
from kernelscope.timeline.analysis.timeline_data import build
from kernelscope.timeline.screens.timeline_views import TimelinePane
from kernelscope.timeline.screens.timeline_views.timeline_lines import drawn_lanes
from kernelscope.timeline.screens.timeline_views.viewport import Viewport
from kernelscope.timeline.screens.widgets.timeline_table import FrameTable
from tests.nsys import variants as V
from tests.tui.helpers import notifications

from .conftest import ZOO_SQLITE_XZ
from .helpers import flat, make_app, overview_text, screen_text, static_text, wait_until_open


@pytest.fixture
def variant(tmp_path: Path) -> Callable[[Callable[[Path], Path]], Path]:
    def make(change: Callable[[Path], Path]) -> Path:
        target = tmp_path / "variant.sqlite"
        with lzma.open(ZOO_SQLITE_XZ) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
        change(target)
        return target

    return make


async def test_nvtx_ranges_with_gpu_busy_and_enter(variant, cache_dir: Path) -> None:  # type: ignore[no-untyped-def]
    path = variant(V.add_nvtx)
    busy = nvtx_gpu_busy(open_report(path)).row(0, named=True)
    app = make_app(path, cache_dir)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_until_open(pilot)
        await pilot.press("5")
        table = app.screen.query_one("#nvtx-table", FrameTable)
        assert table.shown is not None
        first = table.shown.row(0, named=True)
        assert first["Range"] == busy["range"]
        assert f"{busy['gpu_busy_pct']:.1f}" in [str(c) for c in table.get_row_at(0)]
        await pilot.press("enter")
        assert f"NVTX {busy['range']}: {busy['instances']} instance" in screen_text(app)
        lanes = static_text(app, "#tl-lanes")
        assert "NVTX zoo" in lanes


def test_two_gpus_get_their_own_lanes_and_bars(variant) -> None:  # type: ignore[no-untyped-def]
    path = variant(V.second_device)
    data = build(path, open_report(path))
    overview = flat(overview_text(data))
    assert "(GPU 0)" in overview and "(GPU 1)" in overview
    port = Viewport()
    port.columns = 100
    port.show(data.index, data.start_ns, data.end_ns)
    view = data.index.render(port.t0, port.t1, port.columns)
    lanes = drawn_lanes(data, view, port, 24).plain
    assert "(0)" in lanes and "(1)" in lanes


async def test_no_gpu_work(variant, cache_dir: Path) -> None:  # type: ignore[no-untyped-def]
    path = variant(V.drop_tables("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                 "CUPTI_ACTIVITY_KIND_MEMSET"))
    app = make_app(path, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        assert "no GPU work was traced" in flat(static_text(app, "#overview-body"))
        notes = notifications(app)
        await pilot.press("2", "g")
        assert app.screen.query_one(TimelinePane).selected is None
        assert "No GPU idle gap of 100 us or more." in notes
        await pilot.press("3")
        assert app.screen.query_one("#kernels-table", FrameTable).row_count == 0
