"""Widgets and Rich renderables shared by kernelscope's screens."""

from kernelscope.render.format import (
    NOT_AVAILABLE,
    fmt_duration,
    fmt_metric,
    fmt_number,
    fmt_pct,
    fmt_value,
    short_name,
    split_metric,
)
from kernelscope.render.ncu_markup import render_ncu_markup
from kernelscope.tui.widgets.bars import Bar, BarRow, bar_table, level_style, pct_row
from kernelscope.tui.widgets.chart import ChartData, PlotextChart
from kernelscope.tui.widgets.metric_table import Row, SectionTable, derived_row, rows_table

__all__ = [
    "NOT_AVAILABLE",
    "Bar",
    "BarRow",
    "ChartData",
    "PlotextChart",
    "Row",
    "SectionTable",
    "bar_table",
    "derived_row",
    "fmt_duration",
    "fmt_metric",
    "fmt_number",
    "fmt_pct",
    "fmt_value",
    "level_style",
    "pct_row",
    "render_ncu_markup",
    "rows_table",
    "short_name",
    "split_metric",
]
