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
from dataclasses import dataclass, field

import polars as pl

from kernelscope.timeline.analysis.critical_path.eager import positions, take, where
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
    at: tuple[pl.Series, pl.Series]
    """``call`` and the call before each as ``positions``."""
    once: dict[str, Once] = field(default_factory=dict)
    """The gaps and the calls' own time as the first replay summed has them (``_summed``)."""


@dataclass(eq=False)
class Once:
    """One part of the calls' segments (their keys, ns and how many runs pass each) as the
    first replay summed has them, with its sums: what another replay's sums of the same
    part differ from only where a call has another key, ns or count (``_summed``)."""

    key: pl.Series
    ns: pl.Series
    times: pl.Series
    sums: pl.DataFrame


def run_keys(member: pl.Series, member_pos: pl.Series, s_edge: pl.Series,
             gaps: Callable[[pl.Series, pl.Series], tuple[pl.Series, pl.Series]],
             name_id: pl.Series, own_code: pl.Series, is_marker: pl.Series, kinds: int,
             gap_code: int) -> RunKeys:
    """``RunKeys`` from the chains (``member``, ``member_pos``), the start edges' rows
    (``s_edge``), ``gaps(src, dst)``: per thread edge its measured gap and range name id
    (``names.thread_gaps``), per node its name id, its own time's code and whether it is a
    marker; a key is a name id times ``kinds`` plus a code (``gap_code`` for a gap)."""
    call_at = member.arg_true()  # ``positions``
    before = call_at - 1  # a member follows the node before it: never the first node
    edge = take(s_edge, positions(take(member_pos, call_at)))
    gap_ns, gap_name = gaps(before, call_at)  # a call's one edge: from the call before it
    return RunKeys(call_at.cast(pl.Int64), edge, gap_name * kinds + gap_code, gap_ns,
                   take(name_id, before) * kinds + take(own_code, before),
                   take(is_marker, before), (call_at, before))


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
    call_at, before_at = keys.at
    gap_ns = keys.gap_ns if start is None else take(start, call_at) - take(end, before_at)
    own_ns = where(keys.marker, 0, take(durs, before_at))
    gap_key = keys.gap_key
    part = None if start is None else (gap_ns < keys.gap_ns) & (times > 0)
    if part is not None and part.any():  # a gap the replay shortened: named where it lies
        cut = pl.DataFrame({"node": call.filter(part), "edge": keys.edge.filter(part),
                            "ns": gap_ns.filter(part)})
        gap_key = gap_key.clone().scatter(part.arg_true(), name_parts(cut) * kinds + gap_code)
    prefix = pl.concat([pl.Series([0], dtype=pl.Int64), (gap_ns + own_ns).cum_sum()])
    run_ns = take(prefix, last + 1) - take(prefix, first)
    return ([*_summed(keys, "gap", gap_key, gap_ns, times),
             *_summed(keys, "own", keys.own_key, own_ns, times)],
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


FEW_MOVED = 4
"""``_summed`` corrects the first replay's sums where at most one call in this many
differs, else sums again."""


def _summed(keys: RunKeys, part: str, key: pl.Series, ns: pl.Series, times: pl.Series
            ) -> list[pl.DataFrame]:
    """``_by_key(key, ns, times)`` as frames that add up to it: the first replay's sums of
    ``part`` (``RunKeys.once``, made here), and the calls that differ from it, theirs
    added and the first's taken off. The paths of a what-if's two replays pass most calls
    alike, with the same keys and ns (a what-if of GPU work leaves the CPU calls as they
    were): a few thousand rows summed, not 800,000."""
    first = keys.once.get(part)
    if first is None:
        first = keys.once[part] = Once(key, ns, times, _by_key(key, ns, times))
        return [first.sums]
    moved = times != first.times
    if ns is not first.ns:
        moved = moved | (ns != first.ns)
    if key is not first.key:
        moved = moved | (key != first.key)
    count = int(moved.sum())
    if count > key.len() // FEW_MOVED:
        return [_by_key(key, ns, times)]
    if not count:
        return [first.sums]
    return [first.sums, _by_key(key.filter(moved), ns.filter(moved), times.filter(moved)),
            _by_key(first.key.filter(moved), first.ns.filter(moved),
                    -first.times.filter(moved))]
