"""The order of a graph's CPU nodes (``graph.py``) found quicker than by sorting every row on
several keys: each gives the very order its sort would (a stable sort's order is one, fixed by
its keys; a sort's by keys no two rows share is too), so the graph stays the same."""

from __future__ import annotations

import polars as pl

from kernelscope.timeline.analysis.critical_path.eager import filled, positions, where


def in_call_order(calls: pl.DataFrame) -> bool:
    """Whether ``calls`` are in strict order of thread, start and end (latest first), no two
    alike: the one order a sort by those keys can give, so the sort can be skipped."""
    tid, start, end = pl.col("global_tid"), pl.col("start"), pl.col("end")
    later = (tid > tid.shift(1)) | ((tid == tid.shift(1)) & (
        (start > start.shift(1)) | ((start == start.shift(1)) & (end < end.shift(1)))))
    return bool(calls.select(later.slice(1).fill_null(False).all()).item())


def merged(calls: pl.DataFrame, markers: pl.DataFrame, after: pl.DataFrame) -> pl.DataFrame:
    """``calls`` (in order of lane and start) and the step ``markers`` (their columns and a
    prio, not kept: 0 for a step's end, 1 for a begin; a call's is 2) in one frame in order
    of lane, start and prio (a marker before a call of its lane and time), as a stable sort
    of the two would put them, then ``after`` as it is (the GPU operations): the calls keep
    their order and each marker goes before the first call of its lane not earlier than it
    (``calls_before``), which is found by a binary search per lane instead of sorting all
    rows (~50 ms on the 300k-kernel trace). Every column is gathered once, from the three
    frames as they are (not copied into one first: 65 MB on the 300k-kernel trace), into one
    chunk, which the graph's many gathers from the nodes read quicker than three."""
    markers = markers.sort("lane", "start", "prio")
    keys = [calls["lane"], calls["start"], markers["lane"], markers["start"]]
    n, m = calls.height, markers.height
    if any(key.null_count() for key in keys):  # nulls sort first: the general sort
        order = pl.concat([calls.select("lane", "start", pl.lit(2, pl.Int8).alias("prio")),
                           markers.select("lane", "start", "prio")]).select(pl.arg_sort_by(
            "lane", "start", "prio", maintain_order=True)).to_series().cast(pl.Int64)
    else:
        before = calls_before(calls, markers)  # non-decreasing: markers are in order
        marker_at = before + pl.int_range(m, eager=True, dtype=pl.Int64)
        is_marker = filled(False, n + m, pl.Boolean).scatter(marker_at, True)
        markers_so_far = is_marker.cast(pl.Int64).cum_sum()  # this position's included
        order = where(is_marker, markers_so_far - 1 + n,
                      pl.int_range(n + m, eager=True, dtype=pl.Int64) - markers_so_far)
    order = pl.concat([order, pl.int_range(n + m, n + m + after.height, eager=True,
                                           dtype=pl.Int64)])
    every = pl.concat([calls, markers.drop("prio"), after])
    return every.select(pl.all().gather(positions(order)))  # each column: no conversion


def calls_before(calls: pl.DataFrame, markers: pl.DataFrame) -> pl.Series:
    """Per marker the number of ``calls`` (sorted by lane and start) before it: those of an
    earlier lane and those of its lane that start earlier."""
    lane, start = calls["lane"], calls["start"]
    before = filled(0, markers.height)
    for (marker_lane,), rows in markers.with_row_index("i").group_by("lane"):
        low = int(lane.search_sorted(marker_lane, side="left"))  # type: ignore[arg-type]
        high = int(lane.search_sorted(marker_lane, side="right"))  # type: ignore[arg-type]
        found = start.slice(low, high - low).search_sorted(rows["start"], side="left")
        before = before.scatter(rows["i"], found.cast(pl.Int64) + low)
    return before

