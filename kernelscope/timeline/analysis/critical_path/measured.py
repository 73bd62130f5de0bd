"""The measured replay in columns: what the forward pass over the measured durations gives
(every measured time back) and the edge that decided each start and end, without the pass."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from kernelscope.timeline.analysis.critical_path.chains import Chains
from kernelscope.timeline.analysis.critical_path.eager import (
    filled,
    positions,
    run_starts,
    shifted,
    take,
    where,
)
from kernelscope.timeline.analysis.critical_path.graph import Graph
from kernelscope.timeline.analysis.critical_path.ints import ints
from kernelscope.timeline.analysis.critical_path.schedule import Plan, Replay


def measured_replay(plan: Plan, graph: Graph) -> Replay:
    """What ``replay(plan)`` gives, in columns: the measured times (which the replay of the
    measured durations gives back), and the edge that decided each start and end: the first
    in the plan's order of those allowing the latest time (a waiting call's end: only when
    later than its own start plus its return)."""
    start, end = graph.nodes["start"].cast(pl.Int64), graph.nodes["end"].cast(pl.Int64)
    durs, s_gap, e_gap = plan.columns[:3]
    starts, ends = plan.by_dst
    start_by = _starts_reached(plan.chains, starts, s_gap, start, end)
    if start_by is None:  # a start no edge gives back: not a replay of its measured times
        start_by = _deciding(starts, s_gap, start, end, None)
    end_by = _first_reaching(ends, e_gap, start, end, start + durs)
    return Replay(plan.start, plan.end, start_by, end_by or [], (start, end))


def _starts_reached(chains: Chains, starts: pl.DataFrame, gaps: pl.Series, start: pl.Series,
                    end: pl.Series) -> Sequence[int] | None:
    """``_first_reaching`` of the start edges, read by part instead of over all 1.44
    million: a chain member's one edge (its thread edge from the node before it, from that
    node's end), each pair's two (the first where it gives the start back, else the second),
    and the other heads' few (``Chains.single``)."""
    decided: pl.Series = chains.member_pos.clone()  # ``scatter`` changes the one it is given
    member = chains.member
    if member.any():
        back = shifted(end, 0) + take(gaps, chains.member_at)
        if not ((back == start) | ~member).all():
            return None
    if chains.pair_at is not None:
        _, node, lo, _, _ = chains.paired
        target, lo_at = take(start, node), positions(lo)
        first, second = (_reached(take(starts["src"], at), take(starts["from_start"], at),
                                  take(gaps, at), start, end) == target
                         for at in (lo_at, lo_at + 1))
        if not (first | second).all():
            return None
        decided.scatter(node, lo + (~first).cast(pl.Int64))
    if chains.single.len():
        single = chains.single.sort()  # in the start edges' order: by destination
        at = positions(single)
        dst = take(starts["dst"], at)
        hit = _reached(take(starts["src"], at), take(starts["from_start"], at),
                       take(gaps, at), start, end) == take(start, dst)
        reached = dst.filter(hit)
        first_hit = run_starts(reached)
        if reached.filter(first_hit).len() != dst.n_unique():
            return None
        decided.scatter(reached.filter(first_hit), single.filter(hit).filter(first_hit))
    return ints(decided)


def _reached(src: pl.Series, from_start: pl.Series, gaps: pl.Series, start: pl.Series,
             end: pl.Series) -> pl.Series:
    """Per edge (its source, whether it leaves the source's start) the time it allows its
    destination."""
    src = positions(src)  # read twice
    allowed: pl.Series = where(from_start, take(start, src), take(end, src)) + gaps
    return allowed


def _first_reaching(edges: pl.DataFrame, gaps: pl.Series, start: pl.Series, end: pl.Series,
                    own: pl.Series | None) -> Sequence[int] | None:
    """Per node the position (in ``edges``: src, dst, from_start, sorted by destination) of
    the first edge that gives its measured start (``own`` None) or its measured end later
    than ``own``, -1 for none; None when a node with start edges has none that gives its
    start back. In a replay of the measured times the latest an edge allows is the measured
    time: this is ``_deciding`` without its sort."""
    n, dst = start.len(), edges["dst"]
    value = _reached(edges["src"], edges["from_start"], gaps, start, end)
    hit = value == take(start if own is None else end, dst)
    if own is not None:
        hit = hit & (value > take(own, dst))
    reached = dst.filter(hit)  # sorted, as ``edges``
    first = run_starts(reached)
    if own is None and reached.filter(first).len() != run_starts(dst).sum():
        return None
    pos = pl.int_range(edges.height, eager=True, dtype=pl.Int64).filter(hit).filter(first)
    return ints(filled(-1, n).scatter(reached.filter(first), pos))


def _deciding(edges: pl.DataFrame, gaps: pl.Series, start: pl.Series, end: pl.Series,
              own: pl.Series | None) -> Sequence[int]:
    """Per node the position (in ``edges``) of the edge allowing the latest time, -1 for
    none (or for none later than ``own``)."""
    n = start.len()
    best = pl.DataFrame({"dst": edges["dst"],
                         "value": _reached(edges["src"], edges["from_start"], gaps, start, end),
                         "pos": pl.int_range(edges.height, eager=True, dtype=pl.Int64)}).sort(
        ["dst", "value", "pos"], descending=[False, True, False]).unique(
        "dst", keep="first", maintain_order=True)
    if own is not None:
        best = best.filter(pl.col("value") > own.gather(best["dst"]))
    nodes = pl.DataFrame({"dst": pl.int_range(n, eager=True, dtype=pl.Int64)})
    return ints(nodes.join(best.select("dst", "pos"), on="dst", how="left").sort("dst")[
        "pos"].fill_null(-1))
