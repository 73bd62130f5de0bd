"""View 4 — CPU side: ``nsys stats -r cuda_api_sum`` and, when traced, ``osrt_sum``."""

from __future__ import annotations

from textual.app import ComposeResult

from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.screens.timeline_views.tables import (
    TableView,
    describe_by,
    duration_columns,
    name_column,
)
from kernelscope.timeline.screens.widgets.timeline_table import FrameView


class ApiView(TableView):
    DEFAULT_CSS = """
    ApiView > #osrt-frame {
        height: 1fr;
    }
    """

    VIEW_ID = "api-view"

    def compose(self) -> ComposeResult:
        yield FrameView(
            "CUDA API calls (nsys stats cuda_api_sum)",
            [*duration_columns("Num Calls"), name_column()],
            sort="Total Time (ns)", noun="APIs", describe=describe_by("Name"), table_id="api-table",
        )
        yield FrameView(
            "OS runtime calls (nsys stats osrt_sum)",
            [*duration_columns("Num Calls"), name_column()],
            sort="Total Time (ns)", noun="functions", describe=describe_by("Name"), id="osrt-frame",
            table_id="osrt-table",
        )

    def show(self, data: TimelineData) -> None:
        frames = list(self.query(FrameView))
        frames[0].set_frame(data.api)
        frames[1].set_frame(data.osrt)
        frames[1].display = data.report.has_osrt or data.osrt.height > 0
