"""Interval arithmetic (checked against brute force) and the timeline index."""

from __future__ import annotations

import itertools

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelscope.timeline.analysis import gpu_breakdown
from kernelscope.timeline.analysis.timeline import TimelineIndex
from kernelscope.timeline.analysis.utilization import idle_gaps
from kernelscope.timeline.model import intervals as intervals_module
from kernelscope.timeline.model.intervals import Coverage, merge_intervals, overlap_sum_until
from tests.nsys.test_schema_variants import union_busy

intervals = st.lists(
    st.tuples(st.integers(0, 1000), st.integers(0, 200)).map(lambda t: (t[0], t[0] + t[1])),
    max_size=40,
)


def polars_merge(df: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """``merge_intervals`` through polars whatever the size (no merge counted small)."""
    small = intervals_module.SMALL_MERGE
    intervals_module.SMALL_MERGE = 0
    try:
        return merge_intervals(df, by)
    finally:
        intervals_module.SMALL_MERGE = small


def frame(ivs: list[tuple[int, int]]) -> pl.DataFrame:
    return pl.DataFrame({"start": [s for s, _ in ivs], "end": [e for _, e in ivs]},
                        schema={"start": pl.Int64, "end": pl.Int64})


@settings(max_examples=200, deadline=None)
@given(intervals, st.lists(st.integers(-50, 1300), min_size=2, max_size=12))
def test_coverage_matches_brute_force(ivs: list[tuple[int, int]], points: list[int]) -> None:
    cov = Coverage.from_intervals(frame(ivs))
    edges = sorted(points)
    got = cov.busy_per_bin(pl.Series(edges, dtype=pl.Int64)).to_list()
    want = [union_busy(ivs, a, b) for a, b in itertools.pairwise(edges)]
    assert got == want
    assert cov.total == union_busy(ivs, -(10**9), 10**9)


@settings(max_examples=200, deadline=None)
@given(intervals, st.integers(-50, 1300), st.integers(-50, 1300))
def test_one_time_coverage_matches_brute_force(ivs: list[tuple[int, int]], a: int,
                                               b: int) -> None:
    cov = Coverage.from_intervals(frame(ivs))
    t0, t1 = min(a, b), max(a, b)
    assert cov.covered_at(t1) == union_busy(ivs, -(10**9), t1)
    assert cov.covered_at(t1) == cov.covered_until(pl.Series([t1], dtype=pl.Int64))[0]
    assert cov.busy_between(t0, t1) == union_busy(ivs, t0, t1)


@settings(max_examples=200, deadline=None)
@given(intervals, st.lists(st.one_of(st.none(), st.integers(-50, 1300)), max_size=12))
def test_each_time_coverage_matches_brute_force(ivs: list[tuple[int, int]],
                                                times: list[int | None]) -> None:
    """``covered_at_each``, the Python lookup of a few times, 0 for a null time."""
    cov = Coverage.from_intervals(frame(ivs))
    assert cov.covered_at_each(times) == [
        0 if t is None else union_busy(ivs, -(10**9), t) for t in times]


@settings(max_examples=200, deadline=None)
@given(intervals, st.lists(st.integers(-50, 1300), min_size=1, max_size=12))
def test_overlap_sum_counts_concurrent_work_twice(ivs, points) -> None:
    got = overlap_sum_until(frame(ivs), pl.Series(points, dtype=pl.Int64)).to_list()
    want = [sum(max(0, min(e, t) - s) for s, e in ivs) for t in points]
    assert got == want


@settings(max_examples=100, deadline=None)
@given(intervals)
def test_merge_gives_disjoint_sorted_union(ivs) -> None:
    merged = list(merge_intervals(frame(ivs)).iter_rows())
    assert all(a[1] < b[0] for a, b in itertools.pairwise(merged))
    assert sum(e - s for s, e in merged) == union_busy(ivs, -(10**9), 10**9)


keyed = st.lists(st.tuples(st.sampled_from([None, 0, 1, 7]), st.sampled_from([None, "a", "é"]),
                           st.integers(0, 1000), st.integers(-20, 200)), max_size=60)


@settings(max_examples=150, deadline=None)
@given(keyed, st.sampled_from([[], ["k"], ["k", "s"], ["s"]]))
def test_small_merges_in_python_equal_polars_merges(rows, by) -> None:
    df = pl.DataFrame([(k, s, a, a + d) for k, s, a, d in rows], orient="row",
                      schema={"k": pl.Int32, "s": pl.String, "start": pl.Int64, "end": pl.Int64})
    in_python, in_polars = merge_intervals(df, by), polars_merge(df, by)
    assert in_python.equals(in_polars) and in_python.schema == in_polars.schema


def test_a_traces_kernels_merge_alike_either_way(zoo) -> None:
    by = ["device_id", "stream_id"]
    kernels = zoo.kernels.sort("start").head(intervals_module.SMALL_MERGE)
    assert kernels.height > 50
    assert merge_intervals(kernels, by).equals(polars_merge(kernels, by))


def test_render_full_span_matches_utilisation(zoo) -> None:
    index = TimelineIndex(zoo)
    view = index.render(zoo.start_ns, zoo.end_ns, 200)
    assert len(view.edges) == 201 and set(view.busy) == {ln.key for ln in index.lanes}
    busy_ns = sum(f * (b - a) for f, a, b in zip(view.busy["gpu0"], view.edges,
                                                 view.edges[1:], strict=False))
    assert abs(busy_ns - index.lane("gpu0").coverage.total) < 1e-3 * busy_ns
    assert all(0.0 <= f <= 1.0 for fr in view.busy.values() for f in fr)


def test_zoomed_render_and_column_lookup(zoo) -> None:
    index = TimelineIndex(zoo)
    t0, t1 = 816_801_028, 816_895_619  # the 50 tiny kernels
    view = index.render(t0, t1, 50)
    assert 0.3 < sum(view.busy["gpu0"]) / 50 < 0.6
    assert view.column_of(t0) == 0 and view.column_of(t1 - 1) == 49
    assert view.column_of(t1) is None
    spark = index.sparkline(t0, t1, 50)
    assert spark == view.busy["gpu0"]


def test_gap_navigation(zoo) -> None:
    index = TimelineIndex(zoo, large_gap_ns=100_000)
    gaps = idle_gaps(zoo, 100_000)
    starts = gaps["start_ns"].to_list()
    assert [g.start_ns for g in index.large_gaps()] == starts
    g = index.next_gap(zoo.start_ns)
    assert g is not None and g.start_ns == starts[0]
    nxt = index.next_gap(g.start_ns)
    assert nxt is not None and nxt.start_ns == starts[1]
    assert index.previous_gap(nxt.start_ns).start_ns == starts[0]
    assert index.previous_gap(starts[0]) is None
    assert index.next_gap(starts[-1]) is None


def test_ops_between(zoo) -> None:
    index = TimelineIndex(zoo)
    ops = index.ops_between(793_700_000, 794_000_000)
    assert ops["name"].to_list()[0].startswith("saxpy_f4")
    # An op that started before the window but is still running is included.
    mid = index.ops_between(700_000_000, 700_000_001)
    assert mid.height == 1 and mid["kind"][0] == "memcpy"


hta_intervals = st.lists(st.tuples(st.integers(0, 300), st.integers(-3, 40)), min_size=1,
                         max_size=80)


@settings(max_examples=150, deadline=None)
@given(hta_intervals)
def test_small_hta_merges_in_python_equal_polars_merges(rows) -> None:
    df = pl.DataFrame({"hts": [s for s, _ in rows], "hend": [s + d for s, d in rows]},
                      schema={"hts": pl.Int64, "hend": pl.Int64})
    in_python = gpu_breakdown._merged_rows(df)
    # (an interval rounded to end before it starts leaves the merge to polars)
    assert (in_python is None) == any(d < 0 for _, d in rows)
    small = gpu_breakdown.SMALL_MERGE
    gpu_breakdown.SMALL_MERGE = 0
    try:
        in_polars = gpu_breakdown.merged(df)
    finally:
        gpu_breakdown.SMALL_MERGE = small
    assert in_python is None or (in_python.equals(in_polars)
                                 and gpu_breakdown.merged(df).equals(in_polars))
