"""Operator efficiency of an Nsight Systems trace whose NVTX ranges are emit_nvtx's
(``samples/opeff/gemm_sweep_nvtx.sqlite.xz``): the same program as the Kineto GEMM sweep, so
each matrix product's calls and FLOPs equal the Kineto trace's, read from its NVTX names."""

from __future__ import annotations

from pathlib import Path

from kernelscope.kinds.kineto.analysis.op_efficiency import kineto_op_efficiency
from kernelscope.kinds.kineto.model.model import read_trace
from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.analysis.nvtx_ops import nvtx_op_efficiency
from tests.conftest import SAMPLES

OPEFF = SAMPLES / "opeff"
PRODUCTS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul",
            "aten::linear", "aten::convolution_backward"}


def test_nvtx_products_equal_the_kineto_traces(tmp_path: Path) -> None:
    report = open_report(OPEFF / "gemm_sweep_nvtx.sqlite.xz", cache_dir=tmp_path)
    nvtx = nvtx_op_efficiency(report)
    kineto = kineto_op_efficiency(read_trace(OPEFF / "gemm_sweep.pt.trace.json.xz"))
    assert nvtx.available and nvtx.peaks is not None and nvtx.peaks.product == "H100 SXM"

    def products(rows):  # type: ignore[no-untyped-def]
        return {(r.op, r.input_shapes): (r.calls, r.flops) for r in rows if r.op in PRODUCTS}

    ours = products(nvtx.rows)
    assert len(ours) >= 9
    # Kineto lists more arguments (the scalars NVTX leaves out as []): compare by the tensors
    theirs = {(op, _tensors(shapes)): v for (op, shapes), v in products(kineto.rows).items()}
    assert {(op, _tensors(shapes)): v for (op, shapes), v in ours.items()} == theirs
    # cuBLAS's nvjet kernels spell no dtype: the products take the one the convolutions spell
    assert {r.dtype for r in nvtx.rows if r.op in PRODUCTS} == {"bf16"}
    assert [m.step for m in nvtx.mfu] == [0, 1]  # the program's NVTX "step N" ranges
    assert all(m.mfu_pct and 0 < m.mfu_pct < 100 for m in nvtx.mfu)


def _tensors(shapes: str) -> str:
    return shapes.replace(", []", "")
