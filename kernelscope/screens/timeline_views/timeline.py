"""View 2 — the ASCII timeline: one lane per GPU and stream, NVTX and CUDA API lanes per thread,
a utilisation sparkline, zoom/pan, and stepping through large idle gaps with their causes.

Each redraw asks ``TimelineIndex.render`` for the busy share of every lane per column (a few
binary searches per lane, whatever the number of kernels) and draws those cells; nothing here
loops over events.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from kernelscope.parsers.nsys import Gap, TimelineView
from kernelscope.parsers.nsys.timeline_data import TimelineData
from kernelscope.render.format import fmt_ns, fmt_pct, fmt_window
from kernelscope.tui.widgets.timeline_draw import (
    GAP_MARK,
    Highlight,
    columns_of,
    render_axis,
    render_gap_marks,
    render_lanes,
    render_sparkline,
)
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


class TimelinePane(Horizontal, can_focus=True):
    """The interactive timeline. The keys work while it has focus (it takes it when shown)."""

    BINDINGS = [
        Binding("plus,equals_sign,i", "zoom_in", "Zoom in", id="timeline.zoom-in",
                tooltip="Zoom in ×2 around the middle of the window."),
        Binding("minus,o", "zoom_out", "Zoom out", id="timeline.zoom-out",
                tooltip="Zoom out ×2."),
        Binding("left,h", "pan(-1)", "Earlier", id="timeline.pan-left",
                tooltip="Move the window a quarter of its width to the left (earlier)."),
        Binding("right,l", "pan(1)", "Later", id="timeline.pan-right",
                tooltip="Move the window a quarter of its width to the right (later)."),
        Binding("0", "reset", "All", id="timeline.reset",
                tooltip="Show the whole report again."),
        Binding("g", "gap(1)", "Next gap", id="timeline.next-gap",
                tooltip="Jump to the next large GPU idle gap and explain it in the side panel."),
        Binding("G", "gap(-1)", "Prev gap", id="timeline.prev-gap",
                tooltip="Jump to the previous large GPU idle gap and explain it."),
        Binding("m", "metric_lanes", "Metric lanes", id="timeline.metric-lanes",
                tooltip="GPU metric lanes: the default four (SMs active, SM issue, tensor "
                "active, DRAM read), every metric read, or none."),
        Binding("up,k", "scroll_lanes(-1)", "Lanes up", show=False, id="timeline.lanes-up",
                tooltip="Scroll the lanes up (when there are more than fit)."),
        Binding("down,j", "scroll_lanes(1)", "Lanes down", show=False,
                id="timeline.lanes-down", tooltip="Scroll the lanes down."),
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

    def compose(self) -> ComposeResult:
        with Vertical(id="tl-left"):
            yield Static("", id="tl-range", markup=False)
            yield Static("", id="tl-head")
            yield Static("", id="tl-values")
            with VerticalScroll(id="tl-lanes-scroll", can_focus=False):
                yield Static("", id="tl-lanes")
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
                             label_width, f"gaps ≥ {threshold}"),
            render_axis(view, data.start_ns, label_width),
        ])
        head_widget = self.query_one("#tl-head", Static)
        head_widget.styles.height = 4 + len(metric_rows)
        head_widget.update(head)
        values = self.query_one("#tl-values", Static)
        values.display = bool(mlanes)
        if mlanes:
            values.update(values_at(mlanes, probe, data.start_ns, when))
        lanes = render_lanes(view, index.lanes, label_width, highlight)
        self.query_one("#tl-lanes", Static).update(lanes if index.lanes else Text(
            "No GPU or CPU activity was traced in this report.", style="dim"))
        self.query_one("#tl-range", Static).update(self._range_text(view, gpu_keys))
        self.query_one("#tl-legend", Static).update(self._legend())
        self._update_panel()
        self.last_draw_ms = (time.perf_counter() - started) * 1000

    def probe_time(self) -> tuple[int, str]:
        """Where the metric values are read: the selected gap's start, else the middle of
        the window (marked in the metric lanes)."""
        if self.selected is not None:
            return self.selected.start_ns, "the selected gap"
        return (self.t0 + self.t1) // 2, "the middle of the window"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``m`` is offered only when the report has GPU metrics."""
        if action == "metric_lanes":
            return self.data is not None and self.data.report.gpu_metrics.present
        return True

    def action_metric_lanes(self) -> None:
        """Cycle the GPU metric lanes: default four, every metric read, none."""
        i = METRIC_SETS.index(self.metric_choice)
        self.metric_choice = METRIC_SETS[(i + 1) % len(METRIC_SETS)]
        self.redraw()

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
        return (f"█▓▒░ busy share of a column  · idle  {GAP_MARK} large gap "
                f"({count:,} in all: g / G)")

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
            explained=len(data.explanations), width=max(PANEL_WIDTH, panel.size.width) - 3,
        )
        self.query_one("#tl-gap-body", Static).update(body)

    def on_resize(self) -> None:
        self.call_after_refresh(self.redraw)

    # -- actions ---------------------------------------------------------------------------
    def action_zoom_in(self) -> None:
        self._zoom(1 / ZOOM_STEP)

    def action_zoom_out(self) -> None:
        self._zoom(ZOOM_STEP)

    def _zoom(self, factor: float) -> None:
        middle = (self.t0 + self.t1) // 2
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
        """Close the gap panel; False when there was none."""
        if self.selected is None:
            return False
        self.selected = None
        self.post_message(self.GapSelected(None))
        self.redraw()
        return True

    def action_scroll_lanes(self, step: int) -> None:
        scroll = self.query_one("#tl-lanes-scroll", VerticalScroll)
        scroll.scroll_relative(y=step, animate=False)
