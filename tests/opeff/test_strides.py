"""Broadcast inputs and casts on a real trace (the SDPA sample, H100): the gradient of
``.sum()`` is a broadcast view (``Input Strides`` all 0), so its casts read one element;
``_to_copy`` writes at the type its ``dtype`` argument names (c10::ScalarType 15 bfloat16,
6 float) and ``copy_`` at its destination's. The expected bytes are recomputed here from the
trace's JSON with the standard library."""

from __future__ import annotations

import dataclasses
import json
import lzma
import math
from typing import Any

from kernelscope.kinds.kineto.analysis.op_efficiency import kineto_op_efficiency
from kernelscope.kinds.kineto.analysis.op_shapes import read_op_ranges
from kernelscope.kinds.kineto.model.model import read_trace
from kernelscope.timeline.analysis.op_models import work_of
from kernelscope.timeline.export.op_efficiency_text import (
    OVERCOUNTED,
    OVERCOUNTED_NO_STRIDES,
    row_cells,
)
from tests.conftest import SAMPLES

TRACE = SAMPLES / "opeff" / "sdpa.pt.trace.json.xz"
SIZE = {"float": 4, "c10::BFloat16": 2}
SCALAR_TYPE_SIZE = {"6": 4, "15": 2}
PEAK_DTYPE = {"float": "fp32", "c10::BFloat16": "bf16"}


def _calls(name: str) -> list[dict[str, Any]]:
    events = json.loads(lzma.decompress(TRACE.read_bytes()))["traceEvents"]
    return [e["args"] for e in events if e.get("cat") == "cpu_op" and e["name"] == name]


def _distinct(dims: list[int], strides: list[int]) -> int:
    return math.prod(size for size, stride in zip(dims, strides, strict=True) if stride != 0)


def test_casts_read_distinct_elements_and_write_at_their_dtype() -> None:
    expected: dict[str, set[int]] = {}
    for args in _calls("aten::_to_copy"):
        dims, strides = args["Input Dims"][0], args["Input Strides"][0]
        source = args["Input type"][0]
        per_call = (_distinct(dims, strides) * SIZE[source]
                    + math.prod(dims) * SCALAR_TYPE_SIZE[args["Concrete Inputs"][1]])
        expected.setdefault(PEAK_DTYPE[source], set()).add(per_call)
    rows = [r for r in kineto_op_efficiency(read_trace(TRACE)).rows if r.op == "aten::_to_copy"]
    assert sorted(r.dtype or "" for r in rows) == sorted(expected) == ["bf16", "fp32"]
    for row in rows:
        [per_call] = expected[row.dtype or ""]
        assert row.bytes == per_call * row.calls
        assert row.strides and not row.bytes_overcounted
        assert 0 < (row.pct_of_peak or 0) <= 100
    # fp32 → bf16 of the broadcast gradient: 4 bytes read, 2 bytes an element written
    broadcast = next(r for r in rows if r.dtype == "fp32")
    assert broadcast.bytes == (4 + 4 * 16 * 2048 * 128 * 2) * broadcast.calls


def test_without_strides_the_broadcast_cast_is_an_upper_bound_that_says_so() -> None:
    efficiency = kineto_op_efficiency(read_trace(TRACE))
    row = next(r for r in efficiency.rows if r.op == "aten::_to_copy" and r.dtype == "fp32")
    call = next(r.call for r in read_op_ranges(read_trace(TRACE))
                if r.call.name == "aten::_to_copy" and r.call.types[0] == "float")
    work = work_of(dataclasses.replace(call, strides=None))
    assert work is not None and work.bytes == math.prod(call.dims[0]) * (4 + 2)
    unstrided = dataclasses.replace(row, bytes=work.bytes * row.calls, strides=False)
    assert unstrided.bytes_overcounted and unstrided.pct_of_peak is None
    assert OVERCOUNTED_NO_STRIDES in row_cells(unstrided)[-1]
    assert "broadcast view" in OVERCOUNTED_NO_STRIDES and "broadcast" not in OVERCOUNTED


def test_copy_reads_its_source_and_writes_its_destination_type() -> None:
    recorded = {json.dumps([a["Input type"], a["Input Strides"]]): a for a in _calls("aten::copy_")}
    calls = {json.dumps([list(r.call.types), list(r.call.strides or ())]): r.call
             for r in read_op_ranges(read_trace(TRACE)) if r.call.name == "aten::copy_"}
    assert calls.keys() == recorded.keys() and len(calls) == 2
    for key, args in recorded.items():
        (dst, src), (dst_strides, src_strides) = args["Input Dims"][:2], args["Input Strides"][:2]
        dst_type, src_type = args["Input type"][:2]
        work = work_of(calls[key])
        assert work is not None
        assert work.bytes == (_distinct(src, src_strides) * SIZE[src_type]
                              + _distinct(dst, dst_strides) * SIZE[dst_type])
