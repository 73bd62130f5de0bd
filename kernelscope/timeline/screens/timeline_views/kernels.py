"""View 3 — Kernels: ``nsys stats -r cuda_gpu_kern_sum``, one row per kernel name.

``enter`` shows every instance of the highlighted kernel on the timeline.
"""

from __future__ import annotations

from textual.app import ComposeResult

from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.screens.timeline_views.tables import TableView, time_summary
from kernelscope.timeline.screens.widgets.timeline_table import FrameView


class KernelsView(TableView):
    VIEW_ID = "kernels-view"

    def compose(self) -> ComposeResult:
        yield time_summary(
            "GPU kernels (nsys stats cuda_gpu_kern_sum) — enter: show on the timeline",
            "Instances", noun="kernel names", table_id="kernels-table", kernel_names=True,
            choosable=True,
        )

    def show(self, data: TimelineData) -> None:
        self.query_one(FrameView).set_frame(data.kernels)
