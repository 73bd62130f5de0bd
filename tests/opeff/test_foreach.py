"""The optimizer's ``_foreach_*`` operators on a real trace: bytes only, every tensor of every
list read once and each tensor of the first list written once, the element size the
kernels' names spell (a ``TensorList`` records no type); recomputed here from the trace's
JSON with the standard library."""

from __future__ import annotations

import json
import lzma
import math
from typing import Any

from kernelscope.kinds.kineto.analysis.op_efficiency import kineto_op_efficiency
from kernelscope.kinds.kineto.model.model import read_trace
from tests.conftest import SAMPLES

TRACE = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"
ADAM = {"aten::_foreach_mul_", "aten::_foreach_add_", "aten::_foreach_lerp_",
        "aten::_foreach_addcmul_", "aten::_foreach_addcdiv_", "aten::_foreach_sqrt",
        "aten::_foreach_div_"}


def _lists(dims: list[Any], types: list[str]) -> list[int]:
    """The elements of each TensorList argument."""
    return [sum(math.prod(shape) for shape in arg)
            for arg, kind in zip(dims, types, strict=True) if kind == "TensorList"]


def test_optimizer_foreach_rows_count_each_tensor_of_their_lists() -> None:
    events = json.loads(lzma.decompress(TRACE.read_bytes()))["traceEvents"]
    recorded = {}
    for event in events:
        args = event.get("args", {})
        if event.get("cat") == "cpu_op" and event["name"] in ADAM:
            recorded[(event["name"], json.dumps(args["Input Dims"]))] = args["Input type"]
    rows = [r for r in kineto_op_efficiency(read_trace(TRACE)).rows if r.op in ADAM]
    assert {r.op for r in rows} == ADAM
    for row in rows:
        types = recorded[(row.op, row.input_shapes)]
        lists = _lists(json.loads(row.input_shapes), types)
        assert row.dtype == "fp32" and all("multi_tensor_apply_kernel" in name
                                           for name, _ in row.kernel_ns)
        per_call = (sum(lists) + lists[0]) * 4
        assert row.bytes == per_call * row.calls, row.op
        assert row.flops is None and row.model == "inputs + output, each tensor of the lists"
        assert row.achieved_gbps == row.bytes / row.gpu_time_ns
        # Adam's eps add_ runs on the list _foreach_sqrt has just written (33.6 MB, which
        # fits the L2): faster than the DRAM could, so its bytes are an upper bound
        assert row.bytes_overcounted == (row.op == "aten::_foreach_add_")
        assert row.bytes_overcounted or 0 < (row.pct_of_peak or 0) <= 100
