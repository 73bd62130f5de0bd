"""Horizontal bars (0–100 %) drawn with eighth-blocks, as Rich renderables that fill their cell."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

_EIGHTHS = " ▏▎▍▌▋▊▉"
FULL = "█"
TRACK = "·"


def bar_cells(fraction: float, width: int) -> tuple[str, str]:
    """The filled part and the empty track of a ``width``-cell bar at ``fraction`` (0–1)."""
    fraction = min(1.0, max(0.0, fraction))
    eighths = round(fraction * width * 8)
    full, part = divmod(eighths, 8)
    filled = FULL * full + (_EIGHTHS[part] if part else "")
    return filled, TRACK * (width - len(filled))


def level_style(pct: float | None) -> str:
    """Colour of a utilisation bar: dim when idle, warm as it nears the peak."""
    if pct is None:
        return "dim"
    if pct >= 80:
        return "bold red"
    if pct >= 60:
        return "yellow"
    if pct >= 20:
        return "green"
    return "cyan"


class Bar:
    """A bar that takes the width its table cell gives it."""

    def __init__(self, fraction: float, style: str = "green", min_width: int = 8):
        self.fraction = fraction
        self.style = style
        self.min_width = min_width

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(self.min_width, max(self.min_width, options.max_width))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        filled, track = bar_cells(self.fraction, max(1, options.max_width))
        yield Segment(filled, Style.parse(self.style))
        yield Segment(track, Style.parse("bright_black"))
        yield Segment.line()


@dataclass(frozen=True)
class BarRow:
    """One labelled bar: ``fraction`` (0–1) sets its length, ``value`` is the text beside it."""

    label: str
    fraction: float
    value: str
    style: str = "green"
    note: str = ""


def bar_table(
    rows: Iterable[BarRow],
    *,
    title: str | None = None,
    label_width: int = 0,
    label_max: int = 40,
) -> Table:
    """Labelled bars in a table that expands to the available width."""
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(
        "label",
        no_wrap=True,
        min_width=label_width or None,
        max_width=label_max,
        overflow="ellipsis",
    )
    table.add_column("bar", ratio=1, min_width=8)
    table.add_column("value", justify="right", no_wrap=True)
    table.add_column("note", no_wrap=True, style="dim")
    if title:
        table.title = title
        table.title_justify = "left"
        table.title_style = "bold"
    for row in rows:
        table.add_row(
            Text(row.label), Bar(row.fraction, row.style), Text(row.value), Text(row.note)
        )
    return table


def pct_row(label: str, pct: float | None, value: str, note: str = "") -> BarRow:
    """A bar for a percentage of peak (0–100)."""
    fraction = 0.0 if pct is None else pct / 100
    return BarRow(label, fraction, value, level_style(pct), note)
