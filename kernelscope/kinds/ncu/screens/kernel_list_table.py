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
    ]
