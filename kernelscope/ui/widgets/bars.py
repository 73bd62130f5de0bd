"""Horizontal bars (0–100 %) drawn with eighth-blocks, as Rich renderables that fill their cell."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style

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


class BarChart:
    """Labelled bars, one per line, laid out in a single pass: label, bar filling the free
    width, value, note. (A Rich ``Table`` of the same rows measures every cell twice and
    made a pane of 60 bars take tens of milliseconds to paint.)"""

    def __init__(
        self, rows: Iterable[BarRow], *, title: str | None, label_width: int, label_max: int
    ) -> None:
        self.rows = list(rows)
        self.title = title
        self.label_width = label_width
        self.label_max = label_max

    def _widths(self) -> tuple[int, int, int]:
        label = max([self.label_width, *(len(r.label) for r in self.rows)])
        value = max([0, *(len(r.value) for r in self.rows)])
        note = max([0, *(len(r.note) for r in self.rows)])
        return min(label, self.label_max), value, note

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        label, value, note = self._widths()
        least = label + 1 + 8 + 1 + value + (note + 1 if note else 0)
        return Measurement(least, max(least, options.max_width))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        label_w, value_w, note_w = self._widths()
        fixed = label_w + 1 + 1 + value_w + (1 + note_w if note_w else 0)
        bar_w = max(8, options.max_width - fixed)
        if self.title:
            yield Segment(self.title, Style.parse("bold"))
            yield Segment.line()
        track = Style.parse("bright_black")
        dim = Style.parse("dim")
        for row in self.rows:
            label = row.label if len(row.label) <= label_w else row.label[: label_w - 1] + "…"
            filled, rest = bar_cells(row.fraction, bar_w)
            yield Segment(label.ljust(label_w) + " ")
            yield Segment(filled, Style.parse(row.style))
            yield Segment(rest, track)
            yield Segment(" " + row.value.rjust(value_w))
            if note_w:
                yield Segment(" " + row.note.ljust(note_w), dim)
            yield Segment.line()


def bar_table(
    rows: Iterable[BarRow],
    *,
    title: str | None = None,
    label_width: int = 0,
    label_max: int = 40,
) -> BarChart:
    """Labelled bars that expand to the available width."""
    return BarChart(rows, title=title, label_width=label_width, label_max=label_max)


def pct_row(label: str, pct: float | None, value: str, note: str = "") -> BarRow:
    """A bar for a percentage of peak (0–100)."""
    fraction = 0.0 if pct is None else pct / 100
    return BarRow(label, fraction, value, level_style(pct), note)
