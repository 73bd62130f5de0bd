"""View 7 — copies and memsets: ``cuda_gpu_mem_time_sum`` and ``cuda_gpu_mem_size_sum``."""

from __future__ import annotations

from textual.app import ComposeResult

from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.screens.timeline_views.tables import (
    TableView,
    describe_by,
    name_column,
    size_columns,
    time_summary,
)
from kernelscope.timeline.screens.widgets.timeline_table import FrameView


class MemoryView(TableView):
    VIEW_ID = "memory-view"

    def compose(self) -> ComposeResult:
        yield time_summary(
            "GPU time of copies and memsets (nsys stats cuda_gpu_mem_time_sum)", "Count",
            "Operation", noun="operations", table_id="mem-time-table",
        )
        yield FrameView(
            "Bytes moved (nsys stats cuda_gpu_mem_size_sum, MB = 10^6 B)",
            [*size_columns(), name_column("Operation")],
            sort="Total (MB)", noun="operations", describe=describe_by("Operation"),
            table_id="mem-size-table",
        )

    def show(self, data: TimelineData) -> None:
        frames = list(self.query(FrameView))
        frames[0].set_frame(data.mem_time)
        frames[1].set_frame(data.mem_size)
