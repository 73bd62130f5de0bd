"""A real trace of AdamW (``foreach=True`` and ``fused=True``) and of variable-length attention
(``samples/opeff/optim_varlen.pt.trace.json.xz``, H100, PyTorch 2.11): each optimizer row's
bytes recomputed here from the trace's JSON with the standard library, and the varlen
attention rows saying why they have no model instead of counting one long sequence."""

from __future__ import annotations

import json
import lzma
import math
from functools import cache
from typing import Any

from kernelscope.kinds.kineto.analysis.op_efficiency import kineto_op_efficiency
from kernelscope.kinds.kineto.model.model import read_trace
from kernelscope.timeline.analysis.op_efficiency import OpRow
from tests.conftest import SAMPLES

TRACE = SAMPLES / "opeff" / "optim_varlen.pt.trace.json.xz"
VARLEN = {"aten::_flash_attention_forward", "aten::_efficient_attention_forward"}


@cache
def _recorded() -> dict[tuple[str, str], list[str]]:
    """Each recorded (operator, Input Dims) with its Input type."""
    events = json.loads(lzma.decompress(TRACE.read_bytes()))["traceEvents"]
    return {(e["name"], json.dumps(e["args"]["Input Dims"])): e["args"]["Input type"]
            for e in events if e.get("cat") == "cpu_op" and "Input Dims" in e.get("args", {})}


@cache
def _rows() -> tuple[OpRow, ...]:
    return tuple(kineto_op_efficiency(read_trace(TRACE)).rows)


def _lists(dims: list[Any], types: list[str]) -> list[tuple[int, list[list[int]]]]:
    """(argument index, shapes) of each TensorList argument that holds tensors."""
    return [(index, arg) for index, (arg, kind) in enumerate(zip(dims, types, strict=False))
            if kind == "TensorList" and arg]


def test_fused_adamw_reads_every_list_and_writes_parameters_and_states() -> None:
    rows = [r for r in _rows() if r.op == "aten::_fused_adamw_"]
    assert len(rows) == 1 and rows[0].calls == 2
    row = rows[0]
    lists = _lists(json.loads(row.input_shapes), _recorded()[(row.op, row.input_shapes)])
    elements = {index: sum(math.prod(shape) for shape in shapes) for index, shapes in lists}
    # params, grads, exp_avgs, exp_avg_sqs, and the six 0-d step counters
    assert sorted(elements) == [0, 1, 2, 3, 5] and elements[5] == 6
    read = sum(elements.values())
    written = elements[0] + elements[2] + elements[3]
    assert row.dtype == "fp32" and row.flops is None
    assert row.bytes == (read + written) * 4 * row.calls
    assert row.model == "lists read, updated lists written, each tensor"
    assert row.achieved_gbps == row.bytes / row.gpu_time_ns
    assert 0 < (row.pct_of_peak or 0) <= 100


def test_foreach_rows_count_each_tensor_of_their_lists() -> None:
    rows = [r for r in _rows() if r.op.startswith("aten::_foreach_")]
    assert {r.op for r in rows} == {
        "aten::_foreach_add_", "aten::_foreach_mul_", "aten::_foreach_lerp_",
        "aten::_foreach_addcmul_", "aten::_foreach_sqrt", "aten::_foreach_div_",
        "aten::_foreach_addcdiv_"}
    for row in rows:
        lists = _lists(json.loads(row.input_shapes), _recorded()[(row.op, row.input_shapes)])
        sizes = [sum(math.prod(shape) for shape in shapes) for _, shapes in lists]
        assert row.bytes == (sum(sizes) + sizes[0]) * 4 * row.calls, row.op


def test_varlen_attention_says_its_sequence_lengths_are_not_recorded() -> None:
    rows = [r for r in _rows() if r.op in VARLEN]
    assert {r.op for r in rows} == VARLEN
    for row in rows:
        dims = json.loads(row.input_shapes)
        assert [4] in dims  # cu_seqlens of three sequences: its size, not its values
        assert row.flops is None and row.bytes is None and row.gpu_time_ns > 0
        assert row.model == "no model: sequence lengths are not in the trace"
