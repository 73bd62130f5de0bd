"""What one rank's reduction measures from its frames: its rank number (from the environment or
NVTX), its time extent, overlaps, busy curve, main threads and process, and the time its
threads spent in NVTX ranges before its collectives.

A rank's lookups are few (hundreds of times, ranges, windows): those done often are loops
in Python, as each frame operation costs a fixed ~0.1 ms, more than such a loop."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from itertools import pairwise
from typing import Any

import polars as pl

from kernelscope.kinds.ranks.analysis.read import RANK_VARIABLES
from kernelscope.timeline.model.intervals import Coverage
from kernelscope.timeline.model.model import pid_of

I64 = pl.Int64
LEAD_SCHEMA = {"op": pl.String, "seq": I64, "what": pl.String, "name": pl.String, "ns": I64}
"""A rank's lead-ins to its collectives (``RankSummary.lead_in``)."""
NVTX_RANK = re.compile(r"(?i)\brank\s*[#:=]?\s*(\d+)\b")


def env_rank_of(env: dict[str, str]) -> tuple[int | None, str | None]:
    """The rank a launcher's variable gives the process (``RANK``, ``OMPI_COMM_WORLD_RANK``…),
    and that variable's name."""
    for var in RANK_VARIABLES:
        value = env.get(var, "").strip()
        if value.isdigit():
            return int(value), var
    return None, None


def nvtx_rank_of(nvtx: pl.DataFrame) -> int | None:
    """The one rank number NVTX range names give (``rank 3``), else None."""
    found = {int(m) for name in nvtx["name"].drop_nulls().unique().to_list()
             for m in NVTX_RANK.findall(name)}
    return found.pop() if len(found) == 1 else None


def extent(frames: list[pl.DataFrame]) -> tuple[int, int]:
    """The first start and the last end over ``frames`` ((0, 0) when all are empty)."""
    lo: list[int] = []
    hi: list[int] = []
    for f in frames:
        if f.height:
            lo.append(int(f["start"].min()))  # type: ignore[arg-type]
            hi.append(int(f.select(pl.max_horizontal("start", "end").max()).item()))
    return (min(lo), max(hi)) if lo else (0, 0)


def covered_in(cover: Coverage, starts: pl.Series, ends: pl.Series) -> pl.Series:
    """The time ``cover`` covers inside each [start, end)."""
    both = cover.covered_at_each(pl.concat([ends.cast(I64), starts.cast(I64)]).to_list())
    n = ends.len()
    return pl.Series([a - b for a, b in zip(both[:n], both[n:], strict=True)], dtype=I64)


def overlap(outer: Coverage, intervals: Coverage) -> int:
    """Time covered by both (``intervals`` merged, so nothing counts twice)."""
    if not intervals.count:
        return 0
    return int(covered_in(outer, intervals.starts, intervals.ends).sum())


