"""The shapes of a Kineto trace's operator calls (``record_shapes=True``): every ``cpu_op``
event's ``External id``, thread, time and its ``Input Dims``, ``Input type`` and ``Concrete
Inputs`` (empty where it has none), read in a pass of their own (the frames of ``events.py``
hold no nested lists).

The pass reads the trace again, each piece parsed by orjson; a trace whose header says
``"record_shapes": 0`` is not read again.
"""

from __future__ import annotations

from typing import Any

import orjson

from kernelscope.kinds.kineto.model.model import KinetoTrace, global_id
from kernelscope.kinds.kineto.model.stream import TraceHeader, iter_event_pieces
from kernelscope.timeline.analysis.op_attribution import OpRange
from kernelscope.timeline.analysis.op_models import OpCall


def _text_tuple(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _ranges_of(text: bytes) -> list[OpRange]:
    """The operator calls in one piece (an array of events); a call without ``Input Dims``
    has no shapes (``dims`` empty) but still owns the kernels it launched."""
    events = orjson.loads(text)
    if not isinstance(events, list):
        raise ValueError("not an array")
    found = []
    for event in events:
        if not isinstance(event, dict) or event.get("cat") != "cpu_op":
            continue
        args = event.get("args")
        if not isinstance(args, dict):
            continue
        numbers = [v for v in (args.get("External id"), event.get("ts"), event.get("dur"),
                                event.get("pid"), event.get("tid"))
                   if isinstance(v, (int, float))]
        if len(numbers) != 5:
            continue
        ext, ts, dur, pid, tid = (float(v) for v in numbers)
        start = round(ts * 1000)
        dims = args.get("Input Dims")
        call = OpCall(str(event.get("name", "")), tuple(dims) if isinstance(dims, list) else (),
                      _text_tuple(args.get("Input type")),
                      _text_tuple(args.get("Concrete Inputs")))
        found.append(OpRange(int(ext), start, start + round(dur * 1000),
                             global_id(int(pid), int(tid)), call))
    return found


def shapes_recorded(trace: KinetoTrace) -> bool | None:
    """What the trace's header says of ``record_shapes`` (None: it does not say)."""
    value = trace.members.get("record_shapes")
    return None if value is None else bool(value)


def read_op_ranges(trace: KinetoTrace) -> list[OpRange]:
    """Every ``cpu_op`` call; empty when the header says no shapes were recorded or no call
    carries ``Input Dims``."""
    if shapes_recorded(trace) is False:
        return []
    ranges: list[OpRange] = []
    for piece in iter_event_pieces(trace.path, TraceHeader(), parse=_ranges_of):
        ranges.extend(piece)
    return ranges if any(r.call.dims for r in ranges) else []
