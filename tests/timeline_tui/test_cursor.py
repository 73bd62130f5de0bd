"""The timeline's cursor: it moves over events, says what the event is, zoom keeps it in the
middle, names are drawn where they fit, a kernel chosen in the Kernels table is highlighted
everywhere, and NVTX ranges nest as rows. The lines are checked on the plain objects the pane
draws from (``Viewport``, ``event_text``, ``drawn_lanes``) at the pane's width on a 120×36
terminal; one Pilot walk checks the keys and what the pane shows."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.analysis.lane_events import LaneEvents, nvtx_depths
from kernelscope.timeline.analysis.nvtx import nvtx_ranges
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.screens.timeline_views.timeline_lines import (
    drawn_lanes,
    event_text,
    lane_marks,
)
from kernelscope.timeline.screens.timeline_views.viewport import ZOOM_STEP, Viewport

from .conftest import NSYS_SAMPLES, ZOO_SQLITE_XZ
from .helpers import flat, make_app, static_text, timeline_shown, wait_until_open

JOIN = NSYS_SAMPLES / "join_trace.sqlite.xz"
ZOO_COLUMNS, ZOO_LABELS = 97, 20  # the zoo's lanes on a 120-column terminal
JOIN_COLUMNS, JOIN_LABELS = 94, 23


def port_of(data: TimelineData, columns: int) -> Viewport:
    port = Viewport()
    port.columns = columns
    port.show(data.index, data.start_ns, data.end_ns)
    return port


def lanes_of(data: TimelineData, port: Viewport, labels: int) -> str:
    view = data.index.render(port.t0, port.t1, port.columns)
    return drawn_lanes(data, view, port, labels).plain


def cursor_event(data: TimelineData, port: Viewport) -> dict[str, object]:
    assert port.cursor_lane is not None and port.cursor_index is not None
    return data.index.lane_events(port.cursor_lane).event(port.cursor_index)


def test_the_cursor_line_describes_its_event(zoo_data: TimelineData) -> None:
    port = port_of(zoo_data, ZOO_COLUMNS)
    # The cursor starts on the first GPU work of the first stream.
    assert port.cursor_lane == "gpu0/s7" and port.cursor_index == 0
    assert cursor_event(zoo_data, port)["start"] == zoo_data.report.gpu_ops["start"].min()
    line = flat(event_text(zoo_data, port).plain)
    assert "copy memcpy Host-to-Device" in line
    assert "GPU 0 stream 7" in line and "268.4 MB" in line
    assert "launched by cudaMemcpy" in line
    # On a kernel, the line names it, its grid × block and the launching call.
    kernels = zoo_data.index.lane_events("gpu0/s7").frame.with_row_index("i").filter(
        pl.col("kind") == "kernel")
    port.set_cursor("gpu0/s7", int(kernels["i"][0]))
    event = cursor_event(zoo_data, port)
    row = zoo_data.report.kernels.filter(pl.col("start") == event["start"]).row(0, named=True)
    line = flat(event_text(zoo_data, port).plain)
    assert "kernel saxpy_f4 · at 793.7 ms · 180.8 us · GPU 0 stream 7" in line
    assert f"grid {row['grid_x']}×{row['grid_y']}×{row['grid_z']}" in line
    assert f"block {row['block_x']}×{row['block_y']}×{row['block_z']}" in line
    assert "180.8 us" in line  # saxpy_f4: 180,831 ns
    assert "launched by cudaLaunchKernel" in line
    # The nearest event of the CUDA API lane: its line says it is a CUDA API call.
    port.set_cursor("gpu0/s7", 0)
    step = port.step_lane(1)
    assert step is not None and step[0].startswith("cuda/")
    port.set_cursor(*step)
    assert "CUDA API" in flat(event_text(zoo_data, port).plain)


def test_zoom_centres_on_the_cursor(zoo_data: TimelineData) -> None:
    port = port_of(zoo_data, ZOO_COLUMNS)
    events = zoo_data.index.lane_events("gpu0/s7")
    target = len(events) - 3  # late in the trace, far from the middle of the window
    port.set_cursor("gpu0/s7", target)
    start, end = events.span(target)
    for _ in range(6):
        port.zoom(1 / ZOOM_STEP)  # what + does
        middle = (port.t0 + port.t1) // 2
        # The event stays in the window, at its middle unless the window hit the end.
        assert port.t0 <= (start + end) // 2 < port.t1
        assert abs(middle - (start + end) // 2) <= (port.t1 - port.t0) // 2
    span = port.t1 - port.t0
    clamped = port.t1 >= zoo_data.start_ns + port.full_span
    assert clamped or abs((port.t0 + port.t1) // 2 - (start + end) // 2) <= span // 100


def test_names_are_drawn_where_they_fit(zoo_data: TimelineData) -> None:
    port = port_of(zoo_data, ZOO_COLUMNS)
    kernels = zoo_data.index.lane_events("gpu0/s7").frame.with_row_index("i").filter(
        pl.col("kind") == "kernel").sort(pl.col("end") - pl.col("start"), descending=True)
    port.set_cursor("gpu0/s7", int(kernels["i"][0]))
    assert port.zoom_to_event()  # the event takes an eighth of the window
    assert str(kernels["name"][0]) == "hist_contended(const int *, int *, int)"
    assert "hist_contend…" in lanes_of(zoo_data, port, ZOO_LABELS)
    # Zoomed out to the whole run, a kernel a few columns wide is not named.
    port.reset()
    events = zoo_data.index.lane_events("gpu0/s7")
    labels = events.labels(port.t0, port.t1, port.columns)
    drawn = lanes_of(zoo_data, port, ZOO_LABELS)
    # Only the host-to-device copy on the same stream is wide enough for a few letters.
    assert [(str(events.frame["kind"][label.index]), label.text) for label in labels] == [
        ("memcpy", "[CUDA memcpy Host-to-Device]")]
    assert "memc…" in drawn and "hist" not in drawn


async def test_keys_move_the_cursor_and_a_chosen_kernel_is_highlighted(
    zoo_data: TimelineData, cache_dir: Path
) -> None:
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        pane = await timeline_shown(pilot)
        assert pane.data is not None and pane.view is not None
        assert (pane.view.width, pane.label_width()) == (ZOO_COLUMNS, ZOO_LABELS)
        assert "copy memcpy Host-to-Device" in flat(static_text(app, "#tl-event"))
        # → walks the lane's events in time order, ← back.
        starts = []
        for _ in range(6):
            await pilot.press("right")
            starts.append(cursor_event(zoo_data, pane.viewport)["start"])
        assert starts == sorted(starts) and len(set(starts)) == 6
        await pilot.press("left")
        assert cursor_event(zoo_data, pane.viewport)["start"] == starts[-2]
        # ↓ goes to the nearest event of the CUDA API lane; the line under the lanes says so.
        await pilot.press("down", "down")
        lane = pane.viewport.cursor_lane
        assert lane is not None and lane.startswith("cuda/")
        assert "CUDA API" in flat(static_text(app, "#tl-event"))
        # enter in the Kernels view highlights the top kernel on the timeline.
        await pilot.press("3", "enter")
        top = str(zoo_data.kernels["Name"][0])
        assert pane.chosen_kernel == top
        assert cursor_event(zoo_data, pane.viewport)["name"] == top  # on its first instance
        count = zoo_data.report.kernels.filter(pl.col("name").cast(pl.String) == top).height
        assert f"{count} instance" in static_text(app, "#tl-legend")
        marks = lane_marks(pane.data, pane.view, pane.viewport, pane.chosen_kernel, range(0))
        assert any(m.instances and max(m.instances) > 0 for m in marks.values())
        await pilot.press("escape")  # clears the highlight, stays on the timeline
        assert pane.chosen_kernel is None
        assert "instance" not in static_text(app, "#tl-legend")


@pytest.fixture(scope="module")
def join_data() -> TimelineData:
    return TimelineData(open_report(JOIN))


def test_nvtx_ranges_nest_as_rows(join_data: TimelineData) -> None:
    """join_trace: ``step N`` ranges are the outer level, attention/norm/mlp/tiny_ops/sync
    one level down, each level its own lane, and no two ranges of a lane overlap."""
    ranges = nvtx_ranges(join_data.report)
    depth = ranges.with_columns(nvtx_depths(ranges))
    outer = depth.filter(pl.col("range").str.starts_with(":step "))
    inner = depth.filter(pl.col("range").is_in([":attention", ":norm", ":mlp", ":tiny_ops",
                                                ":sync"]))
    assert outer.height == 20 and set(outer["depth"]) == {0}
    assert inner.height == ranges.height - 20 and set(inner["depth"]) == {1}
    nvtx_lanes = [lane for lane in join_data.index.lanes if lane.kind == "nvtx"]
    assert [lane.depth for lane in nvtx_lanes] == [0, 1]
    assert nvtx_lanes[1].label.strip().startswith("└")
    for lane in nvtx_lanes:
        events = join_data.index.lane_events(lane.key).frame
        assert (events["start"].slice(1) >= events["end"].slice(0, events.height - 1)).all()


def test_lane_events_lookups() -> None:
    events = LaneEvents(pl.DataFrame({
        "start": [0, 10, 20, 100], "end": [5, 30, 25, 200], "name": ["a", "b", "c", "d"],
        "kind": ["kernel"] * 4, "ref": [0, 1, 2, 3],
    }))
    assert events.at(3) == 0 and events.at(22) == 2 and events.at(60) is None
    assert events.nearest(60) == 1  # b ends at 30, nearer than c (25) or d (100)
    assert events.nearest(90) == 3
    assert events.step(3, 1) is None and events.step(1, -1) == 0
    assert events.window(26, 27) == (0, 3)  # b (10–30) still runs at 26
    labels = events.labels(0, 200, 20)  # 10 ns a column: b (2 columns) is too narrow
    assert [(lb.text, lb.first, lb.last) for lb in labels] == [("d", 10, 19)]


def test_join_trace_lanes_show_nested_names(join_data: TimelineData) -> None:
    port = port_of(join_data, JOIN_COLUMNS)
    # The cursor on the first `step` range, zoomed onto it: its children are named.
    port.set_cursor(next(k for k in port.event_lanes() if k.startswith("nvtx/")), 0)
    assert port.zoom_to_event()
    port.zoom(1 / ZOOM_STEP)
    port.zoom(1 / ZOOM_STEP)
    lanes = lanes_of(join_data, port, JOIN_LABELS)
    assert "└ level 2" in lanes
    assert any(name in lanes for name in ("attention", "norm", "mlp", "tiny_ops"))
