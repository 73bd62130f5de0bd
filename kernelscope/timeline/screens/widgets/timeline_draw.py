"""Draw the ASCII timeline as Rich text: lanes, a utilisation sparkline, gap marks, a time axis.

Everything here works on per-column values that ``TimelineIndex.render`` already computed,
so the cost is lanes × columns, never the number of events. On top of the shading a lane can
carry marks (``LaneMarks``): the names of the events wide enough to hold them, the event
under the cursor, the columns where a chosen kernel runs, and those where a step's critical
path runs (yellow, underlined; ``━`` where the lane is idle: CPU time between calls).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.text import Text

from kernelscope.core.durations import decimals_for, fmt_at, unit_for
from kernelscope.core.words import ellipsis
from kernelscope.timeline.analysis.timeline_view import Gap, Lane, TimelineView
from kernelscope.ui.widgets.chart import nice_ticks

SHADES = "░▒▓█"
SPARK = " ▁▂▃▄▅▆▇█"
IDLE = "·"

LANE_STYLES = {
    "gpu": "bold green",
    "stream": "green",
    "nvtx": "magenta",
    "cuda-api": "cyan",
}
SELECTED_BG = "on #5f3f00"
INSTANCE_STYLE = "bold magenta on #3a003a"
CURSOR_STYLE = "bold reverse"
LABEL_STYLES = {"stream": "black on green", "gpu": "black on green", "nvtx": "black on magenta",
                "cuda-api": "black on cyan"}
GAP_MARK = "▾"
CURSOR_MARK = "▲"
PATH_MARK = "━"
"""An idle cell of a lane where the critical path runs (the CPU's own time between calls)."""
PATH_STYLE = "bold yellow underline"


def shade(fraction: float) -> str:
    """One cell of a lane: idle ``·``; ``░▒▓`` partly busy (any work at all shows); ``█`` full."""
    if fraction <= 0.0:
        return IDLE
    if fraction >= 0.97:
        return SHADES[-1]
    return SHADES[min(len(SHADES) - 2, int(fraction * (len(SHADES) - 1)))]


def spark(fraction: float) -> str:
    """One cell of the sparkline: an eighth-block of the column's utilisation."""
    if fraction <= 0.0:
        return SPARK[0]
    return SPARK[max(1, min(len(SPARK) - 1, round(fraction * (len(SPARK) - 1))))]


def columns_of(view: TimelineView, start_ns: int, end_ns: int) -> range:
    """The columns of ``view`` that [start_ns, end_ns) touches (empty when outside)."""
    cols = view.columns_between(start_ns, end_ns)
    return range(0) if cols is None else range(cols[0], cols[1] + 1)


def append_runs(text: Text, cells: Iterable[str], styles: Iterable[str]) -> Text:
    """Append ``cells`` to ``text``, each in its style, one span per run of equal styles
    (a span per cell made ~700 spans a redraw, and Textual converts each span's style anew
    on every update)."""
    run: list[str] = []
    run_style: str | None = None
    for cell, style in zip(cells, styles, strict=True):
        if style != run_style and run:
            text.append("".join(run), run_style or "")
            run = []
        run_style = style
        run.append(cell)
    if run:
        text.append("".join(run), run_style or "")
    return text


def _label(text: str, width: int, style: str = "") -> Text:
    return Text(ellipsis(text, width).ljust(width) + " ", style=style)


@dataclass(frozen=True)
class Highlight:
    """Columns to paint with a background (the selected gap)."""

    columns: range = range(0)
    style: str = SELECTED_BG


@dataclass(frozen=True)
class LaneMarks:
    """What is drawn over a lane's shading: event names (first column, last column, text),
    the cursor's columns, and per column whether the chosen kernel runs there."""

    labels: tuple[tuple[int, int, str], ...] = ()
    cursor: range = range(0)
    instances: Sequence[float] = ()
    path: frozenset[int] = frozenset()
    """The columns where the step's critical path runs on this lane."""


NO_MARKS = LaneMarks()


def lane_line(
    values: Sequence[float], style: str, highlight: Highlight, marks: LaneMarks = NO_MARKS,
    label_style: str = "black on white",
) -> Text:
    """One lane's cells, busy cells in ``style``, idle ones dim; event names over their
    columns, the cursor's event reversed, the chosen kernel's columns in magenta."""
    cells = [shade(value) for value in values]
    named = [False] * len(cells)
    for first, last, name in marks.labels:
        span = last - first + 1
        fitted = ellipsis(name, span)
        for offset, ch in enumerate(fitted):
            if 0 <= first + offset < len(cells):
                cells[first + offset] = ch
                named[first + offset] = True
    instances = marks.instances
    styles = []
    for col, cell in enumerate(cells):
        cell_style = label_style if named[col] else "bright_black" if cell == IDLE else style
        if col < len(instances) and instances[col] > 0:
            cell_style = f"{cell_style} {INSTANCE_STYLE}" if named[col] else INSTANCE_STYLE
        if col in marks.path:
            cells[col] = PATH_MARK if cell == IDLE else cell
            cell_style = f"{cell_style} {PATH_STYLE}"
        if col in highlight.columns:
            cell_style = f"{cell_style} {highlight.style}"
        if col in marks.cursor:
            cell_style = f"{cell_style} {CURSOR_STYLE}"
        styles.append(cell_style)
    return append_runs(Text(no_wrap=True, end=""), cells, styles)


def render_lanes(
    view: TimelineView,
    lanes: Iterable[Lane],
    label_width: int,
    highlight: Highlight | None = None,
    marks: dict[str, LaneMarks] | None = None,
    cursor_lane: str | None = None,
) -> Text:
    """Every lane as one line: its label, then one cell per column (with its marks)."""
    highlight = highlight or Highlight()
    marks = marks or {}
    lines = []
    for lane in lanes:
        style = LANE_STYLES.get(lane.kind, "white")
        label_style = "bold" if lane.kind == "gpu" else ""
        if lane.key == cursor_lane:
            label_style = f"{label_style} reverse".strip()
        line = _label(lane.label, label_width, label_style)
        line.append_text(lane_line(view.busy.get(lane.key, []), style, highlight,
                                   marks.get(lane.key, NO_MARKS),
                                   LABEL_STYLES.get(lane.kind, "black on white")))
        lines.append(line)
    return Text("\n", no_wrap=True, end="").join(lines)


def render_sparkline(
    values: Sequence[float], label: str, label_width: int, highlight: Highlight | None = None
) -> Text:
    """The utilisation sparkline (one line of eighth-blocks)."""
    highlight = highlight or Highlight()
    selected = f"yellow {highlight.style}"
    text = append_runs(
        _label(label, label_width, "bold"),
        [spark(value) for value in values],
        [selected if col in highlight.columns else "yellow" for col in range(len(values))],
    )
    text.no_wrap = True
    return text


def render_gap_marks(
    view: TimelineView, gaps: Iterable[Gap], selected: Gap | None, label_width: int, label: str,
    cursor: range = range(0),
) -> Text:
    """A line with ``▾`` over every large gap in the window, the selected one highlighted,
    and ``▲`` under the cursor's event."""
    cells = [" "] * view.width
    styles = [""] * view.width
    if cursor:
        middle = cursor[len(cursor) // 2]
        if 0 <= middle < view.width:
            cells[middle] = CURSOR_MARK
            styles[middle] = "bold white"
    between = view.columns_between
    for gap in gaps:
        cols = between(gap.start_ns, gap.end_ns)
        if cols is None:
            continue
        mid = (cols[0] + cols[1] + 1) // 2  # (the middle of columns_of's range)
        cells[mid] = GAP_MARK
        styles[mid] = "red"
    if selected is not None:
        for col in columns_of(view, selected.start_ns, selected.end_ns):
            cells[col] = GAP_MARK if cells[col] == GAP_MARK else "▔"
            styles[col] = "bold yellow"
    text = append_runs(_label(label, label_width, "dim"), cells, styles)
    text.no_wrap = True
    return text


def render_axis(view: TimelineView, origin_ns: int, label_width: int) -> Text:
    """Two lines: tick marks, then tick labels (time from ``origin_ns``, readable units)."""
    width = view.width
    rel0, rel1 = view.t0 - origin_ns, view.t1 - origin_ns
    ticks = nice_ticks(rel0, rel1, max(2, width // 14))
    step = ticks[1] - ticks[0] if len(ticks) > 1 else max(rel1 - rel0, 1)
    scale, unit = unit_for(max(abs(t) for t in ticks) if ticks else step)
    decimals = decimals_for(step, scale)
    marks = ["─"] * width
    labels = [" "] * width
    next_free = 0
    for tick in ticks:
        col = view.column_of(round(tick + origin_ns))
        if col is None:
            continue
        marks[col] = "┬"
        label = fmt_at(tick, scale, unit, decimals)
        start = min(col, width - len(label))
        if start < next_free or start < 0:
            continue
        labels[start:start + len(label)] = list(label)
        next_free = start + len(label) + 2
    top = Text(" " * (label_width + 1), no_wrap=True)
    top.append("".join(marks), "bright_black")
    bottom = Text(" " * (label_width + 1), no_wrap=True)
    bottom.append("".join(labels), "dim")
    return Text("\n", no_wrap=True, end="").join([top, bottom])
