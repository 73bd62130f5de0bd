"""A line chart drawn by plotext into a Static, re-drawn when the widget is resized.

Charts are drawn from plain data (``ChartData``), never from widgets, through
``kernelscope.render.plotext_figure`` (plotext's one global figure, held by one thread at a time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from kernelscope.render.plotext_figure import plotext_figure
from kernelscope.ui.widgets.sized_drawing import SizedDrawing


@dataclass(frozen=True)
class ChartData:
    """One curve and a vertical marker at the kernel's own value."""

    title: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    x_label: str = ""
    marker: float | None = None
    y_max: float | None = None


def nice_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """About ``count`` round tick positions covering [lo, hi]."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / max(1, count - 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(lo / step) * step
    ticks = []
    value = first
    while value <= hi + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def tick_label(value: float) -> str:
    """Compact tick label: ``256``, ``1.5k``, ``64``."""
    if abs(value) >= 10_000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def render_chart(data: ChartData, width: int, height: int) -> Text:
    """Draw ``data`` with plotext at ``width``×``height`` cells (from any thread)."""
    with plotext_figure(width, height) as plt:
        return _draw(plt.figure, data, width, height)


def _draw(fig: Any, data: ChartData, width: int, height: int) -> Text:
    fig.theme("simple")
    if data.xs:
        signal = fig.signal(list(data.xs), list(data.ys))
        signal.lines()
        fig.draw(signal)
    if data.marker is not None:
        fig.line(data.marker, orientation="vertical")
    fig.legend(False)
    fig.title(data.title)
    if data.x_label:
        fig.label(data.x_label, axis="x")
    if data.xs:
        lo = min(min(data.xs), data.marker if data.marker is not None else math.inf)
        hi = max(max(data.xs), data.marker if data.marker is not None else -math.inf)
        ticks = nice_ticks(lo, hi, max(3, width // 12))
        # plotext 6 places explicit ticks on the ruler's limits, so pin those to the data.
        fig.ruler("x").lim(lo, hi)
        fig.ruler("x").ticks(ticks, [tick_label(t) for t in ticks])
    y_max = data.y_max or (max(data.ys) if data.ys else 1.0)
    if y_max % 4 == 0 and height >= 10:  # warps: 0, 16, 32, 48, 64
        y_ticks = [y_max * i / 4 for i in range(5)]
    else:
        y_ticks = nice_ticks(0, y_max, max(2, min(5, height // 3)))
    fig.ruler("y").ticks(y_ticks, [tick_label(t) for t in y_ticks])
    fig.ruler("y").lim(0, y_max)
    return Text.from_ansi(str(fig.build()), no_wrap=True, end="")


class PlotextChart(SizedDrawing[ChartData]):
    """A plotext chart of ``ChartData``; it re-draws itself on resize."""

    DEFAULT_CSS = """
    PlotextChart {
        height: 14;
        width: 1fr;
    }
    """
    min_size = (20, 6)

    def draw(self, content: ChartData, width: int, height: int) -> Text:
        return render_chart(content, width, height)
