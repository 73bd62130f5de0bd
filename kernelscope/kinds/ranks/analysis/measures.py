"""What one rank's reduction measures from its frames: its rank number (from the environment or
NVTX), its time extent, overlaps, busy curve, main threads and process."""

from __future__ import annotations

import re

import polars as pl

from kernelscope.kinds.ranks.analysis.read import RANK_VARIABLES
from kernelscope.timeline.model.intervals import Coverage
from kernelscope.timeline.model.model import pid_of

I64 = pl.Int64
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
    """The time ``cover`` covers inside each [start, end): both ends looked up at once (a
    lookup is ten frame operations whatever its length)."""
    both = cover.covered_until(pl.concat([ends.cast(I64), starts.cast(I64)]))
    inside: pl.Series = both.slice(0, ends.len()) - both.slice(ends.len())
    return inside


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


__all__ = ["busy_curve", "env_rank_of", "extent", "main_tids", "nvtx_rank_of", "overlap",
           "process_of"]
