"""The lines the timeline pane draws around its lanes: the names and marks inside the lanes,
the window line above them, the cursor's event and the legend below (functions of the data
and the ``Viewport``; the pane puts them on screen)."""

from __future__ import annotations

import polars as pl
from rich.text import Text

from kernelscope.core.durations import fmt_ns, fmt_window
from kernelscope.core.shares import fmt_pct
from kernelscope.core.words import plural
from kernelscope.timeline.analysis.critical_path.lane_spans import StepPath, step_at, step_path
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.analysis.timeline_view import TimelineView
from kernelscope.timeline.screens.timeline_views.viewport import Viewport
from kernelscope.timeline.screens.widgets.timeline_draw import (
    GAP_MARK,
    Highlight,
    LaneMarks,
    columns_of,
    render_lanes,
)
from kernelscope.timeline.screens.widgets.timeline_event import event_line, event_name

LABEL_COLUMNS = 3
"""An event gets its name drawn when it spans at least this many columns."""


def lane_marks(
    data: TimelineData, view: TimelineView, port: Viewport, chosen_kernel: str | None,
    cursor_cols: range,
) -> dict[str, LaneMarks]:
    """Per lane: the names that fit, the cursor, the chosen kernel's columns, and the columns
    of the critical path of the step in the window's middle when ``port.show_path``."""
    index = data.index
    chosen = index.instance_coverage(chosen_kernel) if chosen_kernel else {}
    path = path_columns(data, view, port) if port.show_path else {}
    edges = None
    out: dict[str, LaneMarks] = {}
    for lane in index.lanes:
        labels: tuple[tuple[int, int, str], ...] = ()
        if lane.kind != "gpu":
            events = index.lane_events(lane.key)
            labels = tuple(
                (label.first, label.last,
                 event_name(str(events.frame["kind"][label.index]), label.text,
                            data.short_name))
                for label in events.labels(port.t0, port.t1, view.width, LABEL_COLUMNS)
            )
        instances: list[float] = []
        coverage = chosen.get(lane.key)
        if coverage is not None:
            if edges is None:
                edges = pl.Series(view.edges, dtype=pl.Int64)
            instances = coverage.busy_per_bin(edges).to_list()
        cursor = cursor_cols if lane.key == port.cursor_lane else range(0)
        on_path = path.get(lane.key, frozenset())
        if labels or instances or cursor or on_path:
            out[lane.key] = LaneMarks(labels, cursor, instances, on_path)
    return out


def cursor_columns(view: TimelineView, port: Viewport) -> range:
    """The columns the cursor's event takes in ``view`` (none without a cursor)."""
    cursor = port.cursor_span()
    if cursor is None:
        return range(0)
    return columns_of(view, cursor[0], max(cursor[1], cursor[0] + 1))


def drawn_lanes(data: TimelineData, view: TimelineView, port: Viewport, label_width: int, *,
                chosen_kernel: str | None = None, highlight: Highlight | None = None) -> Text:
    """The lanes as the pane draws them for ``view`` of ``port``'s window: every lane's
    label and cells, with the names that fit, the cursor, the chosen kernel's instances and
    the critical path's columns."""
    marks = lane_marks(data, view, port, chosen_kernel, cursor_columns(view, port))
    return render_lanes(view, data.index.lanes, label_width, highlight, marks,
                        port.cursor_lane)


def shown_step(data: TimelineData, port: Viewport) -> StepPath | None:
    """The step in the window's middle and its critical path's spans (None without steps)."""
    cp = data.critical_path
    step = step_at(cp, (port.t0 + port.t1) // 2)
    return None if step is None else step_path(cp, data.critical_model.graph, step)


def path_columns(data: TimelineData, view: TimelineView, port: Viewport
                 ) -> dict[str, frozenset[int]]:
    """Per lane key, the columns of ``view`` where the shown step's critical path runs."""
    shown = shown_step(data, port)
    if shown is None:
        return {}
    out: dict[str, frozenset[int]] = {}
    for key, spans in shown.spans.items():
        cols: set[int] = set()
        for first, last in spans:
            found = view.columns_between(first, max(last, first + 1))
            if found is not None:
                cols.update(range(found[0], found[1] + 1))
        if cols:
            out[key] = frozenset(cols)
    return out


def event_text(data: TimelineData, port: Viewport) -> Text:
    """The line under the lanes: what the cursor's event is."""
    if port.cursor_lane is None or port.cursor_index is None:
        return Text("No events to put the cursor on.", style="dim")
    info = data.index.describe(port.cursor_lane, port.cursor_index)
    if info is None:
        return Text("")
    return event_line(info, data.start_ns, data.short_name)


def window_text(port: Viewport) -> str:
    """``694.5 ms → 816.9 ms`` from the start of the report."""
    first, last = fmt_window(port.t0 - port.start_ns, port.t1 - port.start_ns)
    return f"{first} → {last}"


def busy_pct(view: TimelineView, keys: list[str]) -> float | None:
    """The share of the window the lanes ``keys`` are busy, in % (None without lanes)."""
    if not keys:
        return None
    widths = [b - a for a, b in zip(view.edges, view.edges[1:], strict=False)]
    total = sum(widths) * len(keys)
    busy = sum(view.busy[k][c] * w for k in keys for c, w in enumerate(widths))
    return 100.0 * busy / total if total else 0.0


def range_text(
    data: TimelineData, view: TimelineView, port: Viewport, gpu_keys: list[str], note: str
) -> str:
    """The line above the lanes: the window, its width and zoom, the GPUs' busy share."""
    span = port.t1 - port.t0
    zoom = port.full_span / max(span, 1)
    parts = [
        window_text(port),
        f"{fmt_ns(span)} of {fmt_ns(port.full_span)}" + (f" ×{zoom:,.0f}"
                                                         if zoom >= 1.5 else ""),
    ]
    busy = busy_pct(view, gpu_keys)
    if busy is not None:
        parts.append(f"GPU busy {fmt_pct(busy, 1, sign=True)} of it")
    if note:
        parts.append(note)
    return " · ".join(parts)


def legend(data: TimelineData, chosen_kernel: str | None, port: Viewport | None = None) -> str:
    """The last line: what the marks mean and the keys (and the kernel highlighted, and the
    step whose critical path is marked)."""
    count = len(data.large_gaps)
    text = (f"█▓▒░ busy  · idle  {GAP_MARK} large gap ({count:,}: g / G)  "
            "←/→ event  ↑/↓ lane  enter zoom to it")
    shown = shown_step(data, port) if port is not None and port.show_path else None
    if shown is not None:
        text = (f"yellow: critical path of {shown.name or 'the trace'} "
                f"({fmt_ns(shown.end - shown.start)}; p hides)  · {text}")
    if chosen_kernel is not None:
        instances = data.report.kernels.filter(
            pl.col("name").cast(pl.String) == chosen_kernel).height
        text = (f"magenta: {data.short_name(chosen_kernel)} "
                f"({plural(instances, 'instance')}; escape clears)  · {text}")
    return text
