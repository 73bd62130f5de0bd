"""Operator efficiency of an Nsight Systems trace whose NVTX ranges are PyTorch's operators:
``torch.autograd.profiler.emit_nvtx(record_shapes=True)`` names each operator's push/pop
range ``aten::mm, seq = 12, op_id = 40, sizes = [[512, 1024], [1024, 256]], input_op_ids =
[...]`` (``seq``, ``op_id`` and ``input_op_ids`` where PyTorch has them).

A kernel belongs to the innermost operator range open on the thread of its launch call (the
CUDA API call of its correlation id). The ranges name no element types and no scalar
arguments: each operator's dtype is what the names of its kernels (and of its nested calls'
kernels) spell (``dtype_in_kernel_names``), and a model that needs a scalar argument (a
convolution's stride, attention's ``is_causal``) reads it as not recorded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import polars as pl

from kernelscope.timeline.analysis.nvtx import nvtx_ranges
from kernelscope.timeline.analysis.op_efficiency import (
    OpEfficiency,
    dtype_in_kernel_names,
    unavailable,
)
from kernelscope.timeline.analysis.steps import report_steps
from kernelscope.timeline.model.model import TimelineReport

if TYPE_CHECKING:
    from kernelscope.timeline.analysis.op_attribution import OpRange
    from kernelscope.timeline.analysis.op_table import Launch

SHAPES = "NVTX ranges of emit_nvtx(record_shapes=True)"
_OP = re.compile(r"^(?P<name>[^,\s][^,]*?)(?:, seq = -?\d+)?(?:, op_id = \d+)?"
                 r"(?:, sizes = (?P<sizes>\[.*?\]))?(?:, input_op_ids = .*)?$")


def parse_op_range(text: str) -> tuple[str, tuple[object, ...]] | None:
    """(operator, sizes) of an emit_nvtx range name with ``sizes``; None for any other."""
    if ", sizes = " not in text:
        return None
    found = _OP.match(text)
    if found is None or found.group("sizes") is None:
        return None
    try:
        sizes = json.loads(found.group("sizes"))
    except ValueError:
        return None
    return (found.group("name"), tuple(sizes)) if isinstance(sizes, list) else None


def _op_ranges(report: TimelineReport) -> list[OpRange]:
    """The operator ranges. The operator models are imported only for a trace that has such
    ranges (most have none, and their modules cost a few milliseconds to import)."""
    found: list[tuple[int, int, int, int, tuple[str, tuple[object, ...]]]] = []
    frame = nvtx_ranges(report).filter(pl.col("style") == "PushPop")
    for index, (start, end, thread, name) in enumerate(
            frame.select("start", "end", "global_tid", "range").iter_rows()):
        message = str(name).split(":", 1)[1] if ":" in str(name) else str(name)
        parsed = parse_op_range(message)
        if parsed is not None and start is not None and end is not None and thread is not None:
            found.append((index, int(start), int(end), int(thread), parsed))
    if not found:
        return []
    from kernelscope.timeline.analysis.op_attribution import OpRange
    from kernelscope.timeline.analysis.op_models import OpCall

    return [OpRange(index, start, end, thread, OpCall(op, sizes))
            for index, start, end, thread, (op, sizes) in found]


def _launches(report: TimelineReport, ops: Sequence[OpRange]) -> list[Launch]:
    from kernelscope.timeline.analysis.op_attribution import innermost
    from kernelscope.timeline.analysis.op_table import Launch

    kernels = report.kernels.join(
        report.cuda_api.select("correlation_id", pl.col("global_tid").alias("_tid"),
                               pl.col("start").alias("_at")),
        on="correlation_id", how="left").select(
        (pl.col("end") - pl.col("start")).alias("ns"), pl.col("name").cast(pl.String),
        "device_id", "_tid", "_at")
    rows = kernels.rows()
    points = [(int(tid if tid is not None else -1), int(at if at is not None else -1))
              for _, _, _, tid, at in rows]
    owners = innermost(ops, points)
    return [Launch(op, int(ns), str(name), int(device), None, None)
            for op, (ns, name, device, _, _) in zip(owners, rows, strict=True)]


def _with_dtypes(ops: Sequence[OpRange], launches: Sequence[Launch]) -> list[OpRange]:
    """Each call with the dtype its own and its nested calls' kernels spell; a matrix product,
    attention or convolution whose kernels spell none (cuBLAS's ``nvjet_*``) takes the one
    dtype the trace's other such operators' kernels spell, when they agree on one."""
    from kernelscope.timeline.analysis.op_attribution import parents
    from kernelscope.timeline.analysis.op_models import FLOP_MODELS

    names: dict[int, list[str]] = {}
    for launch in launches:
        if launch.op_id is not None:
            names.setdefault(launch.op_id, []).append(launch.name)
    parent = parents(ops)
    below: dict[int, list[str]] = {}
    for op_id, kernel_names in names.items():
        current: int | None = op_id
        while current is not None:
            below.setdefault(current, []).extend(kernel_names)
            current = parent.get(current)
    spelled = {op.op_id: dtype_in_kernel_names(below[op.op_id]) for op in ops
               if op.op_id in below}
    flop_dtypes = {spelled[op.op_id] for op in ops if op.call.name in FLOP_MODELS
                   and spelled.get(op.op_id) is not None}
    shared = next(iter(flop_dtypes)) if len(flop_dtypes) == 1 else None
    found = []
    for op in ops:
        dtype = spelled.get(op.op_id)
        if dtype is None and op.call.name in FLOP_MODELS and op.op_id in below:
            dtype = shared
        found.append(replace(op, call=replace(op.call, dtype=dtype)) if dtype else op)
    return found


def _steps(report: TimelineReport) -> list[tuple[int, int, int]]:
    """The trace's steps (``timeline.analysis.steps``) as (index, start, end) in time order."""
    steps = report_steps(report, hold_work=True).sort("start")
    return list(steps.select("step", "start", "end").iter_rows())


def nvtx_op_efficiency(report: TimelineReport, model_flops: float | None = None) -> OpEfficiency:
    """The operator table of ``report`` (see the module docstring)."""
    device = report.devices[0].name if report.devices else None
    ops = _op_ranges(report)
    if not ops:
        return unavailable("no NVTX range names an operator with its sizes (profile under "
                           "torch.autograd.profiler.emit_nvtx(record_shapes=True))", device)
    from kernelscope.timeline.analysis.op_table import op_efficiency

    launches = _launches(report, ops)
    devices = {d.id: d.name for d in report.devices}
    return op_efficiency(_with_dtypes(ops, launches), launches, devices,
                         _steps(report), SHAPES, model_flops)
