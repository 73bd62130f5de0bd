"""The timeline pane's keys and style (declarations only; ``TimelinePane`` uses them)."""

from __future__ import annotations

from textual.binding import Binding

TIMELINE_BINDINGS = [
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
    Binding("p", "critical_path", "Critical path", show=False, id="timeline.critical-path",
            tooltip="Mark on the lanes the critical path of the step in the window's middle "
            "(yellow), or stop marking it."),
]
"""The timeline's keys (each with an id and a tooltip: help and the palette list them)."""

TIMELINE_CSS = """
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
