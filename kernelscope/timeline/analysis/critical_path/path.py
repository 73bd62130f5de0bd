"""The critical path of every step: from the step's end back to its begin, through what
decided each start and end, cut into segments that add up to the step's time; its
breakdown by kind; and per kernel family the time on the path and the slack beside it.

Kinds of segment: ``kernel`` and ``communication`` (a kernel's time; NCCL/gloo kernels are
communication), ``copy`` (memcpy, memset), ``api`` (a CUDA call's CPU time), ``cpu`` (CPU
time between calls, named by the innermost CPU range around it), ``launch`` (from a launch
call's start to its kernel's start), ``sync`` (a synchronising call returning after the GPU
work it waited for), ``stream wait`` (an operation held by another stream's), ``gpu gap``
(a stream idle between operations that follow each other), ``thread wait`` (a thread
resuming after another thread's call), ``untraced`` (before a lane's first event, which
waited on nothing the trace holds).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

import polars as pl

from kernelscope.timeline.analysis.critical_path.graph import Graph
from kernelscope.timeline.analysis.critical_path.schedule import INF, Plan, Replay
from kernelscope.timeline.analysis.critical_path.vocabulary import (
    CROSS,
    EVENT,
    GPU,
    JOIN,
    LAUNCH,
    STREAM,
    SYNC,
    THREAD,
    WAKE,
)

COMMUNICATION = re.compile(r"(?i)nccl|gloo|allreduce|all_reduce|allgather|reducescatter")
EDGE_KIND = {THREAD: "cpu", LAUNCH: "launch", STREAM: "gpu gap", EVENT: "stream wait",
             CROSS: "stream wait", SYNC: "sync", JOIN: "gpu gap", WAKE: "thread wait"}
UNTRACED = "(no range)"
SEGMENT_SCHEMA = {"step": pl.Int64, "kind": pl.String, "name": pl.String, "ns": pl.Int64,
                  "node": pl.Int64, "edge": pl.Int64}


@dataclass(frozen=True)
class Segment:
    kind: str
    name: str
    ns: int
    node: int
    edge: int  # -1 for a node's own time, -2 for the time before a lane's first event


class PathWalker:
    """Walks one replay's critical paths (``Graph``/``Plan`` shared with the what-if)."""

    def __init__(self, graph: Graph, plan: Plan, run: Replay, dur: list[int]) -> None:
        self.graph, self.plan, self.run, self.dur = graph, plan, run, dur
        nodes = graph.nodes
        self.kind = nodes["kind"].to_list()
        self.name = nodes["name"].to_list()
        self.lane = nodes["lane"].to_list()
        edges = graph.edges
        self.etype = edges["etype"].to_list()
        self.src = edges["src"].to_list()
        self.from_start = edges["from_start"].to_list()
        self._ranges: RangeIndex | None = None

    def step_path(self, begin: int, finish: int) -> list[Segment]:
        """The segments of the path from ``finish`` back to ``begin`` (newest first)."""
        run, plan = self.run, self.plan
        floor = run.start[begin]
        node, at_end, now = finish, False, run.start[finish]
        out: list[Segment] = []
        while now > floor:
            if at_end:
                by = run.end_by[node]
                if by >= 0:
                    edge = plan.e_edge[by]
                    out.append(Segment("sync", self.name[node], plan.e_gap[by], node, edge))
                    node = self.src[edge]
                else:
                    out.append(self._own(node, self.dur[node]))
                    at_end = False
                now = run.end[node] if at_end else run.start[node]
                continue
            by = run.start_by[node]
            if node == begin:
                break
            if by < 0:  # a lane's first event: what held it is not in the trace
                out.append(Segment("untraced", self.name[node] or "", now - floor, node, -2))
                break
            edge = plan.s_edge[by]
            source = self.src[edge]
            out.append(self._edge(edge, node, now - (run.start[source] if self.from_start[edge]
                                                      else run.end[source])))
            node, at_end = source, not self.from_start[edge]
            now = run.end[node] if at_end else run.start[node]
        if now < floor and out:
            last = out[-1]
            out[-1] = Segment(last.kind, last.name, last.ns - (floor - now), last.node, last.edge)
        return out

    def _own(self, node: int, ns: int) -> Segment:
        kind = self.kind[node]
        if kind == "kernel":
            kind = "communication" if COMMUNICATION.search(self.name[node] or "") else "kernel"
        elif kind in ("memcpy", "memset"):
            kind = "copy"
        elif kind != "api":
            kind = "cpu"
        return Segment(kind, self.name[node] or "", ns, node, -1)

    def _edge(self, edge: int, node: int, ns: int) -> Segment:
        kind = EDGE_KIND[self.etype[edge]]
        if kind == "cpu":
            name = self.ranges.innermost(self.lane[node], self.run.start[node] - ns // 2)
        elif kind == "launch":
            name = "launch overhead"
        else:
            name = self.name[node] or ""
        return Segment(kind, name, ns, node, edge)

    @property
    def ranges(self) -> RangeIndex:
        if self._ranges is None:
            self._ranges = RangeIndex(self.graph.ranges)
        return self._ranges


class RangeIndex:
    """The innermost CPU range around a time on a thread (ranges nest on a thread)."""

    def __init__(self, ranges: pl.DataFrame) -> None:
        self._by_thread: dict[int, tuple[list[int], list[int], list[str], list[int]]] = {}
        self._frame = ranges

    def _thread(self, tid: int) -> tuple[list[int], list[int], list[str], list[int]]:
        if tid not in self._by_thread:
            part = self._frame.filter(pl.col("global_tid") == tid)
            starts, ends = part["start"].to_list(), part["end"].to_list()
            parents: list[int] = []
            stack: list[int] = []
            for i, (start, _end) in enumerate(zip(starts, ends, strict=True)):
                while stack and ends[stack[-1]] <= start:
                    stack.pop()
                parents.append(stack[-1] if stack else -1)
                stack.append(i)
            self._by_thread[tid] = (starts, ends, part["name"].to_list(), parents)
        return self._by_thread[tid]

    def innermost(self, tid: int, at: int) -> str:
        starts, ends, names, parents = self._thread(tid)
        i = bisect.bisect_right(starts, at) - 1
        while i >= 0 and ends[i] <= at:
            i = parents[i]
        return names[i] if i >= 0 else UNTRACED


def segments_frame(steps: list[tuple[int, list[Segment]]]) -> pl.DataFrame:
    rows = [(step, s.kind, s.name, s.ns, s.node, s.edge) for step, path in steps for s in path]
    return pl.DataFrame(rows, schema=SEGMENT_SCHEMA, orient="row")


def breakdown(segments: pl.DataFrame) -> pl.DataFrame:
    """Per kind and name: ns on the path (summed over the steps), and its share of it."""
    total = max(int(segments["ns"].sum() or 0), 1)
    return (segments.group_by("kind", "name").agg(pl.col("ns").sum(), pl.len().alias("count"))
            .with_columns((100.0 * pl.col("ns") / total).alias("pct"))
            .sort(["ns", "kind", "name"], descending=[True, False, False]))


def family_slack(graph: Graph, run: Replay, late: list[int], segments: pl.DataFrame
                 ) -> pl.DataFrame:
    """Per kernel family (name): launches, GPU time, time on the critical path and the
    least slack of its launches (how much later any could end before a step's end moves;
    null when no step waits on them), over the steps' windows."""
    nodes = graph.nodes.with_columns(
        pl.Series("slack", [x - e if x < INF else None for x, e in zip(late, run.end, strict=True)],
                  dtype=pl.Int64))
    windows = graph.steps.select("start", "end")
    ops = nodes.filter(pl.col("cls") == GPU).sort("start").join_asof(
        windows.sort("start").rename({"start": "w_start", "end": "w_end"}),
        left_on="start", right_on="w_start", strategy="backward", check_sortedness=False,
    ).filter(pl.col("start") < pl.col("w_end"))
    on_path = segments.filter(pl.col("edge") == -1).group_by("node").agg(
        pl.col("ns").sum().alias("path_ns"))
    ops = ops.join(on_path, on="node", how="left")
    return ops.group_by("name", "kind").agg(
        pl.len().alias("launches"), (pl.col("end") - pl.col("start")).sum().alias("gpu_ns"),
        pl.col("path_ns").fill_null(0).sum().alias("path_ns"),
        pl.col("slack").min().alias("slack_ns"),
    ).sort(["path_ns", "gpu_ns", "name"], descending=[True, True, False])
