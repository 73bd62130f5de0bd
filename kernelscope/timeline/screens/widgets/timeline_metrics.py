"""GPU metric lanes for the timeline: one line per sampled metric, drawn on the same columns as
the kernel lanes, and the metrics' values at a point in time (the cursor).

Each column is the metric's time-weighted mean over the column's window
(``TimelineData.metric_strip``: two binary searches per column edge, whatever the number of
samples), drawn as an eighth-block of 0-100 % (clocks of their maximum), blank under 0.5 %;
a column no sample covers is ``·``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from kernelscope.core.durations import fmt_ns
from kernelscope.core.units import EMPTY_CELL
from kernelscope.core.words import ellipsis
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.gpu_metrics import DEFAULT_LANES, SPECS, MetricSeries
from kernelscope.timeline.screens.widgets.timeline_draw import IDLE, SPARK, Highlight

LANE_STYLE = "yellow"
BLANK_BELOW = 0.5
"""Values under half a percent (nsys samples whole percents) are drawn blank, not as ▁."""
CURSOR_STYLE = "reverse"
METRIC_SETS: tuple[str, ...] = ("default", "all", "off")
"""What ``m`` cycles through: the four default lanes, every metric read, none."""


@dataclass(frozen=True)
class MetricLane:
    device: int
    key: str
    label: str
    series: MetricSeries


def metric_lanes(data: TimelineData, choice: str = "default") -> list[MetricLane]:
    """The lanes to draw for ``choice`` (one of ``METRIC_SETS``), device by device."""
    gm = data.report.gpu_metrics
    if choice == "off" or not gm.present:
        return []
    several = len(gm.devices) > 1
    out = []
    for device in gm.devices:
        keys = DEFAULT_LANES if choice == "default" else tuple(gm.keys(device))
        for key in keys:
            series = gm.get(device, key)
            if series is None:
                continue
            label = SPECS[key].label + (f" gpu{device}" if several else "")
            out.append(MetricLane(device, key, label, series))
    return out


def _cell(value: float | None, top: float) -> str:
    if value is None:
        return IDLE
    if value < BLANK_BELOW * top / 100:
        return SPARK[0]
    return SPARK[max(1, min(len(SPARK) - 1, round(value / top * (len(SPARK) - 1))))]


def metric_line(values: Sequence[float | None], top: float, highlight: Highlight,
                cursor: int | None = None) -> Text:
    """One metric's cells; the highlighted columns get their background, the cursor's column
    is reversed."""
    text = Text(no_wrap=True, end="")
    for col, value in enumerate(values):
        style = "bright_black" if value is None else LANE_STYLE
        if col in highlight.columns:
            style = f"{style} {highlight.style}"
        if col == cursor:
            style = f"{style} {CURSOR_STYLE}"
        text.append(_cell(value, top), style)
    return text


def render_metric_lanes(
    data: TimelineData,
    lanes: Sequence[MetricLane],
    t0: int,
    t1: int,
    width: int,
    label_width: int,
    highlight: Highlight | None = None,
    cursor: int | None = None,
) -> list[Text]:
    """Every metric lane as a line: its label, then one cell per column of [t0, t1)."""
    highlight = highlight or Highlight()
    out = []
    for lane in lanes:
        values = data.metric_strip(lane.device, lane.key, t0, t1, width)
        top = 100.0
        if SPECS[lane.key].unit != "%":
            top = float(lane.series.values.max() or 1.0)  # type: ignore[arg-type]
        line = Text(ellipsis(lane.label, label_width).ljust(label_width) + " ", style="yellow")
        line.append_text(metric_line(values, top, highlight, cursor))
        out.append(line)
    return out


def _value_text(value: float | None, unit: str) -> str:
    if value is None:
        return EMPTY_CELL
    return f"{value:.0f} %" if unit == "%" else f"{value:,.0f} {unit}"


def values_at(lanes: Sequence[MetricLane], t: int, origin_ns: int, when: str) -> Text:
    """``GPU metrics at 4.68 s (the cursor): SMs Active 44 %  SM Issue 8 % …``: the sample
    covering ``t`` of each lane."""
    text = Text(f"GPU metrics at {fmt_ns(t - origin_ns)} ({when}): ", style="yellow")
    for i, lane in enumerate(lanes):
        if i:
            text.append("  ")
        text.append(f"{lane.label} ", style="dim")
        text.append(_value_text(lane.series.value_at(t), SPECS[lane.key].unit), style="bold")
    return text


__all__ = ["METRIC_SETS", "MetricLane", "metric_lanes", "render_metric_lanes", "values_at"]
