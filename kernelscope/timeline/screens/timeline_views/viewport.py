"""The timeline's window and cursor, without Textual: which stretch of the report is shown
(zoom, pan, jump to a gap or a range) and which event the cursor is on (←/→ event to event,
↑/↓ to the nearest event of the lane above or below).

``TimelinePane`` owns one ``Viewport``, tells it how many columns the lanes have, turns keys
into its moves and draws what it says. Every time is in the report's nanoseconds.
"""

from __future__ import annotations

import polars as pl

from kernelscope.timeline.analysis.timeline import TimelineIndex

ZOOM_STEP = 2.0
PAN_STEP = 0.25
"""A pan moves the window by this share of its width."""
GAP_CONTEXT = 3
"""A jumped-to gap takes a third of the window."""
EVENT_CONTEXT = 8
"""``enter`` zooms so the cursor's event takes an eighth of the window."""
MIN_COLUMNS = 10
RANGE_MARGIN = 20
"""A range shown (every instance of a kernel) gets a twentieth of its width either side."""


class Viewport:
    """The window [t0, t1) of a report's timeline and the cursor (a lane and an event)."""

    def __init__(self) -> None:
        self.index: TimelineIndex | None = None
        self.start_ns = 0
        self.end_ns = 1
        self.t0 = 0
        self.t1 = 1
        self.columns = MIN_COLUMNS
        """The columns the lanes are drawn in (the window holds at least a nanosecond each)."""
        self.cursor_lane: str | None = None
        self.cursor_index: int | None = None
        self.show_path = False
        """Whether the lanes mark the critical path of the step in the window's middle."""

    def show(self, index: TimelineIndex, start_ns: int, end_ns: int) -> None:
        """Show the whole report, the cursor on its first GPU work."""
        self.index = index
        self.start_ns, self.end_ns = start_ns, max(end_ns, start_ns + 1)
        self.t0, self.t1 = self.start_ns, self.end_ns
        self.place_cursor()

    # -- the window ------------------------------------------------------------------------
    @property
    def full_span(self) -> int:
        return max(self.end_ns - self.start_ns, 1)

    @property
    def min_span(self) -> int:
        return max(self.columns, MIN_COLUMNS)

    def set_window(self, t0: int, t1: int) -> None:
        """Show [t0, t1), clamped to the report and to at least a nanosecond per column."""
        lo, hi = self.start_ns, self.start_ns + self.full_span
        span = min(max(t1 - t0, self.min_span), hi - lo)
        t0 = min(max(t0, lo), hi - span)
        self.t0, self.t1 = t0, t0 + span

    def centre(self, middle: int, span: int) -> None:
        """A window ``span`` wide centred on ``middle``."""
        self.set_window(middle - span // 2, middle - span // 2 + span)

    def zoom(self, factor: float) -> None:
        """Scale the window by ``factor`` around the cursor's event when it is in the window
        (else around the middle)."""
        middle = (self.t0 + self.t1) // 2
        span = self.cursor_span()
        if span is not None:
            centre = (span[0] + span[1]) // 2
            if self.t0 <= centre < self.t1:
                middle = centre
        half = int((self.t1 - self.t0) * factor) // 2
        self.set_window(middle - half, middle + half)

    def pan(self, direction: int) -> None:
        """Move the window a quarter of its width later (1) or earlier (-1)."""
        shift = max(1, int((self.t1 - self.t0) * PAN_STEP)) * direction
        self.set_window(self.t0 + shift, self.t1 + shift)

    def reset(self) -> None:
        """Show the whole report."""
        self.set_window(self.start_ns, self.start_ns + self.full_span)

    def around_gap(self, start_ns: int, end_ns: int) -> None:
        """Centre a gap, taking a third of the window."""
        self.centre((start_ns + end_ns) // 2, max((end_ns - start_ns) * GAP_CONTEXT, self.min_span))

    def around_range(self, t0: int, t1: int) -> None:
        """Show [t0, t1) with a margin either side."""
        margin = max((t1 - t0) // RANGE_MARGIN, 1)
        self.set_window(t0 - margin, t1 + margin)

    def zoom_to_event(self) -> bool:
        """Zoom so the cursor's event takes an eighth of the window; False without one."""
        span = self.cursor_span()
        if span is None:
            return False
        self.centre((span[0] + span[1]) // 2,
                    max((span[1] - span[0]) * EVENT_CONTEXT, self.min_span))
        return True

    # -- the cursor ------------------------------------------------------------------------
    def event_lanes(self) -> list[str]:
        """The lanes the cursor can be on (those with events), top to bottom."""
        if self.index is None:
            return []
        index = self.index
        return [lane.key for lane in index.lanes if len(index.lane_events(lane.key))]

    def place_cursor(self) -> None:
        """Start on the first GPU work (the first event of the first stream), else the
        first event of any lane."""
        lanes = self.event_lanes()
        if not lanes or self.index is None:
            self.cursor_lane = self.cursor_index = None
            return
        streams = [k for k in lanes if self.index.lane(k).kind == "stream"]
        self.cursor_lane = (streams or lanes)[0]
        self.cursor_index = 0

    def cursor_span(self) -> tuple[int, int] | None:
        """[start, end) of the cursor's event."""
        if self.index is None or self.cursor_lane is None or self.cursor_index is None:
            return None
        events = self.index.lane_events(self.cursor_lane)
        if not 0 <= self.cursor_index < len(events):
            return None
        return events.span(self.cursor_index)

    def probe(self, selected_start: int | None) -> tuple[int, str]:
        """Where the metric values are read (marked in the metric lanes), and what it is: the
        start of the cursor's event in the window, else the selected gap's start
        (``selected_start``), else the middle of the window."""
        cursor = self.cursor_span()
        if cursor is not None and self.t0 <= cursor[0] < self.t1:
            return cursor[0], "the cursor"
        if selected_start is not None:
            return selected_start, "the selected gap"
        return (self.t0 + self.t1) // 2, "the middle of the window"

    def set_cursor(self, lane: str, index: int) -> bool:
        """Put the cursor on event ``index`` of ``lane``; when the event is out of the
        window, centre the window on it (same width) and return True."""
        self.cursor_lane, self.cursor_index = lane, index
        span = self.cursor_span()
        if span is None or self.t0 <= span[0] < self.t1 or self.t0 < span[1] <= self.t1:
            return False
        self.centre((span[0] + span[1]) // 2, self.t1 - self.t0)
        return True

    def step(self, direction: int) -> tuple[str, int] | None:
        """The event after (1) or before (-1) the cursor's on its lane; None at the end."""
        if self.index is None or self.cursor_lane is None or self.cursor_index is None:
            return None
        other = self.index.lane_events(self.cursor_lane).step(self.cursor_index, direction)
        return None if other is None else (self.cursor_lane, other)

    def step_lane(self, step: int) -> tuple[str, int] | None:
        """The event nearest the cursor's (or the window's middle, when the cursor's event is
        out of it) on the next lane with events above (-1) or below (1); None at the edge."""
        lanes = self.event_lanes()
        span = self.cursor_span()
        if self.index is None or self.cursor_lane not in lanes or span is None:
            return None
        position = lanes.index(self.cursor_lane) + step
        if not 0 <= position < len(lanes):
            return None
        middle = (span[0] + span[1]) // 2
        if not self.t0 <= middle < self.t1:
            middle = (self.t0 + self.t1) // 2
        found = self.index.lane_events(lanes[position]).nearest(middle)
        return None if found is None else (lanes[position], found)

    def cursor_on_kernel(self, name: str) -> None:
        """Put the cursor on the first instance of kernel ``name`` (demangled), on the first
        stream that ran it; the window stays."""
        if self.index is None:
            return
        for lane in self.index.lanes:
            if lane.kind != "stream":
                continue
            hits = self.index.lane_events(lane.key).frame.with_row_index("i").filter(
                pl.col("name") == name)
            if hits.height:
                self.cursor_lane, self.cursor_index = lane.key, int(hits["i"][0])
                return
