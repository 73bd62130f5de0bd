"""The critical path marked on the timeline's lanes (issue 37): ``p`` marks, in yellow, where
the path of the step in the window's middle runs (kernels, copies and calls on their lanes,
the CPU's own time between calls on its thread's CUDA API lane)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.analysis.critical_path.lane_spans import step_at, step_path
from kernelscope.timeline.analysis.timeline_data import TimelineData, build
from kernelscope.timeline.screens.timeline_views.timeline_lines import lane_marks, path_columns
from kernelscope.timeline.screens.timeline_views.viewport import Viewport
from kernelscope.timeline.screens.widgets.timeline_draw import (
    PATH_MARK,
    Highlight,
    LaneMarks,
    lane_line,
)

from .conftest import NSYS_SAMPLES
from .helpers import flat, make_app, opened_timeline, static_text, timeline_shown

TORCH = NSYS_SAMPLES / "timeline_torch.sqlite.xz"


@pytest.fixture(scope="module")
def torch_data(tmp_path_factory: pytest.TempPathFactory) -> TimelineData:
    return build(TORCH, open_report(TORCH, cache_dir=tmp_path_factory.mktemp("cache")))


def test_a_step_s_spans_lie_on_the_timeline_s_lanes_and_add_up_to_its_path(
        torch_data: TimelineData) -> None:
    cp, graph = torch_data.critical_path, torch_data.critical_model.graph
    keys = {lane.key for lane in torch_data.index.lanes}
    assert cp.steps.height >= 2
    for step, start, end in cp.steps.select("step", "start", "end").iter_rows():
        shown = step_path(cp, graph, step)
        assert shown.spans and set(shown.spans) <= keys
        assert all(start <= a < b <= end for spans in shown.spans.values() for a, b in spans)
        marked = sum(b - a for key, spans in shown.spans.items() if "/" in key
                     for a, b in spans)  # a kernel is on its device's lane too: count once
        parts = cp.segments.filter((pl.col("step") == step) & (pl.col("ns") > 0) & (
            (pl.col("edge") == -1) | (pl.col("kind") == "cpu")))
        assert marked == parts["ns"].sum()
        assert step_at(cp, (start + end) // 2) == step


def test_the_lanes_mark_the_columns_of_the_step_in_the_window_s_middle(
        torch_data: TimelineData) -> None:
    cp = torch_data.critical_path
    step, start, end = cp.steps.select("step", "start", "end").row(1)
    port = Viewport()
    port.show(torch_data.index, torch_data.start_ns, torch_data.end_ns)
    port.set_window(start, end)
    view = torch_data.index.render(port.t0, port.t1, 120)
    columns = path_columns(torch_data, view, port)
    spans = step_path(cp, torch_data.critical_model.graph, step).spans
    assert columns and set(columns) <= set(spans)
    for key, cols in columns.items():  # every marked column holds a part of the path
        for col in cols:
            lo, hi = view.edges[col], view.edges[col + 1]
            assert any(a < hi and b > lo for a, b in spans[key])
    assert not any(m.path for m in lane_marks(torch_data, view, port, None, range(0)).values())
    port.show_path = True
    marks = lane_marks(torch_data, view, port, None, range(0))
    assert {key: m.path for key, m in marks.items() if m.path} == columns


def test_a_marked_cell_is_yellow_and_an_idle_one_a_bar() -> None:
    line = lane_line([0.0, 1.0, 0.0], "green", Highlight(), LaneMarks(path=frozenset({0, 1})))
    assert line.plain == f"{PATH_MARK}█·"
    styles = [str(span.style) for span in line.spans]
    assert styles[0].endswith("bold yellow underline") and "yellow" not in styles[-1]


async def test_p_marks_the_path_and_the_legend_names_the_step(cache_dir: Path) -> None:
    app = make_app(TORCH, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await opened_timeline(pilot)
        pane = await timeline_shown(pilot)
        await pilot.press("p")
        assert pane.viewport.show_path
        legend = flat(static_text(app, "#tl-legend"))
        assert "yellow: critical path of " in legend and "p hides" in legend
        assert pane.data is not None and pane.view is not None
        drawn = lane_marks(pane.data, pane.view, pane.viewport, None, range(0))
        assert any(m.path for m in drawn.values())  # the lanes drawn carry the path's columns
        await pilot.press("p")
        assert "yellow:" not in flat(static_text(app, "#tl-legend"))
