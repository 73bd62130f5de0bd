"""View 5 — NVTX ranges: ``nsys stats -r nvtx_sum`` plus how busy the GPU was inside each.

A phase whose GPU busy share is low spends its time on the CPU: that is where to look first.
``enter`` shows every instance of the highlighted range on the timeline.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.profilers import no_ranges_text
from kernelscope.timeline.screens.timeline_views.tables import (
    TableView,
    duration_columns,
    name_column,
    pct_column,
)
from kernelscope.timeline.screens.widgets.timeline_table import Column, FrameView, Row


def describe(row: Row) -> str:
    return f"{row.get('Range', '')} ({row.get('Style', '')})"


class NvtxView(TableView):
    VIEW_ID = "nvtx-view"

    def compose(self) -> ComposeResult:
        columns = duration_columns("Instances")
        yield Static("", classes="table-note", id="nvtx-note")
        yield FrameView(
            "NVTX ranges (nsys stats nvtx_sum) with GPU busy share — enter: show on the timeline",
            [columns[0], pct_column("GPU busy (%)"), *columns[1:],
             Column("Style", "Style", str, numeric=False), name_column("Range")],
            sort="Total Time (ns)", noun="ranges", describe=describe, choosable=True,
            table_id="nvtx-table",
        )

    def show(self, data: TimelineData) -> None:
        note = self.query_one("#nvtx-note", Static)
        note.display = data.nvtx.height == 0
        note.update(Text(no_ranges_text(data.report.profiler), style="yellow"))
        self.query_one(FrameView).set_frame(data.nvtx)
