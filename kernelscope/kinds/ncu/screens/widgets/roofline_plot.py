"""A Static showing the ASCII roofline, re-drawn when it is resized or its data change.

plotext keeps one global figure: the chart is drawn on the UI thread (in handlers) from plain
data (``ChartKernel``), never from widgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from kernelscope.kinds.ncu.render.roofline import ChartKernel, render_roofline
from kernelscope.ui.widgets.sized_drawing import SizedDrawing


@dataclass(frozen=True)
class RooflineView:
    """What to draw: the kernels, the selected one, the precision and the memory level."""

    kernels: tuple[ChartKernel, ...]
    selected: int | None = None
    precision: str = "fp32"
    level: str = "dram"


class RooflinePlot(SizedDrawing[RooflineView]):
    """The roofline of a ``RooflineView``."""

    DEFAULT_CSS = """
    RooflinePlot {
        height: 1fr;
        width: 1fr;
    }
    """
    min_size = (30, 10)

    def draw(self, content: RooflineView, width: int, height: int) -> Text:
        chart = render_roofline(
            content.kernels,
            precision=content.precision,
            selected=content.selected,
            width=width,
            height=height,
            level=content.level,
            color=True,
        )
        return Text.from_ansi(chart.text, no_wrap=True, end="")
