"""The kernel list's keys (declarations only; ``KernelListScreen`` uses them)."""

from __future__ import annotations

from textual.binding import Binding

LIST_BINDINGS = [
    Binding(
        "slash", "filter", "Filter", id="list.filter",
        tooltip="Filter kernels by a regular expression on their name "
        "(case-insensitive unless it has a capital); escape clears it.",
    ),
    Binding(
        "colon,g", "jump", "Go to ID", id="list.jump",
        tooltip="Type a kernel ID and press enter to jump to it.",
    ),
    Binding("s", "sort_next", "Sort", id="list.sort", tooltip="Sort by the next column."),
    Binding(  # in help and the palette, not the footer (120 columns hold the others)
        "S", "sort_reverse", "Reverse", id="list.reverse", show=False,
        tooltip="Reverse the sort order (clicking a column header sorts by it).",
    ),
    Binding(
        "escape", "clear_filter", "Clear filter", id="list.clear-filter",
        tooltip="Clear the filter (or close the filter/ID prompt).",
    ),
    Binding(
        "r", "roofline", "Roofline", id="list.roofline",
        tooltip="Every kernel on a roofline, the highlighted one selected.",
    ),
    Binding(
        "b", "baseline", "Baseline", id="list.baseline",
        tooltip="Mark the highlighted kernel as the baseline: every pane then shows the "
        "changes against it, and the list a Δ base column sorted by change (b on the "
        "baseline clears it).",
    ),
    Binding(
        "f", "toggle_families", "Families", id="list.families",
        tooltip="Switch between launches and kernel families (launches grouped by name and "
        "launch shape, ranked by total time); enter expands a family into its launches.",
    ),
]
"""Each with an id and a tooltip: help and the palette list them."""
