"""A Static showing the ASCII roofline, re-drawn when it is resized or its data change.

plotext keeps one global figure: the chart is drawn on the UI thread (in handlers) from plain
data (``ChartKernel``), never from widgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.events import Resize
from textual.widgets import Static

from kernelscope.parsers.roofline.plot import ChartKernel, RooflineChart, render_roofline

MIN_WIDTH = 30
MIN_HEIGHT = 10


@dataclass(frozen=True)
class RooflineView:
    """What to draw: the kernels, the selected one, the precision and the memory level."""

    kernels: tuple[ChartKernel, ...]
    selected: int | None = None
    precision: str = "fp32"
    level: str = "dram"


class RooflinePlot(Static):
    """The roofline of a ``RooflineView``; ``chart`` is the last drawing (plotted, not plotted)."""

    DEFAULT_CSS = """
    RooflinePlot {
        height: 1fr;
        width: 1fr;
    }
    """

    def __init__(self, view: RooflineView | None = None, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self._view = view
        self._drawn: tuple[RooflineView, int, int] | None = None
        self.chart: RooflineChart | None = None

    @property
    def view(self) -> RooflineView | None:
        return self._view

    def set_view(self, view: RooflineView | None) -> None:
        """Show ``view`` (None clears it); drawn now and again once the widget has its size."""
        self._view = view
        self._draw()
        self.call_after_refresh(self._draw)

    def on_resize(self, event: Resize) -> None:
        self._draw()

    def _draw(self) -> None:
        width, height = self.size.width, self.size.height
        view = self._view
        if view is None or width < MIN_WIDTH or height < MIN_HEIGHT:
            self.chart = None
            self.update("")
            return
        if (
            self._drawn is not None
            and self._drawn[0] is view
            and self._drawn[1:] == (width, height)
        ):
            return
        self._drawn = (view, width, height)
        self.chart = render_roofline(
            view.kernels,
            precision=view.precision,
            selected=view.selected,
            width=width,
            height=height,
            level=view.level,
            color=True,
        )
        self.update(Text.from_ansi(self.chart.text, no_wrap=True, end=""))
