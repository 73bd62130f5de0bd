"""The chains' calls on a replay's paths, summed without expanding them run by run.

A walked path passes through a chain's calls as a run (``PathWalker.runs``: step, lo, hi, the
calls lo + 1 .. hi); each such call adds two segments, the gap before it on its thread and
the own time of the call before it. Both are summed per call of the graph, times the number
of runs that pass the call (``times``), by keys that are the same in every replay of a graph
(``RunKeys``, made once per plan); a run's own total is a difference of prefix sums over the
calls. Only a gap the replay shortened is named by a lookup of its own (``name_parts``).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from kernelscope.timeline.analysis.critical_path.eager import take, where
from kernelscope.timeline.analysis.critical_path.ints import lent

RUN_SCHEMA = {"step": pl.Int64, "lo": pl.Int64, "hi": pl.Int64}


@dataclass(eq=False)
class RunKeys:
    """Per call that follows the call before it in a chain (``Chains.member``): ``call`` (its
    node), ``edge`` (its thread edge, a row of ``Graph.edges``), ``gap_key`` and ``gap_ns``
    (the key of the gap before it and that gap as measured: a gap as long names itself by
    it), ``own_key`` and ``marker`` (the key of the own time of the call before it, and
    whether that call is a marker, which takes no time)."""

    call: pl.Series
    edge: pl.Series
    gap_key: pl.Series
    gap_ns: pl.Series
    own_key: pl.Series
    marker: pl.Series


def run_keys(member: pl.Series, member_pos: pl.Series, s_edge: pl.Series,
             gaps: Callable[[pl.Series, pl.Series], tuple[pl.Series, pl.Series]],
             name_id: pl.Series, own_code: pl.Series, is_marker: pl.Series, kinds: int,
             gap_code: int) -> RunKeys:
    """``RunKeys`` from the chains (``member``, ``member_pos``), the start edges' rows
    (``s_edge``), ``gaps(src, dst)``: per thread edge its measured gap and range name id
    (``names.thread_gaps``), per node its name id, its own time's code and whether it is a
    marker; a key is a name id times ``kinds`` plus a code (``gap_code`` for a gap)."""
    call = member.arg_true().cast(pl.Int64)
    edge = take(s_edge, take(member_pos, call))
    before = call - 1
    gap_ns, gap_name = gaps(before, call)  # a call's one edge: from the call before it
    return RunKeys(call, edge, gap_name * kinds + gap_code, gap_ns,
                   take(name_id, before) * kinds + take(own_code, before),
                   take(is_marker, before))


def summed_runs(keys: RunKeys, runs: list[tuple[int, int, int]], start: pl.Series | None,
                end: pl.Series, durs: pl.Series,
                name_parts: Callable[[pl.DataFrame], pl.Series], kinds: int, gap_code: int
                ) -> tuple[list[pl.DataFrame], pl.DataFrame]:
    """The segments of ``runs`` in a replay (``start``, ``end``, ``durs``; ``start`` None:
    the measured times, whose gaps are ``keys.gap_ns``) summed per key (key, ns, count of
    those that took time; gaps and calls' own apart) and per run (step, ns). ``name_parts``:
    the name ids of CPU segments (node, edge, ns) shorter than their gap; a gap's key is its
    name id times ``kinds`` plus ``gap_code``."""
    call = keys.call
    frame = pl.DataFrame(runs, schema=RUN_SCHEMA, orient="row")
    last = call.search_sorted(frame["hi"]).cast(pl.Int64)  # a run's calls, by place in ``call``
    first = last - (frame["hi"] - frame["lo"]) + 1
    bounds = array("q", [0]) * (call.len() + 1)  # +1 where a run's calls begin, -1 after them
    for lo, hi in zip(first.to_list(), last.to_list(), strict=True):
        bounds[lo] += 1
        bounds[hi + 1] -= 1
    times = lent(bounds).cum_sum().head(call.len())  # how many runs pass each call
    before = call - 1
    gap_ns = keys.gap_ns if start is None else take(start, call) - take(end, before)
    own_ns = where(keys.marker, 0, take(durs, before))
    gap_key = keys.gap_key
    part = None if start is None else (gap_ns < keys.gap_ns) & (times > 0)
    if part is not None and part.any():  # a gap the replay shortened: named where it lies
        cut = pl.DataFrame({"node": call.filter(part), "edge": keys.edge.filter(part),
                            "ns": gap_ns.filter(part)})
        gap_key = gap_key.clone().scatter(part.arg_true(), name_parts(cut) * kinds + gap_code)
    prefix = pl.concat([pl.Series([0], dtype=pl.Int64), (gap_ns + own_ns).cum_sum()])
    run_ns = take(prefix, last + 1) - take(prefix, first)
    return ([_by_key(gap_key, gap_ns, times), _by_key(keys.own_key, own_ns, times)],
            pl.DataFrame([frame["step"], run_ns.alias("ns")]))


STREAMED_ROWS = 100_000
"""From this many rows ``_by_key`` groups on polars' streaming engine (a lazy query): a third
of the eager group-by's CPU time on the 800,000 calls of the 300k-kernel trace's runs, but
its first query in a process costs ~4 ms to start."""


def _by_key(key: pl.Series, ns: pl.Series, times: pl.Series) -> pl.DataFrame:
    """``ns`` summed per ``key``, each ``times`` over: key, ns, count (of those above 0); in
    no particular order (the sums are summed again by name)."""
    frame = pl.DataFrame({"key": key, "ns": ns, "times": times}).lazy().group_by("key").agg(
        (pl.col("ns") * pl.col("times")).sum(),
        ((pl.col("ns") > 0).cast(pl.Int64) * pl.col("times")).sum().alias("count"))
    return frame.collect() if key.len() >= STREAMED_ROWS else frame.collect(engine="in-memory")
