"""View 4 — CPU side: ``nsys stats -r cuda_api_sum`` and, when traced, ``osrt_sum``."""

from __future__ import annotations

from textual.app import ComposeResult

from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.screens.timeline_views.tables import TableView, time_summary
from kernelscope.timeline.screens.widgets.timeline_table import FrameView


class ApiView(TableView):
    DEFAULT_CSS = """
    ApiView > #osrt-frame {
        height: 1fr;
    }
    """

    VIEW_ID = "api-view"

    def compose(self) -> ComposeResult:
        yield time_summary("CUDA API calls (nsys stats cuda_api_sum)", "Num Calls",
                           noun="APIs", table_id="api-table")
        yield time_summary("OS runtime calls (nsys stats osrt_sum)", "Num Calls",
                           noun="functions", table_id="osrt-table", id="osrt-frame")

    def show(self, data: TimelineData) -> None:
        frames = list(self.query(FrameView))
        frames[0].set_frame(data.api)
        frames[1].set_frame(data.osrt)
        frames[1].display = data.report.has_osrt or data.osrt.height > 0
