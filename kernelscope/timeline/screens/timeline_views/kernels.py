"""View 3 — Kernels: ``nsys stats -r cuda_gpu_kern_sum``, one row per kernel name; where the
trace records its operators' shapes (Kineto ``record_shapes=True``, nsys ``emit_nvtx(
record_shapes=True)``), the operators by GPU time with how close each runs to the device's
peak, and a small roofline of them (docs/op_efficiency.md).

``enter`` shows every instance of the highlighted kernel on the timeline.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from kernelscope.core.units import fmt_float, fmt_int
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.export.op_efficiency_text import (
    device_line,
    op_roofline_text,
    operators_frame,
)
from kernelscope.timeline.screens.timeline_views.tables import TableView, time_summary
from kernelscope.timeline.screens.widgets.timeline_table import Column, FrameView, Row

ROOFLINE_WIDTH = 52
ROOFLINE_HEIGHT = 14


def operator_columns() -> list[Column]:
    def number(key: str, digits: int, priority: int = 0) -> Column:
        return Column(key, key, lambda v: fmt_float(v, digits), priority=priority)

    return [
        number("% of peak", 1), Column("GPU time (ns)", "GPU time (ns)", fmt_int),
        Column("Calls", "Calls", fmt_int, priority=2), number("TFLOP/s", 2),
        number("GB/s", 1, priority=1), Column("Dtype", "Dtype", str, numeric=False),
        Column("Bound", "Bound", str, numeric=False, priority=3),
        Column("Operator", "Operator", str, numeric=False, max_width=32),
        Column("Input shapes", "Input shapes", str, numeric=False, flex=True),
    ]


def describe_operator(row: Row) -> str:
    """The status line of an operator row: its name, whole shapes and model."""
    return f"{row.get('Operator', '')} {row.get('Input shapes', '')} · {row.get('Model', '')}"


class KernelsView(TableView):
    VIEW_ID = "kernels-view"

    DEFAULT_CSS = """
    KernelsView #operators-part {
        height: 1fr;
    }
    KernelsView #operators-part > FrameView {
        width: 1fr;
    }
    KernelsView #operators-roofline {
        width: 54;
        height: auto;
    }
    """

    def compose(self) -> ComposeResult:
        yield time_summary(
            "GPU kernels (nsys stats cuda_gpu_kern_sum) — enter: show on the timeline",
            "Instances", noun="kernel names", table_id="kernels-table", kernel_names=True,
            choosable=True,
        )
        note = Static("", classes="table-note", id="operators-note", markup=False)
        note.display = False
        yield note
        part = Horizontal(id="operators-part")
        part.display = False
        with part:
            yield FrameView("Operators by GPU time (estimate from shapes)", operator_columns(),
                            sort="GPU time (ns)", noun="operators",
                            describe=describe_operator, table_id="operators-table")
            yield Static("", id="operators-roofline", markup=False)

    def show(self, data: TimelineData) -> None:
        self.query_one(FrameView).set_frame(data.kernels)
        efficiency = data.op_efficiency
        if not efficiency.available:
            return
        note = self.query_one("#operators-note", Static)
        note.update(device_line(efficiency))
        note.display = True
        self.query_one("#operators-part").display = True
        self.query_one("#operators-part FrameView", FrameView).set_frame(
            operators_frame(efficiency))
        self.query_one("#operators-roofline", Static).update(
            op_roofline_text(efficiency, ROOFLINE_WIDTH, ROOFLINE_HEIGHT))
