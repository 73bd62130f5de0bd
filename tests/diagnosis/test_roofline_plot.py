"""The ASCII roofline: a pure function of the kernels, the selection, the precision and size."""

from __future__ import annotations

import re

from kernelscope.kinds.ncu.analysis.roofline import compute_roofline
from kernelscope.kinds.ncu.render.roofline import (
    RIDGE_MARK,
    SELECTED_MARK,
    ChartKernel,
    render_roofline,
)
from tests.diagnosis.conftest import kernels_of

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def chart_kernels() -> list[ChartKernel]:
    return [ChartKernel(k.id, k.name, k.diagnosis.roofline) for k in kernels_of("zoo_a")]


def test_selected_kernel_is_labelled_and_ridges_marked() -> None:
    chart = render_roofline(chart_kernels(), selected=2, width=100, height=30, color=False)
    assert f"mm_naive {SELECTED_MARK}" in chart.text or f"{SELECTED_MARK} mm_naive" in chart.text
    assert chart.text.count(RIDGE_MARK) >= 3 + 1  # three ridge points, plus the legend
    assert "FP32 roofline" in chart.text
    assert not ANSI.search(chart.text)


def test_size_is_respected() -> None:
    chart = render_roofline(chart_kernels(), selected=0, width=72, height=22, color=False)
    lines = chart.text.split("\n")
    assert len(lines) <= 22
    assert max(len(line) for line in lines) <= 72


def test_kernels_without_a_point_are_listed_not_dropped() -> None:
    kernels = [*chart_kernels(), ChartKernel(99, "no_metrics", None)]
    chart = render_roofline(kernels, precision="fp32", width=80, height=24, color=False)
    assert set(chart.plotted) == {0, 2, 3}
    missing = {kid: reason for kid, _, reason in chart.not_plotted}
    assert missing[1] == "no FP32 work"
    assert missing[99] == "roofline metrics not collected"
    assert set(chart.plotted) | set(missing) == {k.id for k in kernels}
    assert "not plotted: 4 kernel(s)" in chart.text


def test_precision_switch() -> None:
    chart = render_roofline(chart_kernels(), precision="fp64", width=80, height=24, color=False)
    assert "FP64 roofline" in chart.text
    assert chart.plotted == ()  # zoo_a has no double-precision work
    assert len(chart.not_plotted) == 6


def test_color_output_has_ansi_and_same_plain_text() -> None:
    colored = render_roofline(chart_kernels(), selected=3, width=80, height=24, color=True)
    plain = render_roofline(chart_kernels(), selected=3, width=80, height=24, color=False)
    assert ANSI.search(colored.text)
    assert ANSI.sub("", colored.text) == plain.text


def test_hierarchical_level_axis() -> None:
    chart = render_roofline(chart_kernels(), level="l1", width=80, height=24, color=False)
    assert "FLOP per L1 byte" in chart.text


def test_rendering_twice_gives_the_same_text() -> None:
    a = render_roofline(chart_kernels(), selected=3, width=80, height=24, color=False)
    b = render_roofline(chart_kernels(), selected=3, width=80, height=24, color=False)
    assert a.text == b.text


def test_no_kernels_at_all() -> None:
    chart = render_roofline([], width=60, height=16, color=False)
    assert chart.plotted == () and chart.not_plotted == ()
    assert "FP32 roofline" in chart.text


def test_roofline_object_from_partial_metrics_is_listed() -> None:
    chart = render_roofline([ChartKernel(0, "k", compute_roofline({}))], color=False)
    assert chart.not_plotted[0][2].endswith("not collected")


def test_drawing_from_many_threads_at_once_matches_drawing_alone() -> None:
    """plotext has one global figure: the TUI's export worker and the UI thread may draw at
    the same time, and neither chart may take anything from the other."""
    from concurrent.futures import ThreadPoolExecutor

    from kernelscope.ui.widgets.chart import ChartData, render_chart

    kernels = chart_kernels()
    jobs = [("fp32", 2, 100, 30), ("fp64", 0, 72, 22), ("fp16", None, 90, 26)] * 6
    alone = {job: render_roofline(kernels, precision=job[0], selected=job[1], width=job[2],
                                  height=job[3], color=False).text for job in set(jobs)}
    curve = ChartData("occupancy", tuple(float(x) for x in range(0, 1024, 32)),
                      tuple(float(i % 7) for i in range(32)), y_max=8.0)
    curve_alone = render_chart(curve, 60, 14).plain

    def draw(job: tuple[str, int | None, int, int]) -> str:
        return render_roofline(kernels, precision=job[0], selected=job[1], width=job[2],
                               height=job[3], color=False).text

    with ThreadPoolExecutor(max_workers=6) as pool:
        curves = [pool.submit(lambda: render_chart(curve, 60, 14).plain) for _ in range(6)]
        drawn = list(pool.map(draw, jobs))
    assert drawn == [alone[job] for job in jobs]
    assert all(c.result() == curve_alone for c in curves)


def test_a_tuple_drawn_again_draws_as_a_fresh_list() -> None:
    """The points of a tuple of kernels are kept between draws (the TUI's next-kernel key):
    each selection still draws what a fresh list of the same kernels draws."""
    kernels = (*chart_kernels(), ChartKernel(99, "no_metrics", None))
    for selected in (2, 3, 1, 99, None, 0, 2):
        kept = render_roofline(kernels, selected=selected, width=90, height=28, color=False)
        fresh = render_roofline(list(kernels), selected=selected, width=90, height=28,
                                color=False)
        assert kept == fresh
