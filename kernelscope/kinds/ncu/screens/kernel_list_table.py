"""The kernel list's table: the shared ``SizedTable`` (every column at the width the list's
view planned, ``KernelListView.lay_out``; rows added in batches while the list loads) with
the list's key."""

from __future__ import annotations

from textual.binding import Binding

from kernelscope.ui.widgets.sized_table import SizedTable


class KernelTable(SizedTable):
    """The kernel list's table; enter (or a click on the highlighted row) opens a kernel."""

    BINDINGS = [
        Binding(
            "enter", "select_cursor", "Open", id="list.open",
            tooltip="Open the highlighted kernel (clicking a highlighted row does too).",
        ),
        # Textual reads every terminal's Home and End (xterm's ESC [H, tmux's and the
        # console's ESC [1~ and ESC [4~, rxvt's ESC [7~ and ESC [8~) as home and end; a
        # DataTable binds them to sideways scrolling, which a row list does not need.
        Binding("home", "scroll_top", "First", show=False, id="list.first",
                tooltip="Go to the first kernel."),
        Binding("end", "scroll_bottom", "Last", show=False, id="list.last",
                tooltip="Go to the last kernel."),
    ]