def busy_curve(busy: Coverage, points: int
                ) -> tuple[int | None, int | None, list[int], list[int]]:
    """The GPU's first and last busy instant, and its cumulative busy time at ``points`` + 1
    evenly spaced edges between them (empty without GPU work)."""
    if not busy.count:
        return None, None, [], []
    gpu_start, gpu_end = int(busy.starts[0]), int(busy.ends[-1])
    n = max(points, 1)
    edges = [gpu_start + (gpu_end - gpu_start) * i // n for i in range(n + 1)]
    return gpu_start, gpu_end, edges, busy.covered_until(pl.Series(edges, dtype=I64)).to_list()


def main_tids(calls: pl.DataFrame, ranges: pl.DataFrame) -> list[int]:
    """The threads that issued the collectives, else the thread with the most NVTX ranges."""
    tids = calls["global_tid"].drop_nulls().unique().to_list()
    if not tids and ranges.height:
        tids = [ranges.group_by("global_tid").len().sort("len", descending=True)
                ["global_tid"][0]]
    return [int(t) for t in tids]


def process_of(kernels: pl.DataFrame) -> int | None:
    """The process that launched most of the kernels (None without kernels)."""
    if not kernels.height:
        return None
    return int(kernels.select(pid_of(pl.col("global_pid")))["global_pid"]
               .drop_nulls().mode().sort()[0])


def time_in_thread_ranges(cpu: pl.DataFrame, ranges: pl.DataFrame) -> pl.DataFrame:
    """:func:`_time_in_ranges` of each thread's windows (``cpu``: op, seq, global_tid, w0, w1)
    and that thread's NVTX ranges (every range for a window without a thread), every
    thread in one pass in Python: a rank's few hundred ranges cost less that way than the
    ten frame operations a thread takes in :func:`_time_in_ranges` (ranges without a start
    or end, and windows that overlap, are left to it)."""
    windows = cpu.rows()
    spans = ranges.select("start", "end", "global_tid", "range").rows()
    by_thread: dict[Any, list[tuple[Any, ...]]] = {}
    for window in sorted(windows, key=lambda w: w[3]):
        by_thread.setdefault(window[2], []).append(window)
    if any(None in r[:2] for r in spans) or not all(
            a[3] < b[3] and a[4] <= b[4] for mine in by_thread.values()
            for a, b in pairwise(mine)):
        return _time_in_ranges_per_thread(cpu, ranges)
    sums: dict[tuple[Any, Any, Any], int] = {}
    for tid, mine in by_thread.items():
        w0, w1 = [w[3] for w in mine], [w[4] for w in mine]
        for start, end, thread, name in spans:
            if tid is not None and thread != tid:
                continue
            i = bisect_left(w0, end) - 1
            if i < 0 or i != bisect_right(w1, start) or (start <= w0[i] and end >= w1[i]):
                continue
            key = (mine[i][0], mine[i][1], name)
            sums[key] = sums.get(key, 0) + min(end, w1[i]) - max(start, w0[i])
    return pl.DataFrame(
        [(op, seq, "nvtx", name.removeprefix(":") if isinstance(name, str) else name, ns)
         for (op, seq, name), ns in sums.items()],
        schema=LEAD_SCHEMA, orient="row")


def _time_in_ranges_per_thread(cpu: pl.DataFrame, ranges: pl.DataFrame) -> pl.DataFrame:
    """:func:`time_in_thread_ranges` one thread at a time, in frames."""
    parts = [pl.DataFrame(schema=LEAD_SCHEMA)]
    for (tid,), windows in cpu.group_by(["global_tid"]):
        mine = ranges.filter(pl.col("global_tid") == tid) if tid is not None else ranges
        parts.append(_time_in_ranges(windows.sort("w0"), mine))
    return pl.concat(parts, how="vertical_relaxed")


def _time_in_ranges(windows: pl.DataFrame, ranges: pl.DataFrame) -> pl.DataFrame:
    """Per window (op, seq, w0, w1; disjoint, sorted) the time inside each NVTX range name,
    for ranges that lie in one window without enclosing it."""
    if not ranges.height or not windows.height:
        return pl.DataFrame(schema={"op": pl.String, "seq": I64, "what": pl.String,
                                    "name": pl.String, "ns": I64})
    w0, w1 = windows["w0"], windows["w1"]
    last = w0.search_sorted(ranges["end"], side="left").cast(I64) - 1
    first = w1.search_sorted(ranges["start"], side="right").cast(I64)
    hit = ranges.with_columns(last.alias("i"), first.alias("j")).filter(
        (pl.col("i") >= 0) & (pl.col("i") == pl.col("j")))
    if not hit.height:
        return _time_in_ranges(windows.clear(), ranges)
    idx = hit["i"]
    hit = hit.with_columns(w0.gather(idx).alias("w0"), w1.gather(idx).alias("w1"),
                           windows["op"].gather(idx).alias("op"),
                           windows["seq"].gather(idx).alias("seq"))
    hit = hit.filter(~((pl.col("start") <= pl.col("w0")) & (pl.col("end") >= pl.col("w1"))))
    return hit.group_by("op", "seq", "range", maintain_order=True).agg(
        (pl.min_horizontal("end", "w1") - pl.max_horizontal("start", "w0")).sum().alias("ns")
    ).select("op", "seq", pl.lit("nvtx").alias("what"),
             pl.col("range").str.strip_prefix(":").alias("name"), "ns")


__all__ = ["busy_curve", "env_rank_of", "extent", "main_tids", "nvtx_rank_of", "overlap",
           "process_of", "time_in_thread_ranges"]
