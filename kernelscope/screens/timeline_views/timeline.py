"""View 2 — the ASCII timeline: one lane per GPU and stream, NVTX lanes per thread and nesting
level, CUDA API lanes per thread, a utilisation sparkline, zoom/pan, a cursor over the events,
and stepping through large idle gaps with their causes.

Each redraw asks ``TimelineIndex.render`` for the busy share of every lane per column (a few
binary searches per lane, whatever the number of kernels) and draws those cells; the names of
the events wide enough to hold them come from each lane's events (``LaneEvents.labels``, a
binary search and the events of the window that span a few columns). The cursor is a lane
and an event of it: ←/→ step from event to event, ↑/↓ go to the nearest event of the lane
above or below, zoom keeps the cursor's event in the middle, and the line under the lanes
says what the event is (``describe``).
"""

from __future__ import annotations

import time

import polars as pl
from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from kernelscope.core.durations import fmt_ns, fmt_window
from kernelscope.core.shares import fmt_pct
from kernelscope.core.words import plural
from kernelscope.parsers.nsys import Gap, TimelineView
from kernelscope.parsers.nsys.timeline_data import TimelineData
from kernelscope.tui.widgets.timeline_draw import (
    GAP_MARK,
    Highlight,
    LaneMarks,
    columns_of,
    render_axis,
    render_gap_marks,
    render_lanes,
    render_sparkline,
)
from kernelscope.tui.widgets.timeline_event import event_line, event_name
from kernelscope.tui.widgets.timeline_gap import gap_text
from kernelscope.tui.widgets.timeline_metrics import (
    METRIC_SETS,
    metric_lanes,
    render_metric_lanes,
    values_at,
)

ZOOM_STEP = 2.0
PAN_STEP = 0.25  # of the window
GAP_CONTEXT = 3  # a jumped-to gap takes a third of the window
LABEL_MAX = 24
LABEL_MIN = 10
MIN_COLUMNS = 10
PANEL_WIDTH = 40
LABEL_COLUMNS = 3
"""An event gets its name drawn when it spans at least this many columns."""
EVENT_CONTEXT = 8
"""``enter`` zooms so the cursor's event takes an eighth of the window."""


class LanesColumn(Vertical):
    """The left part of the timeline view (lanes, axis, details); it says when its width
    changes, which the pane's own size does not tell when the gap panel opens or closes."""

    class Resized(Message):
        """The column's size changed."""

    def on_resize(self) -> None:
        self.post_message(self.Resized())


