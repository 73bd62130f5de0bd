"""The shapes of a Kineto trace's operator calls (``record_shapes=True``): every ``cpu_op``
call's ``External id``, thread and time (its row of the ``cpu`` frame) with its ``Input
Dims``, ``Input type``, ``Concrete Inputs`` and ``Input Strides`` (empty where it has none),
which the reader keeps beside the frames in its one pass over the events
(``model/events.py``: ``shapes_of``).
"""

from __future__ import annotations

from collections import deque

import polars as pl

from kernelscope.kinds.kineto.model.events import Shapes
from kernelscope.kinds.kineto.model.model import KinetoTrace, global_id
from kernelscope.timeline.analysis.op_attribution import OpRange
from kernelscope.timeline.analysis.op_models import OpCall

_NONE: Shapes = ((), (), (), ())


def shapes_recorded(trace: KinetoTrace) -> bool | None:
    """What the trace's header says of ``record_shapes`` (None: it does not say)."""
    value = trace.members.get("record_shapes")
    return None if value is None else bool(value)


def read_op_ranges(trace: KinetoTrace) -> list[OpRange]:
    """Every ``cpu_op`` call with an ``External id``, a thread and a time, in the trace's
    order; a call without ``Input Dims`` has no shapes (``dims`` empty) but still owns the
    kernels it launched. Empty when the header says no shapes were recorded or no call
    carries ``Input Dims``."""
    if shapes_recorded(trace) is False or not any(shapes[0] for _, shapes in trace.op_shapes):
        return []
    pending: dict[int, deque[Shapes]] = {}
    for ext, shapes in trace.op_shapes:
        pending.setdefault(ext, deque()).append(shapes)
    calls = trace.cpu.filter(
        (pl.col("cat") == "cpu_op") & pl.col("external_id").is_not_null()
        & pl.col("pid").is_not_null() & pl.col("tid").is_not_null()
    ).select("external_id", "start", "end", "pid", "tid", "name")
    ranges = []
    for ext, start, end, pid, tid, name in calls.iter_rows():
        queue = pending.get(ext)
        dims, types, concrete, strides = queue.popleft() if queue else _NONE
        ranges.append(OpRange(ext, start, end, global_id(pid, tid),
                              OpCall(name, dims, types, concrete, strides=strides or None)))
    return ranges
