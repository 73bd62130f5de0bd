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
from collections.abc import Callable
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from kernelscope.core.durations import fmt_ns
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.analysis.timeline_view import Gap, TimelineView
from kernelscope.timeline.screens.timeline_views.timeline_keys import (
    TIMELINE_BINDINGS,
    TIMELINE_CSS,
)
from kernelscope.timeline.screens.timeline_views.timeline_lines import (
    cursor_columns,
    drawn_lanes,
    event_text,
    legend,
    range_text,
)
from kernelscope.timeline.screens.timeline_views.viewport import MIN_COLUMNS, ZOOM_STEP, Viewport
from kernelscope.timeline.screens.widgets.timeline_draw import (
    Highlight,
    columns_of,
    render_axis,
    render_gap_marks,
    render_sparkline,
)
from kernelscope.timeline.screens.widgets.timeline_gap import gap_text
from kernelscope.timeline.screens.widgets.timeline_metrics import (
    METRIC_SETS,
    metric_lanes,
    render_metric_lanes,
    values_at,
)

LABEL_MAX = 24
LABEL_MIN = 10
PANEL_WIDTH = 40

class LanesColumn(Vertical):
    """The left part of the timeline view (lanes, axis, details); it says when its width
    changes, which the pane's own size does not tell when the gap panel opens or closes."""

    class Resized(Message):
        """The column's size changed."""

    def on_resize(self) -> None:
        self.post_message(self.Resized())


