"""The operators' shapes are read in the reader's one pass over the events: every ``cpu_op``
call the trace holds, with the ``Input Dims``, ``Input type``, ``Concrete Inputs`` and ``Input
Strides`` it records, equal to a whole-file orjson read of the same trace."""

from __future__ import annotations

import io
import lzma
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest

from kernelscope.kinds.kineto.analysis.op_shapes import read_op_ranges
from kernelscope.kinds.kineto.model.events import RAW_SCHEMA, read_piece
from kernelscope.kinds.kineto.model.model import global_id, read_trace
from kernelscope.timeline.analysis.op_attribution import OpRange
from kernelscope.timeline.analysis.op_models import OpCall
from tests.conftest import SAMPLES
from tests.wild.conftest import require_wild

STEP = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"
TRACES = sorted(SAMPLES.glob("**/*.pt.trace.json.xz"))


def _events(path: Path) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = orjson.loads(lzma.decompress(path.read_bytes()))["traceEvents"]
    return events


def _texts(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _whole_file_ranges(path: Path) -> list[OpRange]:
    """The calls as read from the whole parsed file, one event at a time."""
    found = []
    for event in _events(path):
        args = event.get("args") or {}
        if event.get("cat") != "cpu_op" or "External id" not in args:
            continue
        start = round(event["ts"] * 1000)
        dims, strides = args.get("Input Dims"), args.get("Input Strides")
        call = OpCall(event["name"], tuple(dims) if isinstance(dims, list) else (),
                      _texts(args.get("Input type")), _texts(args.get("Concrete Inputs")),
                      strides=tuple(strides) if isinstance(strides, list) and strides else None)
        found.append(OpRange(int(args["External id"]), start, start + round(event["dur"] * 1000),
                             global_id(event["pid"], event["tid"]), call))
    return found if any(r.call.dims for r in found) else []


@pytest.mark.parametrize("path", TRACES, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_calls_equal_a_whole_file_read(path: Path) -> None:
    assert read_op_ranges(read_trace(path, need_gpu=False)) == _whole_file_ranges(path)


def test_wild_traces_calls_equal_a_whole_file_read() -> None:
    paths = sorted((require_wild() / "kineto").glob("*.pt.trace.json.xz"))
    assert paths
    for path in paths:
        assert read_op_ranges(read_trace(path)) == _whole_file_ranges(path), path.name


def test_the_step_trace_has_shapes_including_lists_of_tensors() -> None:
    ranges = read_op_ranges(read_trace(STEP))
    assert len(ranges) == 6972
    assert sum(1 for r in ranges if r.call.dims) == 6903
    nested = [r for r in ranges if any(isinstance(d, list) and d and isinstance(d[0], list)
                                       for d in r.call.dims)]
    assert nested and all("TensorList" in r.call.types for r in nested)
    # a step repeats its calls' shapes: calls with equal shapes share one record
    with_dims = [r.call.dims for r in ranges if r.call.dims]
    assert len({id(dims) for dims in with_dims}) < len(with_dims) // 2


def test_read_without_shapes_keeps_none() -> None:
    trace = read_trace(STEP, shapes=False)
    assert trace.op_shapes == [] and read_op_ranges(trace) == []
    assert trace.cpu.filter(trace.cpu["cat"] == "cpu_op").height == 6972


def test_a_piece_polars_cannot_type_gives_the_same_shapes() -> None:
    # The Python pass (a stream written as text makes polars refuse the piece) keeps the
    # same shapes as the columnar pass.
    events = _events(STEP)[:3000]
    odd = {**next(e for e in _events(STEP) if e.get("cat") == "kernel")}
    odd["args"] = {**odd["args"], "stream": str(odd["args"]["stream"])}
    text = orjson.dumps([*events, odd])
    with pytest.raises(pl.exceptions.PolarsError):
        pl.read_json(io.BytesIO(text), schema=RAW_SCHEMA)
    fast, slow = read_piece(orjson.dumps(events)), read_piece(text)
    assert fast.shapes and fast.shapes == slow.shapes
    assert read_piece(orjson.dumps(events), shapes=False).shapes == []


def test_strides_are_read_beside_the_dims_and_shared() -> None:
    # the SDPA sample's cast of the summed loss's gradient: a broadcast view, all strides 0
    ranges = read_op_ranges(read_trace(SAMPLES / "opeff" / "sdpa.pt.trace.json.xz"))
    casts = [r.call for r in ranges if r.call.name == "aten::_to_copy"
             and r.call.types[0] == "float"]
    assert casts and all(c.strides and c.strides[0] == [0, 0, 0, 0] for c in casts)
    assert all(len(c.strides or ()) == len(c.dims) for c in casts)
    assert len({id(c.strides) for c in casts}) == 1
