"""Operator efficiency of a Kineto trace: its ``cpu_op`` calls with shapes, each kernel
linked to the call that launched it by its ``External id`` (or, where the kernel has none, by
the ``External id`` of the runtime call of its ``correlation``), steps from ``ProfilerStep#N``.
"""

from __future__ import annotations

import polars as pl

from kernelscope.kinds.kineto.analysis.op_shapes import read_op_ranges, shapes_recorded
from kernelscope.kinds.kineto.model.model import KinetoTrace, global_id
from kernelscope.timeline.analysis.op_efficiency import OpEfficiency, unavailable
from kernelscope.timeline.analysis.op_table import Launch, op_efficiency

SHAPES = "Kineto cpu_op Input Dims (record_shapes=True)"


def kernel_launches(trace: KinetoTrace) -> list[Launch]:
    """Every kernel with the ``External id`` of the call that launched it."""
    runtime = (trace.runtime.filter(pl.col("correlation") >= 0)
               .unique("correlation", keep="first")
               .select("correlation", pl.col("external_id").alias("_runtime_ext"),
                       pl.col("start").alias("_at"), pl.col("pid").alias("_pid"),
                       pl.col("tid").alias("_tid")))
    kernels = (trace.gpu.filter(pl.col("kind") == "kernel")
               .join(runtime, on="correlation", how="left")
               .select(pl.coalesce("external_id", "_runtime_ext").alias("op"),
                       (pl.col("end") - pl.col("start")).alias("ns"), "name", "device",
                       "_pid", "_tid", "_at"))
    return [Launch(op, int(ns), str(name), int(device if device is not None else -1),
                   None if pid is None or tid is None else global_id(int(pid), int(tid)),
                   None if at is None else int(at))
            for op, ns, name, device, pid, tid, at in kernels.iter_rows()]


def kineto_op_efficiency(trace: KinetoTrace, model_flops: float | None = None
                         ) -> OpEfficiency:
    devices = {d.id: d.name for d in trace.devices}
    device = trace.devices[0].name if trace.devices else None
    if shapes_recorded(trace) is False:
        return unavailable("the trace was recorded without shapes (profile with "
                           "record_shapes=True)", device)
    ranges = read_op_ranges(trace)
    if not ranges:
        return unavailable("no operator in the trace carries Input Dims (profile with "
                           "record_shapes=True)", device)
    steps = [(int(step), int(start), int(end))
             for step, start, end in trace.steps.select("step", "start", "end").iter_rows()]
    return op_efficiency(ranges, kernel_launches(trace), devices, steps, SHAPES, model_flops)