class TimelinePane(Horizontal, can_focus=True):
    """The interactive timeline. The keys work while it has focus (it takes it when shown)."""

    BINDINGS = [
        Binding("plus,equals_sign,i", "zoom_in", "Zoom in", id="timeline.zoom-in",
                tooltip="Zoom in ×2 around the cursor's event (the middle without a cursor)."),
        Binding("minus,o", "zoom_out", "Zoom out", id="timeline.zoom-out",
                tooltip="Zoom out ×2 around the cursor's event."),
        Binding("left", "cursor(-1)", "Prev event", show=False,
                id="timeline.cursor-left",
                tooltip="Move the cursor to the previous event of its lane."),
        Binding("right", "cursor(1)", "Next event", show=False,
                id="timeline.cursor-right",
                tooltip="Move the cursor to the next event of its lane."),
        Binding("enter", "zoom_event", "Zoom to event", show=False, id="timeline.zoom-event",
                tooltip="Zoom so that the cursor's event fills an eighth of the window."),
        Binding("h,shift+left", "pan(-1)", "Earlier", show=False,
                id="timeline.pan-left",
                tooltip="Move the window a quarter of its width to the left (earlier)."),
        Binding("l,shift+right", "pan(1)", "Later", show=False,
                id="timeline.pan-right",
                tooltip="Move the window a quarter of its width to the right (later)."),
        Binding("0", "reset", "All", show=False, id="timeline.reset",
                tooltip="Show the whole report again."),
        Binding("g", "gap(1)", "Next gap", id="timeline.next-gap",
                tooltip="Jump to the next large GPU idle gap and explain it in the side panel."),
        Binding("G", "gap(-1)", "Prev gap", show=False,
                id="timeline.prev-gap",
                tooltip="Jump to the previous large GPU idle gap and explain it."),
        Binding("up,k", "lane(-1)", "Lane up", show=False, id="timeline.lane-up",
                tooltip="Move the cursor to the nearest event of the lane above."),
        Binding("down,j", "lane(1)", "Lane down", show=False, id="timeline.lane-down",
                tooltip="Move the cursor to the nearest event of the lane below."),
        Binding("pageup", "scroll_lanes(-1)", "Page up", show=False, id="timeline.page-up",
                tooltip="Scroll the lanes up a page (when there are more than fit)."),
        Binding("pagedown", "scroll_lanes(1)", "Page down", show=False,
                id="timeline.page-down", tooltip="Scroll the lanes down a page."),
        Binding("m", "metric_lanes", "Metric lanes", show=False, id="timeline.metric-lanes",
                tooltip="GPU metric lanes: the default four (SMs active, SM issue, tensor "
                "active, DRAM read), every metric read, or none."),
    ]

    DEFAULT_CSS = """
    TimelinePane {
        height: 1fr;
    }
    TimelinePane #tl-left {
        width: 1fr;
        height: 1fr;
    }
    TimelinePane #tl-range, TimelinePane #tl-legend {
        height: 1;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    TimelinePane #tl-range {
        background: $boost;
    }
    TimelinePane #tl-legend {
        color: $text-muted;
    }
    TimelinePane #tl-event {
        height: auto;
        max-height: 2;
        padding: 0 1;
        background: $boost;
    }
    TimelinePane #tl-head {
        height: 4;
        padding: 0 1;
    }
    TimelinePane #tl-values {
        height: 1;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    TimelinePane #tl-lanes-scroll {
        height: 1fr;
        padding: 0 0 0 1;
        scrollbar-size-vertical: 1;
        scrollbar-gutter: stable;
    }
    TimelinePane #tl-lanes {
        width: auto;
        height: auto;
    }
    TimelinePane #tl-gap-panel {
        width: 40;
        height: 1fr;
        border-left: vkey $primary;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    TimelinePane:focus #tl-range {
        text-style: bold;
    }
    """

    class GapSelected(Message):
        """A gap was selected (or, with None, the selection cleared)."""

        def __init__(self, gap: Gap | None) -> None:
            super().__init__()
            self.gap = gap

    def __init__(self) -> None:
        super().__init__(id="timeline-view")
        self.metric_choice = METRIC_SETS[0]
        self.data: TimelineData | None = None
        self.t0 = 0
        self.t1 = 1
        self.selected: Gap | None = None
        self.view: TimelineView | None = None
        self.note = ""
        self.last_draw_ms = 0.0
        self._shapes: dict[str, object] = {}
        """Per Static of the view, the shape of its text at the last update (``_show``)."""
        self.cursor_lane: str | None = None
        self.cursor_index: int | None = None
        self.chosen_kernel: str | None = None
        """The kernel (demangled) whose every instance is highlighted."""

    def compose(self) -> ComposeResult:
        with LanesColumn(id="tl-left"):
            yield Static("", id="tl-range", markup=False)
            yield Static("", id="tl-head")
            yield Static("", id="tl-values")
            with VerticalScroll(id="tl-lanes-scroll", can_focus=False):
                yield Static("", id="tl-lanes")
            yield Static("", id="tl-event")
            yield Static("", id="tl-legend", markup=False)
        with VerticalScroll(id="tl-gap-panel", can_focus=False):
            yield Static("", id="tl-gap-body")

    def on_mount(self) -> None:
        self.query_one("#tl-gap-panel").display = False
        self.query_one("#tl-values").display = False

    # -- data and window -------------------------------------------------------------------
    def show(self, data: TimelineData) -> None:
        self.data = data
        self.t0, self.t1 = data.start_ns, max(data.end_ns, data.start_ns + 1)
        self.refresh_bindings()
        self._place_cursor()
        self.redraw()

    # -- the cursor ------------------------------------------------------------------------
    def _event_lanes(self) -> list[str]:
        """The lanes the cursor can be on (those with events), top to bottom."""
        if self.data is None:
            return []
        index = self.data.index
        return [lane.key for lane in index.lanes if len(index.lane_events(lane.key))]

    def _place_cursor(self) -> None:
        """Start on the first GPU work (the first event of the first stream), else the
        first event of any lane."""
        lanes = self._event_lanes()
        if not lanes or self.data is None:
            self.cursor_lane = self.cursor_index = None
            return
        streams = [k for k in lanes if self.data.index.lane(k).kind == "stream"]
        self.cursor_lane = (streams or lanes)[0]
        self.cursor_index = 0

    def cursor_span(self) -> tuple[int, int] | None:
        """[start, end) of the cursor's event."""
        if self.data is None or self.cursor_lane is None or self.cursor_index is None:
            return None
        events = self.data.index.lane_events(self.cursor_lane)
        if not 0 <= self.cursor_index < len(events):
            return None
        return events.span(self.cursor_index)

    def set_cursor(self, lane: str, index: int) -> None:
        """Put the cursor on event ``index`` of ``lane``, bringing it into view."""
        self.cursor_lane, self.cursor_index = lane, index
        span = self.cursor_span()
        if span is not None and not (self.t0 <= span[0] < self.t1 or self.t0 < span[1] <= self.t1):
            width = self.t1 - self.t0
            middle = (span[0] + span[1]) // 2
            self.set_window(middle - width // 2, middle - width // 2 + width)
        else:
            self.redraw()
        self._scroll_to_cursor()

    def action_cursor(self, direction: int) -> None:
        if self.data is None or self.cursor_lane is None or self.cursor_index is None:
            return
        events = self.data.index.lane_events(self.cursor_lane)
        other = events.step(self.cursor_index, direction)
        if other is None:
            self.app.bell()
            return
        self.set_cursor(self.cursor_lane, other)

    def action_lane(self, step: int) -> None:
        """The nearest event of the next lane with events above (-1) or below (1)."""
        lanes = self._event_lanes()
        span = self.cursor_span()
        if self.data is None or not lanes or self.cursor_lane not in lanes or span is None:
            return
        position = lanes.index(self.cursor_lane) + step
        if not 0 <= position < len(lanes):
            self.app.bell()
            return
        key = lanes[position]
        middle = (span[0] + span[1]) // 2
        if not self.t0 <= middle < self.t1:
            middle = (self.t0 + self.t1) // 2
        found = self.data.index.lane_events(key).nearest(middle)
        if found is not None:
            self.set_cursor(key, found)

    def action_zoom_event(self) -> None:
        span = self.cursor_span()
        if span is None:
            return
        width = max((span[1] - span[0]) * EVENT_CONTEXT, self._min_span())
        middle = (span[0] + span[1]) // 2
        self.note = ""
        self.set_window(middle - width // 2, middle - width // 2 + width)

    def _scroll_to_cursor(self) -> None:
        if self.data is None or self.cursor_lane is None:
            return
        keys = [lane.key for lane in self.data.index.lanes]
        if self.cursor_lane in keys:
            row = keys.index(self.cursor_lane)
            scroll = self.query_one("#tl-lanes-scroll", VerticalScroll)
            if row < scroll.scroll_y:
                scroll.scroll_to(y=row, animate=False)
            elif row >= scroll.scroll_y + scroll.size.height:
                scroll.scroll_to(y=row - scroll.size.height + 1, animate=False)

    def choose_kernel(self, name: str | None) -> None:
        """Highlight every instance of kernel ``name`` (None: none) and put the cursor on
        its first one."""
        self.chosen_kernel = name
        if name is not None and self.data is not None:
            index = self.data.index
            for lane in index.lanes:
                if lane.kind != "stream":
                    continue
                events = index.lane_events(lane.key)
                hits = events.frame.with_row_index("i").filter(pl.col("name") == name)
                if hits.height:
                    self.cursor_lane, self.cursor_index = lane.key, int(hits["i"][0])
                    break
        self.redraw()

    @property
    def full_span(self) -> int:
        if self.data is None:
            return 1
        return max(self.data.end_ns - self.data.start_ns, 1)

    def _min_span(self) -> int:
        return max(self._columns(), MIN_COLUMNS)

    def set_window(self, t0: int, t1: int) -> None:
        """Show [t0, t1), clamped to the report and to at least a nanosecond per column."""
        if self.data is None:
            return
        lo, hi = self.data.start_ns, self.data.start_ns + self.full_span
        span = min(max(t1 - t0, self._min_span()), hi - lo)
        t0 = min(max(t0, lo), hi - span)
        self.t0, self.t1 = t0, t0 + span
        self.redraw()

    def window_text(self) -> str:
        """``694.5 ms → 816.9 ms`` from the start of the report."""
        origin = self.data.start_ns if self.data is not None else 0
        first, last = fmt_window(self.t0 - origin, self.t1 - origin)
        return f"{first} → {last}"

    # -- drawing ---------------------------------------------------------------------------
    def _label_width(self) -> int:
        if self.data is None:
            return LABEL_MIN
        longest = max((len(lane.label) for lane in self.data.index.lanes), default=LABEL_MIN)
        width = self.query_one("#tl-left").size.width
        return max(LABEL_MIN, min(LABEL_MAX, longest, width // 4))

    def _columns(self) -> int:
        width = self.query_one("#tl-left").size.width
        # padding (1) + label + space + columns + scrollbar gutter (1)
        return max(MIN_COLUMNS, width - self._label_width() - 3)

    def redraw(self) -> None:
        """Re-render the window (cheap: no per-event work)."""
        if self.data is None or not self.is_mounted:
            return
        started = time.perf_counter()
        data = self.data
        index = data.index
        width = self._columns()
        label_width = self._label_width()
        view = index.render(self.t0, self.t1, width)
        self.view = view
        cursor = self.cursor_span()
        cursor_cols = range(0)
        if cursor is not None:
            cursor_cols = columns_of(view, cursor[0], max(cursor[1], cursor[0] + 1))
        highlight = Highlight()
        if self.selected is not None:
            highlight = Highlight(columns_of(view, self.selected.start_ns, self.selected.end_ns))
        gpu_keys = [lane.key for lane in index.lanes if lane.kind == "gpu"]
        util = [
            sum(view.busy[k][c] for k in gpu_keys) / len(gpu_keys) if gpu_keys else 0.0
            for c in range(view.width)
        ]
        threshold = fmt_ns(data.large_gap_ns, compact=True)
        mlanes = metric_lanes(data, self.metric_choice)
        probe, when = self.probe_time()
        metric_rows = render_metric_lanes(data, mlanes, self.t0, self.t1, view.width,
                                          label_width, highlight, view.column_of(probe))
        head = Text("\n", no_wrap=True, end="").join([
            render_sparkline(util, "GPU utilisation", label_width, highlight),
            *metric_rows,
            render_gap_marks(view, data.gaps_between(self.t0, self.t1), self.selected,
                             label_width, f"gaps ≥ {threshold}", cursor_cols),
            render_axis(view, data.start_ns, label_width),
        ])
        head_widget = self.query_one("#tl-head", Static)
        head_widget.styles.height = 4 + len(metric_rows)
        self._show("#tl-head", head)
        values = self.query_one("#tl-values", Static)
        values.display = bool(mlanes)
        if mlanes:
            self._show("#tl-values", values_at(mlanes, probe, data.start_ns, when), fixed=True)
        lanes = render_lanes(view, index.lanes, label_width, highlight,
                             self._marks(view, cursor_cols), self.cursor_lane)
        self._show("#tl-lanes", lanes if index.lanes else Text(
            "No GPU or CPU activity was traced in this report.", style="dim"))
        self._show("#tl-range", self._range_text(view, gpu_keys), fixed=True)
        self._show("#tl-legend", self._legend(), fixed=True)
        self._show("#tl-event", self._event_text())
        self._update_panel()
        self.last_draw_ms = (time.perf_counter() - started) * 1000

    def _show(self, selector: str, content: Text | str, *, fixed: bool = False) -> None:
        """Update a Static of the view, asking Textual for a layout pass only when the text's
        shape (its line count and widest line) or the widget's width changed since the last
        time; a ``fixed`` widget's size never follows its text. (A layout pass re-arranges
        the whole screen: it took most of a key's time on a large trace.)"""
        widget = self.query_one(selector, Static)
        plain = content.plain if isinstance(content, Text) else content
        lines = plain.split("\n")
        shape = None if fixed else (len(lines), max(map(cell_len, lines)), widget.size.width)
        layout = shape is not None and self._shapes.get(selector) != shape
        self._shapes[selector] = shape
        widget.update(content, layout=layout)

    def probe_time(self) -> tuple[int, str]:
        """Where the metric values are read (marked in the metric lanes): the start of the
        cursor's event, else the selected gap's start, else the middle of the window."""
        cursor = self.cursor_span()
        if cursor is not None and self.t0 <= cursor[0] < self.t1:
            return cursor[0], "the cursor"
        if self.selected is not None:
            return self.selected.start_ns, "the selected gap"
        return (self.t0 + self.t1) // 2, "the middle of the window"

    def action_metric_lanes(self) -> None:
        """Cycle the GPU metric lanes: default four, every metric read, none (a report
        without GPU metrics says so, and how to collect them)."""
        if self.data is None:
            return
        if not self.data.report.gpu_metrics.present:
            self.notify(self.data.metrics_verdicts[0].sentence, timeout=6)
            return
        i = METRIC_SETS.index(self.metric_choice)
        self.metric_choice = METRIC_SETS[(i + 1) % len(METRIC_SETS)]
        self.redraw()

    def _marks(self, view: TimelineView, cursor_cols: range) -> dict[str, LaneMarks]:
        """Per lane: the names that fit, the cursor, the chosen kernel's columns."""
        data = self.data
        if data is None:
            return {}
        index = data.index
        chosen = index.instance_coverage(self.chosen_kernel) if self.chosen_kernel else {}
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
                    for label in events.labels(self.t0, self.t1, view.width, LABEL_COLUMNS)
                )
            instances: list[float] = []
            coverage = chosen.get(lane.key)
            if coverage is not None:
                if edges is None:
                    edges = pl.Series(view.edges, dtype=pl.Int64)
                instances = coverage.busy_per_bin(edges).to_list()
            cursor = cursor_cols if lane.key == self.cursor_lane else range(0)
            if labels or instances or cursor:
                out[lane.key] = LaneMarks(labels, cursor, instances)
        return out

    def _event_text(self) -> Text:
        data = self.data
        if data is None or self.cursor_lane is None or self.cursor_index is None:
            return Text("No events to put the cursor on.", style="dim")
        info = data.index.describe(self.cursor_lane, self.cursor_index)
        if info is None:
            return Text("")
        return event_line(info, data.start_ns, data.short_name)

    def _busy_pct(self, view: TimelineView, keys: list[str]) -> float | None:
        if not keys:
            return None
        widths = [b - a for a, b in zip(view.edges, view.edges[1:], strict=False)]
        total = sum(widths) * len(keys)
        busy = sum(view.busy[k][c] * w for k in keys for c, w in enumerate(widths))
        return 100.0 * busy / total if total else 0.0

    def _range_text(self, view: TimelineView, gpu_keys: list[str]) -> str:
        span = self.t1 - self.t0
        zoom = self.full_span / max(span, 1)
        parts = [
            self.window_text(),
            f"{fmt_ns(span)} of {fmt_ns(self.full_span)}" + (f" ×{zoom:,.0f}"
                                                             if zoom >= 1.5 else ""),
        ]
        busy = self._busy_pct(view, gpu_keys)
        if busy is not None:
            parts.append(f"GPU busy {fmt_pct(busy, 1, sign=True)} of it")
        if self.note:
            parts.append(self.note)
        return " · ".join(parts)

    def _legend(self) -> str:
        count = len(self.data.large_gaps) if self.data is not None else 0
        legend = (f"█▓▒░ busy  · idle  {GAP_MARK} large gap ({count:,}: g / G)  "
                  "←/→ event  ↑/↓ lane  enter zoom to it")
        if self.chosen_kernel is not None and self.data is not None:
            instances = self.data.report.kernels.filter(
                pl.col("name").cast(pl.String) == self.chosen_kernel).height
            legend = (f"magenta: {self.data.short_name(self.chosen_kernel)} "
                      f"({plural(instances, 'instance')}; escape clears)  · {legend}")
        return legend

    def _update_panel(self) -> None:
        panel = self.query_one("#tl-gap-panel")
        data = self.data
        gap = self.selected
        if panel.display != (gap is not None):
            panel.display = gap is not None
            self.call_after_refresh(self.redraw)  # the lanes got narrower or wider
        if gap is None or data is None:
            return
        body = gap_text(
            gap, data.explanation(gap), position=data.gap_position(gap),
            total=len(data.large_gaps), origin_ns=data.start_ns,
            explained=len(data.explanations), width=self._panel_text_width(),
        )
        self.query_one("#tl-gap-body", Static).update(body)

    def _panel_text_width(self) -> int:
        """The columns a line of the gap panel has: inside its border and padding, less one
        for its scrollbar (before its first layout: the width its style gives it)."""
        panel = self.query_one("#tl-gap-panel", VerticalScroll)
        inner = panel.size.width - panel.styles.scrollbar_size_vertical
        return inner if inner > 0 else PANEL_WIDTH - 4

    def on_resize(self) -> None:
        self.call_after_refresh(self.redraw)

    def on_lanes_column_resized(self, event: LanesColumn.Resized) -> None:
        """The lanes' column changed width without the pane changing (the gap panel opened
        or closed, maybe while another view was shown): draw for the width it has now."""
        event.stop()
        self.call_after_refresh(self.redraw)

    # -- actions ---------------------------------------------------------------------------
    def action_zoom_in(self) -> None:
        self._zoom(1 / ZOOM_STEP)

    def action_zoom_out(self) -> None:
        self._zoom(ZOOM_STEP)

    def _zoom(self, factor: float) -> None:
        """Zoom around the cursor's event when it is in the window (else the middle)."""
        middle = (self.t0 + self.t1) // 2
        span = self.cursor_span()
        if span is not None:
            centre = (span[0] + span[1]) // 2
            if self.t0 <= centre < self.t1:
                middle = centre
        half = int((self.t1 - self.t0) * factor) // 2
        self.note = ""
        self.set_window(middle - half, middle + half)

    def action_pan(self, direction: int) -> None:
        shift = max(1, int((self.t1 - self.t0) * PAN_STEP)) * direction
        self.note = ""
        self.set_window(self.t0 + shift, self.t1 + shift)

    def action_reset(self) -> None:
        if self.data is None:
            return
        self.note = ""
        if self.selected is not None:
            self.selected = None
            self.post_message(self.GapSelected(None))
        self.set_window(self.data.start_ns, self.data.start_ns + self.full_span)

    def action_gap(self, direction: int) -> None:
        data = self.data
        if data is None:
            return
        if self.selected is not None:
            here = (self.selected.start_ns, self.selected.device, self.selected.end_ns)
            gap = data.next_gap(here) if direction > 0 else data.previous_gap(here)
        elif direction > 0:
            gap = data.next_gap((self.t0, -1, -1))
        else:
            gap = data.previous_gap((self.t1, -1, -1))
        if gap is None:
            self.app.bell()
            if not data.large_gaps:
                threshold = fmt_ns(data.large_gap_ns, compact=True)
                message = f"No GPU idle gap of {threshold} or more."
            else:
                message = "No later large gap." if direction > 0 else "No earlier large gap."
            self.notify(message, timeout=2)
            return
        self.select_gap(gap)

    def select_gap(self, gap: Gap) -> None:
        """Centre the window on ``gap`` (a third of it) and explain it in the side panel."""
        self.selected = gap
        self.post_message(self.GapSelected(gap))
        span = max(gap.duration_ns * GAP_CONTEXT, self._min_span())
        middle = (gap.start_ns + gap.end_ns) // 2
        self.note = ""
        self.set_window(middle - span // 2, middle - span // 2 + span)

    def show_range(self, t0: int, t1: int, note: str = "") -> None:
        """Show [t0, t1) with some margin, e.g. every instance of a kernel."""
        margin = max((t1 - t0) // 20, 1)
        if self.selected is not None:
            self.selected = None
            self.post_message(self.GapSelected(None))
        self.note = note
        self.set_window(t0 - margin, t1 + margin)

    def clear_selection(self) -> bool:
        """Close the gap panel, or else stop highlighting the chosen kernel; False when there
        was neither."""
        if self.selected is None:
            if self.chosen_kernel is not None:
                self.choose_kernel(None)
                return True
            return False
        self.selected = None
        self.post_message(self.GapSelected(None))
        self.redraw()
        return True

    def action_scroll_lanes(self, step: int) -> None:
        scroll = self.query_one("#tl-lanes-scroll", VerticalScroll)
        scroll.scroll_relative(y=step * max(1, scroll.size.height - 1), animate=False)