class TimelinePane(Horizontal, can_focus=True):
    """The interactive timeline. The keys work while it has focus (it takes it when shown)."""

    BINDINGS = TIMELINE_BINDINGS
    DEFAULT_CSS = TIMELINE_CSS

    class GapSelected(Message):
        """A gap was selected (or, with None, the selection cleared)."""

        def __init__(self, gap: Gap | None) -> None:
            super().__init__()
            self.gap = gap

    def __init__(self) -> None:
        super().__init__(id="timeline-view")
        self.metric_choice = METRIC_SETS[0]
        self.data: TimelineData | None = None
        self.viewport = Viewport()
        """The window shown and the cursor."""
        self.selected: Gap | None = None
        self.view: TimelineView | None = None
        self.note = ""
        self.last_draw_ms = 0.0
        self._redraw_asked = False  # a redraw after the next refresh (request_redraw)
        self.lanes_column = LanesColumn(id="tl-left")  # its width is read on every redraw
        self._shapes: dict[str, object] = {}
        """Per Static of the view, the shape of its text at the last update (``_show``)."""
        self.chosen_kernel: str | None = None
        """The kernel (demangled) whose every instance is highlighted."""

    def compose(self) -> ComposeResult:
        with self.lanes_column:
            yield Static("", id="tl-range", markup=False)
            yield Static("", id="tl-head")
            values = Static("", id="tl-values")
            values.display = False  # hidden from the start (no query in on_mount that a
            yield values            # closing app could run after its children are gone)
            with VerticalScroll(id="tl-lanes-scroll", can_focus=False):
                yield Static("", id="tl-lanes")
            yield Static("", id="tl-event")
            yield Static("", id="tl-legend", markup=False)
        gap_panel = VerticalScroll(id="tl-gap-panel", can_focus=False)
        gap_panel.display = False
        with gap_panel:
            yield Static("", id="tl-gap-body")

    # -- data and window -------------------------------------------------------------------
    def show(self, data: TimelineData) -> None:
        self.data = data
        self.viewport.show(data.index, data.start_ns, data.end_ns)
        self.refresh_bindings()
        self.redraw()

    def cursor_span(self) -> tuple[int, int] | None:
        """[start, end) of the cursor's event."""
        return self.viewport.cursor_span()

    # -- the cursor ------------------------------------------------------------------------
    def set_cursor(self, lane: str, index: int) -> None:
        """Put the cursor on event ``index`` of ``lane``, bringing it into view."""
        self.viewport.set_cursor(lane, index)
        self.redraw()
        self._scroll_to_cursor()

    def _move_cursor(self, target: tuple[str, int] | None) -> None:
        if self.cursor_span() is None:
            return
        if target is None:
            self.app.bell()
            return
        self.set_cursor(*target)

    def action_cursor(self, direction: int) -> None:
        self._move_cursor(self.viewport.step(direction))

    def action_lane(self, step: int) -> None:
        """The nearest event of the next lane with events above (-1) or below (1)."""
        self._move_cursor(self.viewport.step_lane(step))

    def action_zoom_event(self) -> None:
        if self.viewport.zoom_to_event():
            self.note = ""
            self.redraw()

    def _scroll_to_cursor(self) -> None:
        if self.data is None or self.viewport.cursor_lane is None:
            return
        keys = [lane.key for lane in self.data.index.lanes]
        if self.viewport.cursor_lane in keys:
            row = keys.index(self.viewport.cursor_lane)
            scroll = self.query_one("#tl-lanes-scroll", VerticalScroll)
            if row < scroll.scroll_y:
                scroll.scroll_to(y=row, animate=False)
            elif row >= scroll.scroll_y + scroll.size.height:
                scroll.scroll_to(y=row - scroll.size.height + 1, animate=False)

    def choose_kernel(self, name: str | None) -> None:
        """Highlight every instance of kernel ``name`` (None: none), the cursor on the first."""
        self.chosen_kernel = name
        if name is not None:
            self.viewport.cursor_on_kernel(name)
        self.redraw()

    def set_window(self, t0: int, t1: int) -> None:
        """Show [t0, t1), clamped to the report and to at least a nanosecond per column."""
        if self.data is not None:
            self.viewport.set_window(t0, t1)
            self.redraw()

    # -- drawing ---------------------------------------------------------------------------
    def label_width(self) -> int:
        """The columns the lane names take (the lanes are drawn right of them)."""
        if self.data is None:
            return LABEL_MIN
        longest = max((len(lane.label) for lane in self.data.index.lanes), default=LABEL_MIN)
        width = self.lanes_column.size.width
        return max(LABEL_MIN, min(LABEL_MAX, longest, width // 4))

    def _columns(self) -> int:
        width = self.lanes_column.size.width
        # padding (1) + label + space + columns + scrollbar gutter (1)
        return max(MIN_COLUMNS, width - self.label_width() - 3)

    def redraw(self) -> None:
        """Re-render the window (cheap: no per-event work), once the lanes have a width."""
        if self.data is None or not self.is_mounted or not self.lanes_column.size.width:
            return
        started = time.perf_counter()
        data, port = self.data, self.viewport
        index = data.index
        width = port.columns = self._columns()
        label_width = self.label_width()
        view = index.render(port.t0, port.t1, width)
        self.view = view
        cursor_cols = cursor_columns(view, port)
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
        metric_rows = render_metric_lanes(data, mlanes, port.t0, port.t1, view.width,
                                          label_width, highlight, view.column_of(probe))
        head = Text("\n", no_wrap=True, end="").join([
            render_sparkline(util, "GPU utilisation", label_width, highlight),
            *metric_rows,
            render_gap_marks(view, data.gaps_between(port.t0, port.t1), self.selected,
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
        lanes = drawn_lanes(data, view, port, label_width, chosen_kernel=self.chosen_kernel,
                            highlight=highlight)
        self._show("#tl-lanes", lanes if index.lanes else Text(
            "No GPU or CPU activity was traced in this report.", style="dim"))
        self._show("#tl-range", range_text(data, view, self.viewport, gpu_keys, self.note),
                   fixed=True)
        self._show("#tl-legend", legend(data, self.chosen_kernel, port), fixed=True)
        self._show("#tl-event", event_text(data, self.viewport))
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
        """Where the metric values are read (``Viewport.probe``)."""
        return self.viewport.probe(None if self.selected is None else self.selected.start_ns)

    def action_critical_path(self) -> None:
        self.viewport.show_path = not self.viewport.show_path
        self.redraw()

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

    def _update_panel(self) -> None:
        panel = self.query_one("#tl-gap-panel")
        data = self.data
        gap = self.selected
        if panel.display != (gap is not None):
            panel.display = gap is not None
            self.request_redraw()  # the lanes got narrower or wider
        if gap is None or data is None:
            return
        body = gap_text(
            gap, data.explanation(gap), position=data.gap_position(gap),
            total=len(data.large_gaps), origin_ns=data.start_ns,
            explained=len(data.explanations), width=self._panel_text_width(),
            profiler=data.report.profiler,
        )
        self.query_one("#tl-gap-body", Static).update(body)

    def _panel_text_width(self) -> int:
        """The columns a line of the gap panel has: inside its border and padding, less one
        for its scrollbar (before its first layout: the width its style gives it)."""
        panel = self.query_one("#tl-gap-panel", VerticalScroll)
        inner = panel.size.width - panel.styles.scrollbar_size_vertical
        return inner if inner > 0 else PANEL_WIDTH - 4

    def request_redraw(self) -> None:
        """Redraw after the next refresh, once however many ask (a first Resize draws)."""
        if not self._redraw_asked:
            self._redraw_asked = True
            self.call_after_refresh(self._asked_redraw)

    def _asked_redraw(self) -> None:
        self._redraw_asked = False
        self.redraw()

    def on_resize(self) -> None:
        self.request_redraw()

    def on_lanes_column_resized(self, event: LanesColumn.Resized) -> None:
        """The lanes' column changed width without the pane changing (the gap panel opened
        or closed, maybe while another view was shown): draw for the width it has now."""
        event.stop()
        self.request_redraw()

    # -- actions ---------------------------------------------------------------------------
    def action_zoom_in(self) -> None:
        self._move_window(self.viewport.zoom, 1 / ZOOM_STEP)

    def action_zoom_out(self) -> None:
        self._move_window(self.viewport.zoom, ZOOM_STEP)

    def action_pan(self, direction: int) -> None:
        self._move_window(self.viewport.pan, direction)

    def _move_window(self, move: Callable[[Any], None], amount: float) -> None:
        self.note = ""
        move(amount)
        self.redraw()

    def action_reset(self) -> None:
        if self.data is None:
            return
        self.note = ""
        if self.selected is not None:
            self.selected = None
            self.post_message(self.GapSelected(None))
        self.viewport.reset()
        self.redraw()

    def action_gap(self, direction: int) -> None:
        data = self.data
        if data is None:
            return
        if self.selected is not None:
            here = (self.selected.start_ns, self.selected.device, self.selected.end_ns)
            gap = data.next_gap(here) if direction > 0 else data.previous_gap(here)
        elif direction > 0:
            gap = data.next_gap((self.viewport.t0, -1, -1))
        else:
            gap = data.previous_gap((self.viewport.t1, -1, -1))
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
        self.note = ""
        self.viewport.around_gap(gap.start_ns, gap.end_ns)
        self.redraw()

    def show_range(self, t0: int, t1: int, note: str = "") -> None:
        """Show [t0, t1) with some margin, e.g. every instance of a kernel."""
        if self.selected is not None:
            self.selected = None
            self.post_message(self.GapSelected(None))
        self.note = note
        self.viewport.around_range(t0, t1)
        self.redraw()

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
