"""Formatting, markup, bars, charts and the small pieces the panes are built from."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from kernelscope.core.durations import fmt_duration
from kernelscope.core.kernel_names import short_name
from kernelscope.core.table import compile_filter
from kernelscope.core.units import fmt_number, fmt_value, scale_unit
from kernelscope.core.words import ellipsis
from kernelscope.kinds.ncu.model import Metric
from kernelscope.kinds.ncu.render.metric_text import fmt_metric, split_metric
from kernelscope.kinds.ncu.render.ncu_markup import (
    pane_number_of_section,
    plain_ncu_markup,
    render_ncu_markup,
)
from kernelscope.kinds.ncu.screens.columns import (
    BASE_COLUMNS,
    ColumnProvider,
    list_columns,
    required_metrics,
)
from kernelscope.kinds.ncu.screens.panes.launch import tail_wave_fill
from kernelscope.kinds.ncu.screens.panes.memory import sectors_per_request
from kernelscope.ui.widgets.bars import Bar, bar_cells, level_style
from kernelscope.ui.widgets.chart import ChartData, nice_ticks, render_chart


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (65536, "65,536"),
        (6288955.0, "6,288,955"),
        (88.0731, "88.07"),
        (0.0, "0"),
        (1234.5678, "1,234.57"),
        ("CachePreferNone", "CachePreferNone"),
        (None, "n/a"),
        (float("nan"), "n/a"),
    ],
)
def test_fmt_number_like_ncu(value: float | str | None, text: str) -> None:
    assert fmt_number(value) == text


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (327712.0, "ns", "327.71 us"),
        (3174816.0, "ns", "3.17 ms"),
        (900.0, "ns", "900 ns"),
        (1578044331608.24, "byte/s", "1.58 TB/s"),
        (1024, "byte/block", "1.02 kB/block"),
        (0, "byte/block", "0 B/block"),
        (1977439794.69, "hz", "1.98 GHz"),
        (1590000000.0, "hz", "1.59 GHz"),
        (88.07, "%", "88.07 %"),
        (648706.0, "cycle", "648,706 cycles"),
        (33792.0, "thread", "33,792 threads"),
        (1.0, "thread", "1 thread"),
        (40.0, "register/thread", "40 registers/thread"),
        (132.0, "SM", "132 SMs"),
        (0.004, "", "0.004"),
        (0.00412, "", "0.0041"),
        (0.0, "", "0"),
        (2.5, "inst/cycle", "2.50 inst/cycle"),
    ],
)
def test_units_scale_like_ncu_and_read_like_people(value: float, unit: str, text: str) -> None:
    assert fmt_value(value, unit) == text


def test_metric_helpers() -> None:
    metric = Metric("dram__bytes_read.sum", 268474368.0, "byte", "")
    assert fmt_metric(metric) == "268.47 MB"
    assert split_metric(metric) == ("268.47", "MB")
    assert split_metric(Metric("launch__waves_per_multiprocessor", 0.004, "")) == ("0.004", "")
    assert split_metric(None) == ("n/a", "")
    assert fmt_metric(Metric("launch__func_cache_config", "CachePreferNone", "")) == (
        "CachePreferNone"
    )
    assert scale_unit(5.0, "warp") == (5.0, "warp")
    assert fmt_duration(None) == "n/a"


@pytest.mark.parametrize(
    ("demangled", "short"),
    [
        ("void mm_tiled<(int)32>(const float *, const float *, float *, int)", "mm_tiled<32>"),
        ("saxpy_f4(const float4 *, float4 *, float, int)", "saxpy_f4"),
        ("mm_naive", "mm_naive"),
        (
            "void ns::(anonymous namespace)::k<float, 4>(float *)",
            "k<float, 4>",
        ),
        ("void f<g<(int)1>, 2>(int) const", "f<g>"),  # the functor is what names it
    ],
)
def test_short_name(demangled: str, short: str) -> None:
    assert short_name(demangled, 200) == short


def test_ellipsis() -> None:
    assert ellipsis("abcdef", 4) == "abc…"
    assert ellipsis("abc", 4) == "abc"
    # Head and tail around the cut: the end of a name often tells kernels apart.
    assert short_name("void very_long_kernel_name(int)", 8) == "very…ame"


def test_ncu_markup_becomes_readable() -> None:
    message = (
        "Check the @section:WarpStateStats:Warp State Statistics@ and "
        "@section:SourceCounters:Source Counters@ sections. The "
        "@url:Profiling Guide:https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#x@"
        " has more."
    )
    text = plain_ncu_markup(message)
    assert "@section" not in text and "@url" not in text
    assert "Warp State Statistics [5]" in text
    assert "Source Counters [6]" in text
    url = "https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#x"
    assert f"Profiling Guide <{url}>" in text
    assert plain_ncu_markup("no markup at all") == "no markup at all"
    assert pane_number_of_section("MemoryWorkloadAnalysis_Tables") == 4
    assert pane_number_of_section("SpeedOfLight_RooflineChart") == 2
    assert pane_number_of_section("NoSuchSection") is None
    styled = render_ncu_markup(message)
    assert styled.plain == text
    assert any("link" in str(span.style) for span in styled.spans)


def test_bars() -> None:
    assert bar_cells(0.5, 10) == ("█████", "·····")
    filled, track = bar_cells(1 / 8, 4)
    assert filled == "▌" and len(filled + track) == 4
    assert bar_cells(2.0, 3) == ("███", "")
    assert bar_cells(-1, 3) == ("", "···")
    assert level_style(95) != level_style(5)
    console = Console(width=20, record=True, color_system=None)
    console.print(Bar(0.5))
    assert console.export_text().strip() == "██████████··········"


def test_chart_ticks_and_render() -> None:
    assert nice_ticks(0, 1024, 5) == [0, 500, 1000]
    assert nice_ticks(0, 1024, 9) == [0, 200, 400, 600, 800, 1000]
    assert nice_ticks(5, 5) == [5]
    data = ChartData("Warps vs block size", (32.0, 64.0, 128.0), (16.0, 32.0, 64.0), "threads",
                     64.0, 64.0)
    text = render_chart(data, 60, 12).plain
    lines = text.splitlines()
    assert len(lines) == 12 and max(len(line) for line in lines) <= 60
    assert "Warps vs block size" in text and "threads" in text


def test_derived_values() -> None:
    assert tail_wave_fill(62.06) == pytest.approx(6.0, abs=0.1)
    assert tail_wave_fill(2.0) == 100.0
    assert tail_wave_fill(0.25) == 25.0
    assert tail_wave_fill(None) is None
    assert sectors_per_request(8.0, 2.0) == 4.0
    assert sectors_per_request(8.0, 0.0) is None


def test_filter_is_smart_case() -> None:
    assert compile_filter("") is None
    pattern = compile_filter("gemm")
    assert pattern is not None and pattern.search("SGEMM_kernel")
    pattern = compile_filter("Gemm")
    assert pattern is not None and not pattern.search("sgemm")
    with pytest.raises(re.error):
        compile_filter("[")


def test_column_providers() -> None:
    column = ColumnProvider("Primary bottleneck", lambda s: "dram", metrics=("a", "b"))
    assert column.key == "primary_bottleneck"
    assert column.cell_text(None) == "n/a"
    assert column.cell_text(1234.5) == "1,234.50"
    other = ColumnProvider("Flags", lambda s: 2, metrics=("b", "c"))
    columns = list_columns([column, other])
    assert columns[: len(BASE_COLUMNS)] == BASE_COLUMNS
    assert required_metrics(columns) == ("a", "b", "c")
