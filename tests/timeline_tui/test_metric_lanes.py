"""GPU metric lanes on the timeline (the real H200 trace with ``--gpu-metrics-devices=all``):
aligned with the kernel lanes at every zoom, values at the cursor, ``m`` cycles them."""

from __future__ import annotations

from pathlib import Path

from kernelscope.timeline.analysis.timeline_data import build
from tests.tui.helpers import notifications

from .conftest import NSYS_SAMPLES, read_sample
from .helpers import make_app, overview_text, static_text, timeline_shown, wait_until_open

GPU_METRICS_XZ = NSYS_SAMPLES / "gpu_metrics.sqlite.xz"


def _head_lines(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [line.strip() for line in static_text(app, "#tl-head").splitlines()]


async def test_metric_lanes(cache_dir: Path) -> None:
    app = make_app(GPU_METRICS_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        pane = await timeline_shown(pilot)
        assert pane.data is not None
        series = pane.data.report.gpu_metrics.get(0, "sm_issue")
        assert series is not None
        for zoom in range(4):
            lines = _head_lines(app)
            labels = [line.split(" ")[0] for line in lines]
            assert labels[:5] == ["GPU", "SMs", "SM", "Tensor", "DRAM"], lines
            # Every metric lane has the kernel lanes' columns: cells start after the same
            # label width and none runs past the last column.
            raw = static_text(app, "#tl-head").splitlines()
            assert pane.view is not None
            label = pane.label_width()
            assert all(len(line) <= 1 + label + 1 + pane.view.width for line in raw[:5])
            assert all(line[1 + label] == " " for line in raw[:5] if len(line) > 1 + label)
            probe, when = pane.probe_time()
            assert when == "the cursor"  # the cursor starts on the first kernel
            cursor = pane.cursor_span()
            assert cursor is not None and probe == cursor[0]
            value = series.value_at(probe)
            values = static_text(app, "#tl-values")
            assert "GPU metrics at" in values and "(the cursor)" in values
            shown = "—" if value is None else f"{value:.0f} %"
            assert f"SM Issue {shown}" in values
            if zoom < 3:
                await pilot.press("plus")
        # Moving the cursor moves the point the values are read at.
        await pilot.press("right", "right", "right")
        probe, _ = pane.probe_time()
        cursor = pane.cursor_span()
        assert cursor is not None and probe == cursor[0]
        value = series.value_at(probe)
        shown = "—" if value is None else f"{value:.0f} %"
        assert f"SM Issue {shown}" in static_text(app, "#tl-values")
        await pilot.press("m")
        assert any(line.startswith("GPC Clock") for line in _head_lines(app))
        await pilot.press("m")
        assert not any(line.startswith("SM Issue") for line in _head_lines(app))
        assert not app.screen.query_one("#tl-values").display


async def test_no_metric_lanes_without_metrics(cache_dir: Path) -> None:
    app = make_app(NSYS_SAMPLES / "zoo.sqlite.xz", cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        await timeline_shown(pilot)
        assert len(_head_lines(app)) == 4
        assert not app.screen.query_one("#tl-values").display
        # m says in one line why there is nothing to draw, and how to collect it
        notes = notifications(app)
        await pilot.press("m")
        assert notes == [
            "This report has no GPU metrics: collect them with `nsys profile "
            "--gpu-metrics-devices=all` (`--gpu-metrics-frequency` in Hz, 10000 by default)."]
        assert len(_head_lines(app)) == 4


def test_overview_shows_the_metrics_verdict() -> None:
    data = build(GPU_METRICS_XZ, read_sample(GPU_METRICS_XZ))
    text = " ".join(overview_text(data, 120).split())
    assert ("GPU metrics device 0: GPU 13 % busy: most of the time is lost between the "
            "kernels (gaps, launches, sync), not inside them; fix the gaps first (while busy "
            "SMs active 29 %, SM issue 6 %, DRAM 3 %). (m on the timeline (2) draws them as "
            "lanes.)") in text


def test_lane_cells_are_the_model_strip() -> None:
    from kernelscope.timeline.screens.widgets.timeline_metrics import (
        metric_lanes,
        render_metric_lanes,
    )

    data = build(GPU_METRICS_XZ, read_sample(GPU_METRICS_XZ))
    lanes = metric_lanes(data)
    assert [lane.key for lane in lanes] == ["sm_active", "sm_issue", "tensor_active",
                                            "dram_read"]
    util = data.utilization.row(0, named=True)
    rows = render_metric_lanes(data, lanes, util["start_ns"], util["end_ns"], 50, 12)
    strip = data.metric_strip(0, "sm_active", util["start_ns"], util["end_ns"], 50)
    cells = rows[0].plain[13:]
    assert len(cells) == 50
    for cell, value in zip(cells, strip, strict=True):
        assert (cell == "·") == (value is None)
        assert (cell == " ") == (value is not None and value < 0.5)
