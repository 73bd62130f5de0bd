"""Replaying a graph: every node's start and end from its edges and durations (a forward
pass in time order), what decided each, and how late each could end before a step's end
moves (a backward pass).

Events are a node's start (every node) and, for a synchronising call that waited, its end.
They are replayed in measured time order: every edge points forward in measured time, so
that order is a topological order of the graph (ties: a waiting call's end, then a CPU
start, then a GPU start).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from kernelscope.timeline.analysis.critical_path.graph import Graph
from kernelscope.timeline.analysis.critical_path.vocabulary import GPU, MARK

INF = 1 << 62
"""No bound: a time at or above INF // 2 is unbounded (a bound minus durations stays above)."""


@dataclass(eq=False)
class Plan:
    """A graph as Python lists for the passes: per node its start edges (``s_*``, from
    ``s_ptr[n]`` to ``s_ptr[n + 1]``) and end edges (``e_*``); an edge's source is encoded
    ``2 * node`` (its start) or ``2 * node + 1`` (its end)."""

    order: list[int]
    start: list[int]
    end: list[int]
    dur: list[int]
    s_ptr: list[int]
    s_src: list[int]
    s_gap: list[int]
    s_edge: list[int]
    e_ptr: list[int]
    e_src: list[int]
    e_gap: list[int]
    e_edge: list[int]
    finish: list[int]


@dataclass(eq=False)
class Replay:
    """A forward pass: per node its start and end and the edge (row of ``Graph.edges``)
    that decided each (-1: its own measured start, or its duration)."""

    start: list[int]
    end: list[int]
    start_by: list[int]
    end_by: list[int]


def plan_of(graph: Graph) -> Plan:
    """The lists the passes read, with the graph's measured durations and gaps."""
    nodes, edges = graph.nodes, graph.edges.with_row_index("edge")
    n = nodes.height
    enc = 2 * pl.col("src") + (~pl.col("from_start")).cast(pl.Int64)
    starts = edges.filter(~pl.col("to_end")).sort("dst").with_columns(enc.alias("enc"))
    ends = edges.filter(pl.col("to_end")).sort("dst").with_columns(
        (2 * pl.col("src") + 1).alias("enc"))
    waits = set(ends["dst"].to_list())
    events = nodes.select(
        "node", pl.col("start").alias("at"),
        pl.when(pl.col("cls") == GPU).then(2).otherwise(1).alias("rank"),
        pl.lit(0).alias("side"))
    if waits:
        events = pl.concat([events, nodes.filter(pl.col("node").is_in(list(waits))).select(
            "node", pl.col("end").alias("at"), pl.lit(0).alias("rank"),
            pl.lit(1).alias("side"))], how="vertical_relaxed")
    events = events.sort("at", "rank", "node")
    return Plan(
        order=(2 * events["node"] + events["side"]).to_list(),
        start=nodes["start"].to_list(), end=nodes["end"].to_list(), dur=nodes["dur"].to_list(),
        s_ptr=_pointers(starts["dst"], n), s_src=starts["enc"].to_list(),
        s_gap=starts["gap"].to_list(), s_edge=starts["edge"].to_list(),
        e_ptr=_pointers(ends["dst"], n), e_src=ends["enc"].to_list(),
        e_gap=ends["gap"].to_list(), e_edge=ends["edge"].to_list(),
        finish=nodes.filter((pl.col("cls") == MARK) & (pl.col("kind") == "step end"))["node"]
        .to_list(),
    )


def _pointers(dst: pl.Series, n: int) -> list[int]:
    """CSR offsets of edges sorted by ``dst``: node i's edges are [ptr[i], ptr[i + 1])."""
    counts = dst.value_counts().rename({dst.name: "node"})
    per_node = pl.DataFrame({"node": pl.int_range(n, eager=True).cast(dst.dtype)}).join(
        counts, on="node", how="left").sort("node")["count"].fill_null(0).cast(pl.Int64)
    return [0, *per_node.cum_sum().to_list()]


def replay(plan: Plan, dur: list[int] | None = None, s_gap: list[int] | None = None
           ) -> Replay:
    """The forward pass, with ``dur`` and ``s_gap`` (start edges' gaps) in place of the
    measured ones where given."""
    dur = plan.dur if dur is None else dur
    s_gap = plan.s_gap if s_gap is None else s_gap
    s_ptr, s_src, e_ptr, e_src, e_gap = plan.s_ptr, plan.s_src, plan.e_ptr, plan.e_src, plan.e_gap
    times = [0] * (2 * len(dur))
    start_by = [-1] * len(dur)
    end_by = [-1] * len(dur)
    for event in plan.order:
        n = event >> 1
        if event & 1:
            best, by = times[2 * n] + dur[n], -1
            for k in range(e_ptr[n], e_ptr[n + 1]):
                value = times[e_src[k]] + e_gap[k]
                if value > best:
                    best, by = value, k
            times[event] = best
            end_by[n] = by
            continue
        lo, hi = s_ptr[n], s_ptr[n + 1]
        best, by = plan.start[n], -1
        if lo < hi:
            best, by = times[s_src[lo]] + s_gap[lo], lo
            for k in range(lo + 1, hi):
                value = times[s_src[k]] + s_gap[k]
                if value > best:
                    best, by = value, k
        times[event] = best
        start_by[n] = by
        if e_ptr[n] == e_ptr[n + 1]:
            times[event + 1] = best + dur[n]
    return Replay(times[0::2], times[1::2], start_by, end_by)


def latest_ends(plan: Plan, run: Replay, dur: list[int] | None = None,
                s_gap: list[int] | None = None) -> list[int]:
    """Per node, the latest it could end with no step ending later than in ``run`` (INF // 2
    or more for what no step's end waits on): the backward pass."""
    dur = plan.dur if dur is None else dur
    s_gap = plan.s_gap if s_gap is None else s_gap
    late = [INF] * (2 * len(dur))
    for f in plan.finish:
        late[2 * f] = late[2 * f + 1] = run.start[f]
    s_ptr, s_src, e_ptr, e_src, e_gap = plan.s_ptr, plan.s_src, plan.e_ptr, plan.e_src, plan.e_gap
    for event in reversed(plan.order):
        n = event >> 1
        if event & 1:
            bound = late[event]
            if bound - dur[n] < late[2 * n]:
                late[2 * n] = bound - dur[n]
            for k in range(e_ptr[n], e_ptr[n + 1]):
                if bound - e_gap[k] < late[e_src[k]]:
                    late[e_src[k]] = bound - e_gap[k]
            continue
        if e_ptr[n] == e_ptr[n + 1] and late[event + 1] - dur[n] < late[event]:
            late[event] = late[event + 1] - dur[n]
        bound = late[event]
        if bound >= INF // 2:
            continue
        for k in range(s_ptr[n], s_ptr[n + 1]):
            if bound - s_gap[k] < late[s_src[k]]:
                late[s_src[k]] = bound - s_gap[k]
    return late[1::2]
