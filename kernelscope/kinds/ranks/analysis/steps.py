"""A rank's training steps: from NVTX ranges, else from the repeating kernel pattern.

- **NVTX**: the ranges whose names differ only by a number (``step 0``, ``step 1``…,
  ``iteration_12``) or that are named like a step (``step``, ``iter``, ``iteration``,
  ``train_step``, ``batch``), with at least two instances that do not overlap; among several
  candidates the one covering the most time wins. A number in the name is the step's index
  when every instance has a distinct one; otherwise steps are numbered in time order. They
  are the rank's steps only when together they last at least half of its GPU busy time:
  shorter ones mark a moment of each iteration (its launches), not the iteration that holds
  its GPU work (a TensorRT trace's 16 layer ranges last 0.29 ms of the 6.42 ms its GPU
  works).
- **Kernel pattern**: without such ranges, the rarest kernel name that repeats (at least three
  times) is taken as the step's anchor, tried from the rarest up; it is accepted when the
  kernel sequence repeats with the anchor's median spacing ``p`` (the kernel ``p`` launches
  later has the same name for at least 80 % of the launches). Each step runs from one anchor
  launch to the next (the last one to the end of the last kernel of its period).
"""

from __future__ import annotations

import re

import polars as pl

from kernelscope.kinds.ranks.analysis.thresholds import RANKS_THRESHOLDS
from kernelscope.timeline.model.intervals import Coverage

STEP_NAME = re.compile(r"(?i)^(?:.*[^a-z])?(step|iter|iteration|train_step|batch|microbatch)"
                       r"(?:[^a-z].*)?$")
NUMBER = re.compile(r"\d+")
STEP_SCHEMA = {"step": pl.Int64, "name": pl.String, "start": pl.Int64, "end": pl.Int64}
MAX_ANCHORS = 6


def _empty() -> pl.DataFrame:
    return pl.DataFrame(schema=STEP_SCHEMA)


def nvtx_steps(ranges: pl.DataFrame) -> pl.DataFrame:
    """Steps from NVTX ranges (``ranges`` as from ``nvtx_ranges``), or an empty frame."""
    if not ranges.height:
        return _empty()
    named = ranges.select(
        "start", "end", "global_tid", pl.col("range").str.strip_prefix(":").alias("name"),
    ).with_columns(pl.col("name").str.replace_all(r"\d+", "#").alias("pattern"))
    best: tuple[int, pl.DataFrame] | None = None
    for (_tid, pattern), group in named.group_by(["global_tid", "pattern"]):
        if group.height < 2:
            continue
        numbered = "#" in str(pattern) and group["name"].n_unique() > 1
        if not numbered and not STEP_NAME.match(str(pattern)):
            continue
        group = group.sort("start")
        overlapping = (group["start"].slice(1) < group["end"].slice(0, group.height - 1)).any()
        if overlapping:
            continue
        covered = int((group["end"] - group["start"]).sum())
        if best is None or covered > best[0]:
            best = (covered, group)
    if best is None:
        return _empty()
    group = best[1]
    numbers = [NUMBER.findall(n) for n in group["name"].to_list()]
    last_numbers = [int(n[-1]) if n else None for n in numbers]
    if None not in last_numbers and len(set(last_numbers)) == len(last_numbers):
        index = pl.Series(last_numbers, dtype=pl.Int64)
    else:
        index = pl.int_range(group.height, eager=True).cast(pl.Int64)
    return group.select(index.alias("step"), "name", "start", "end").cast(STEP_SCHEMA)  # type: ignore[arg-type]


def kernel_pattern_steps(kernels: pl.DataFrame) -> tuple[pl.DataFrame, str | None]:
    """Steps from the repeating kernel sequence (``kernels``: start, end, name_id, sorted by
    start), and the anchor kernel's name id; an empty frame when nothing repeats."""
    n = kernels.height
    if n < 2 * RANKS_THRESHOLDS.min_repeats:
        return _empty(), None
    ids = kernels["name_id"]
    counts = (ids.value_counts().filter(pl.col("count") >= RANKS_THRESHOLDS.min_repeats)
              .sort(["count", "name_id"]).head(MAX_ANCHORS))
    for anchor, count in counts.iter_rows():
        where = (ids == anchor).arg_true()
        period = int(where.diff().drop_nulls().median() or 0)  # type: ignore[arg-type]
        if period < 1 or period * 2 > n:
            continue
        lo, hi = int(where[0]), int(where[-1])
        span = ids.slice(lo, hi - lo + 1)
        if span.len() <= period:
            continue
        same = (span.slice(0, span.len() - period) == span.slice(period)).mean()
        if same is None or float(same) < RANKS_THRESHOLDS.match_share:  # type: ignore[arg-type]
            continue
        starts = kernels["start"].gather(where)
        last_end = int(kernels["end"].slice(hi, min(period, n - hi)).max())  # type: ignore[arg-type]
        ends = pl.concat([starts.slice(1), pl.Series([last_end], dtype=pl.Int64)])
        steps = pl.DataFrame({
            "step": pl.int_range(count, eager=True).cast(pl.Int64),
            "name": pl.Series([None] * count, dtype=pl.String),
            "start": starts, "end": ends,
        })
        return steps.cast(STEP_SCHEMA), str(anchor)  # type: ignore[arg-type]
    return _empty(), None


def hold_the_work(steps: pl.DataFrame, gpu_busy_ns: int) -> bool:
    """Whether the steps together last at least ``step_coverage`` of the rank's GPU busy
    time: shorter ones cannot be the iterations that hold its GPU work."""
    covered = Coverage.from_intervals(steps.select("start", "end")).total
    return covered >= RANKS_THRESHOLDS.step_coverage * gpu_busy_ns


def rank_steps(ranges: pl.DataFrame, kernels: pl.DataFrame, names: dict[int, str],
               given: pl.DataFrame | None, gpu_busy_ns: int
               ) -> tuple[pl.DataFrame, str | None, str | None]:
    """The rank's steps (``given``, the trace's own; else NVTX ranges lasting at least half
    its GPU busy time; else a repeating kernel pattern), where they came from (``profiler
    steps``, ``nvtx``, ``kernel pattern`` or None), and the pattern's anchor kernel."""
    if given is not None and given.height:
        return given.cast(STEP_SCHEMA), "profiler steps", None  # type: ignore[arg-type]
    steps = nvtx_steps(ranges)
    if steps.height and hold_the_work(steps, gpu_busy_ns):
        return steps, "nvtx", None
    steps, anchor_id = kernel_pattern_steps(kernels)
    if not steps.height:
        return steps, None, None
    return steps, "kernel pattern", names.get(int(anchor_id)) if anchor_id is not None else None
