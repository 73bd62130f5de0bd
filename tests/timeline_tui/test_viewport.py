"""The timeline's window and cursor without the app: ``Viewport`` over the zoo trace
(samples/nsys/zoo.sqlite.xz: 1,019,825,472 ns long; lanes gpu0, gpu0/s7 with 70 kernels,
cuda/13006 with 159 CUDA API calls; the first kernel runs from 694,534,343 to 725,137,870)."""

from __future__ import annotations

from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.screens.timeline_views.viewport import Viewport

END = 1_019_825_472
FIRST_KERNEL = (694_534_343, 725_137_870)


def port_of(data: TimelineData, columns: int = 100) -> Viewport:
    port = Viewport()
    port.columns = columns
    port.show(data.index, data.start_ns, data.end_ns)
    return port


def test_it_opens_on_the_whole_report_and_the_first_kernel(zoo_data: TimelineData) -> None:
    port = port_of(zoo_data)
    assert (port.t0, port.t1) == (0, END) and port.full_span == END
    assert port.event_lanes() == ["gpu0", "gpu0/s7", "cuda/13006"]
    assert (port.cursor_lane, port.cursor_index) == ("gpu0/s7", 0)  # a stream before the GPU
    assert port.cursor_span() == FIRST_KERNEL


def test_zoom_keeps_the_cursors_event_in_the_middle(zoo_data: TimelineData) -> None:
    port = port_of(zoo_data)
    middle = sum(FIRST_KERNEL) // 2
    port.zoom(0.5)
    assert port.t1 - port.t0 == END // 2
    assert (port.t0 + port.t1) // 2 == middle
    port.zoom(2.0)
    port.zoom(2.0)
    assert (port.t0, port.t1) == (0, END)  # never wider than the report


def test_pan_moves_a_quarter_and_stops_at_the_ends(zoo_data: TimelineData) -> None:
    port = port_of(zoo_data)
    port.set_window(0, 1_000_000)
    port.pan(1)
    assert (port.t0, port.t1) == (250_000, 1_250_000)
    port.pan(-1)
    port.pan(-1)
    assert (port.t0, port.t1) == (0, 1_000_000)
    port.set_window(END - 1_000_000, END)
    port.pan(1)
    assert (port.t0, port.t1) == (END - 1_000_000, END)


def test_the_window_holds_at_least_a_nanosecond_per_column(zoo_data: TimelineData) -> None:
    port = port_of(zoo_data, columns=100)
    port.set_window(500, 510)
    assert (port.t0, port.t1) == (500, 600)
    port.columns = 3  # never under ten
    port.set_window(500, 501)
    assert (port.t0, port.t1) == (500, 510)


def test_the_cursor_steps_along_its_lane(zoo_data: TimelineData) -> None:
    port = port_of(zoo_data)
    assert port.step(-1) is None  # the first event: nothing before
    assert port.step(1) == ("gpu0/s7", 1)
    port.set_cursor("gpu0/s7", 69)
    assert port.step(1) is None
    assert port.cursor_span() == (816_894_787, 816_895_619)


def test_up_and_down_go_to_the_nearest_event_of_the_next_lane(zoo_data: TimelineData) -> None:
    port = port_of(zoo_data)
    assert port.step_lane(1) == ("cuda/13006", 10)
    assert port.step_lane(-1) == ("gpu0", 0)
    port.set_cursor("gpu0", 0)
    assert port.step_lane(-1) is None  # the top lane


def test_a_cursor_out_of_the_window_brings_the_window_along(zoo_data: TimelineData) -> None:
    port = port_of(zoo_data)
    port.set_window(0, 100_000_000)
    assert port.set_cursor("gpu0/s7", 0)  # moved
    assert port.t1 - port.t0 == 100_000_000
    assert (port.t0 + port.t1) // 2 == sum(FIRST_KERNEL) // 2
    assert not port.set_cursor("gpu0/s7", 0)  # already in view: the window stays


def test_enter_zooms_the_event_to_an_eighth_of_the_window(zoo_data: TimelineData) -> None:
    port = port_of(zoo_data)
    assert port.zoom_to_event()
    width = FIRST_KERNEL[1] - FIRST_KERNEL[0]
    assert port.t1 - port.t0 == width * 8
    assert port.t0 <= FIRST_KERNEL[0] and FIRST_KERNEL[1] <= port.t1


def test_a_gap_takes_a_third_and_a_range_gets_margins(zoo_data: TimelineData) -> None:
    port = port_of(zoo_data)
    port.around_gap(725_137_870, 725_281_101)
    assert port.t1 - port.t0 == 3 * (725_281_101 - 725_137_870)
    assert port.t0 < 725_137_870 and port.t1 > 725_281_101
    port.around_range(700_000_000, 800_000_000)
    assert (port.t0, port.t1) == (695_000_000, 805_000_000)
    port.reset()
    assert (port.t0, port.t1) == (0, END)


def test_no_report_no_cursor() -> None:
    port = Viewport()
    assert port.event_lanes() == [] and port.cursor_span() is None
    assert port.step(1) is None and port.step_lane(1) is None and not port.zoom_to_event()


def test_the_metric_values_are_read_at_the_cursor_else_the_gap_else_the_middle(
        zoo_data: TimelineData) -> None:
    port = port_of(zoo_data)
    assert port.probe(None) == (FIRST_KERNEL[0], "the cursor")
    assert port.probe(5) == (FIRST_KERNEL[0], "the cursor")  # the cursor's event comes first
    port.set_window(0, FIRST_KERNEL[0])  # the cursor's event starts where the window ends
    assert port.probe(123) == (123, "the selected gap")
    assert port.probe(None) == (FIRST_KERNEL[0] // 2, "the middle of the window")
