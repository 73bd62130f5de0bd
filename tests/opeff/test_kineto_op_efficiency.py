"""Operator efficiency of real Kineto traces recorded with shapes, checked against the trace
read independently here (the JSON with the standard library): every ``aten::mm`` row's FLOPs
are 2·M·N·K × calls, and its achieved TFLOP/s is those FLOPs over the summed time of the
kernels the calls launched."""

from __future__ import annotations

import json
import lzma
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from kernelscope.kinds.kineto.analysis.op_efficiency import kineto_op_efficiency
from kernelscope.kinds.kineto.model.model import read_trace
from kernelscope.timeline.analysis.op_table import NO_OPERATOR
from tests.conftest import SAMPLES
from tests.wild.conftest import require_wild

STEP = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


def _events(path: Path) -> list[dict[str, Any]]:
    with lzma.open(path) as fh:
        return json.load(fh)["traceEvents"]  # type: ignore[no-any-return]


def _flops(name: str, dims: list[list[int]]) -> int:
    """2·M·N·K × batch of an ``aten::mm`` or ``aten::matmul`` (an N-D first operand times a
    2-D second, as in these traces)."""
    a, b = dims[0], dims[1]
    batch = 1
    for size in a[:-2]:
        batch *= size
    return 2 * batch * a[-2] * b[-1] * a[-1]


def _products(events: list[dict[str, Any]]) -> dict[str, tuple[int, int, float]]:
    """aten::mm and aten::matmul calls that launched kernels (theirs or their nested calls'),
    not inside another modelled product, by name and Input Dims: (calls, FLOPs, kernel µs)."""
    kernel_us: dict[int, float] = defaultdict(float)
    for event in events:
        if event.get("cat") == "kernel":
            kernel_us[event["args"]["External id"]] += event["dur"]
    ops = [e for e in events if e.get("cat") == "cpu_op"]
    by_thread: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for op in ops:
        by_thread[op["tid"]].append(op)
    found: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    outer = {"aten::linear", "aten::matmul"}
    for op in ops:
        if op["name"] not in ("aten::mm", "aten::matmul"):
            continue
        start, end = op["ts"], op["ts"] + op["dur"]
        around = [o for o in by_thread[op["tid"]] if o is not op and o["ts"] <= start
                  and end <= o["ts"] + o["dur"]]
        if any(o["name"] in outer for o in around):
            continue  # counted by the product around it
        inside = [o for o in by_thread[op["tid"]] if start <= o["ts"]
                  and o["ts"] + o["dur"] <= end]
        us = sum(kernel_us.get(o["args"]["External id"], 0.0) for o in inside)
        if us:
            key = op["name"] + " " + json.dumps(op["args"]["Input Dims"])
            entry = found[key]
            entry[0] += 1
            entry[1] += _flops(op["name"], op["args"]["Input Dims"])
            entry[2] += us
    return {k: (int(v[0]), int(v[1]), v[2]) for k, v in found.items()}


@pytest.mark.parametrize("path", [STEP, SAMPLES / "opeff" / "gemm_sweep.pt.trace.json.xz"])
def test_mm_and_matmul_rows_are_two_mnk_per_call_over_their_kernels_time(path: Path) -> None:
    efficiency = kineto_op_efficiency(read_trace(path))
    assert efficiency.available and efficiency.peaks is not None
    expected = _products(_events(path))
    rows = [row for row in efficiency.rows if row.op in ("aten::mm", "aten::matmul")]
    assert len(rows) == len(expected) >= 4
    for row in rows:
        calls, flops, kernel_us = expected[row.op + " " + row.input_shapes]
        dims = json.loads(row.input_shapes)
        assert row.calls == calls
        assert row.flops == flops == _flops(row.op, dims) * calls
        assert row.gpu_time_ns == pytest.approx(kernel_us * 1000, abs=calls * 2)
        assert row.achieved_tflops == pytest.approx(row.flops / (kernel_us * 1e-6) / 1e12,
                                                     rel=1e-4)
        assert row.dtype == "bf16" and row.peak_tflops == 989.5
        assert row.pct_of_peak == pytest.approx(100 * row.achieved_tflops / 989.5)


def test_autocast_linear_takes_the_dtype_of_its_product_and_mfu_per_step() -> None:
    efficiency = kineto_op_efficiency(read_trace(STEP))
    # under autocast, linear's inputs are FP32; the addmm it runs (and its kernels) is BF16
    linear = [row for row in efficiency.rows if row.op == "aten::linear"]
    assert linear and all(row.dtype == "bf16" for row in linear)
    assert [m.step for m in efficiency.mfu] == [2, 3, 4]
    flops = sum(row.flops or 0 for row in efficiency.rows
                if row.modelled and row.model.startswith("2·"))
    assert sum(m.model_flops for m in efficiency.mfu) == flops
    for step in efficiency.mfu:
        assert step.mfu_pct == pytest.approx(
            100 * step.model_flops / (step.duration_ns * 1e-9 * 989.5e12))
    given = kineto_op_efficiency(read_trace(STEP), model_flops=1e12)
    assert {m.source for m in given.mfu} == {"--model-flops"}
    assert all(m.model_flops == 1e12 for m in given.mfu)


def test_a_kernel_is_not_given_to_an_operator_that_was_not_open_at_its_launch() -> None:
    """flashinfer's rotary kernels are launched outside any aten operator, yet carry the
    External id of whatever operator came last (a slice, a split): they are no operator's."""
    wild = require_wild() / "kineto"
    trace = read_trace(wild / "flashinfer-ai__flashinfer__rope_profile.pt.trace.json.xz")
    efficiency = kineto_op_efficiency(trace)
    names = {row.op for row in efficiency.rows}
    assert not names & {"aten::slice", "aten::split", "aten::view_as", "aten::empty_strided"}
    orphans = next(row for row in efficiency.rows if row.op == NO_OPERATOR)
    rotary = [e for e in _events(wild / trace.path.name) if e.get("cat") == "kernel"
              and "RotaryPosIds" in e["name"]]
    assert orphans.kernels >= len(rotary) == 10
    assert efficiency.peaks is not None and efficiency.peaks.product == "H100 NVL"


def test_traces_without_shapes_say_so() -> None:
    wild = require_wild() / "kineto"
    trace = read_trace(wild / "ModelTC__lightllm__forward_decode_0.pt.trace.json.xz")
    efficiency = kineto_op_efficiency(trace)
    assert not efficiency.available and not efficiency.rows
    assert "record_shapes=True" in efficiency.shapes
