"""The Kernels view of a trace that records its operators' shapes lists the operators by
GPU time with their share of the peak, and draws their roofline; a trace without shapes
shows the kernels alone."""

from __future__ import annotations

from pathlib import Path

from kernelscope.kinds.kineto.analysis.op_efficiency import kineto_op_efficiency
from kernelscope.kinds.kineto.model.model import read_trace
from kernelscope.timeline.export.op_efficiency_text import op_roofline_text, operators_frame
from kernelscope.tui.app import create_app
from tests.conftest import SAMPLES
from tests.timeline_tui.helpers import opened_timeline, screen_text, settle

STEP = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


def test_the_operators_frame_is_the_rows() -> None:
    efficiency = kineto_op_efficiency(read_trace(STEP))
    frame = operators_frame(efficiency)
    assert frame.height == len(efficiency.rows)
    first = frame.row(0, named=True)
    row = efficiency.rows[0]
    assert (first["Operator"], first["GPU time (ns)"], first["Calls"]) == (
        row.op, row.gpu_time_ns, row.calls)
    mm = frame.filter(frame["Operator"] == "aten::mm").sort("GPU time (ns)", descending=True)
    assert mm["% of peak"][0] is not None and mm["Dtype"][0] == "bf16"
    chart = op_roofline_text(efficiency, 52, 14)
    assert "Operators on the roofline" in chart and "roof: 989.5" in chart


async def test_kernels_view_lists_the_operators(tmp_path: Path) -> None:
    app = create_app(STEP, cache_dir=tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await opened_timeline(pilot)
        await pilot.press("3")
        await settle(pilot)  # the operators' table filled
        text = screen_text(app)
    assert "Operators by GPU time (estimate from shapes)" in text
    assert "Device NVIDIA H200 = H200 SXM" in text
    assert "aten::linear" in text and "Operators on the roofline" in text


def test_summary_tells_apart_rows_that_differ_only_in_their_model() -> None:
    """The SDPA sample runs the same shapes with and without ``is_causal``: two rows each for
    the forward and the backward, which the summary's table (no Model column) tells apart by
    the model's note."""
    import io

    from rich.console import Console

    from kernelscope.timeline.export.op_efficiency_text import print_op_efficiency

    efficiency = kineto_op_efficiency(read_trace(SAMPLES / "opeff" / "sdpa.pt.trace.json.xz"))
    out = io.StringIO()
    print_op_efficiency(efficiency, Console(file=out, width=400))
    lines = out.getvalue().splitlines()
    for op in ("aten::scaled_dot_product_attention",
               "aten::_scaled_dot_product_cudnn_attention_backward"):
        plain = [ln for ln in lines if ln.startswith(f"{op}  ")]
        causal = [ln for ln in lines if ln.startswith(f"{op} (causal pairs)  ")]
        assert len(plain) == len(causal) == 1, op
