"""One step's critical path as spans of time on the timeline's lanes, for the lanes to mark.

The spans are the path's own times (a kernel, a copy, a CUDA call: ``[end - ns, end)`` on
its stream's or thread's lane, a kernel also on its device's lane) and the CPU time between
calls (``[start - ns, start)`` on the thread's CUDA API lane). Launch latency, waits between
streams and threads, and synchronisation are between lanes: they are not marked. Lane keys
are the timeline index's (``gpu0``, ``gpu0/s7``, ``cuda/1234``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from kernelscope.timeline.analysis.critical_path.graph import Graph
from kernelscope.timeline.analysis.critical_path.result import CriticalPath
from kernelscope.timeline.analysis.critical_path.vocabulary import (
    GPU,
    LANES_PER_DEVICE,
    WHOLE_TRACE_LANE,
)

TID_BITS = 24
"""A CUDA API lane is named by the thread id in the low 24 bits of its global id."""


@dataclass(frozen=True)
class StepPath:
    """A step (its number, name and measured span) and its path's spans per lane key."""

    step: int
    name: str | None
    start: int
    end: int
    spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


def step_at(cp: CriticalPath, at_ns: int) -> int | None:
    """The step whose span holds ``at_ns``, else the last that began before it, else the
    first (None without steps)."""
    steps = cp.steps.sort("start")
    if not steps.height:
        return None
    before = steps.filter(pl.col("start") <= at_ns)
    return int((before if before.height else steps)["step"][-1 if before.height else 0])


def step_path(cp: CriticalPath, graph: Graph, step: int) -> StepPath:
    """The spans of ``step``'s critical path on the timeline's lanes."""
    row = cp.steps.filter(pl.col("step") == step).row(0, named=True)
    nodes = graph.nodes.select("node", "cls", "start", "end", "lane")
    parts = cp.segments.filter((pl.col("step") == step) & (pl.col("ns") > 0) & (
        (pl.col("edge") == -1) | (pl.col("kind") == "cpu"))).join(nodes, on="node")
    own = pl.col("edge") == -1
    spans = parts.filter(pl.col("lane") != WHOLE_TRACE_LANE).select(
        "cls", "lane",
        pl.when(own).then(pl.col("end") - pl.col("ns")).otherwise(pl.col("start") - pl.col("ns"))
        .alias("from"),
        pl.when(own).then(pl.col("end")).otherwise(pl.col("start")).alias("to"))
    out: dict[str, list[tuple[int, int]]] = {}
    for cls, lane, first, last in spans.sort("from").iter_rows():
        for key in _lane_keys(int(cls), int(lane)):
            out.setdefault(key, []).append((int(first), int(last)))
    return StepPath(step, row["name"], int(row["start"]), int(row["end"]), out)


def _lane_keys(cls: int, lane: int) -> tuple[str, ...]:
    if cls == GPU:
        device, stream = divmod(lane, LANES_PER_DEVICE)
        return (f"gpu{device}", f"gpu{device}/s{stream}")
    return (f"cuda/{lane % (1 << TID_BITS)}",)
