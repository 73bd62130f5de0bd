"""A rank's training steps: the trace's own (``ProfilerStep#N``), else from its named ranges,
else from the repeating kernel pattern.

- **Named ranges**: the rule every view follows (``timeline.analysis.steps``): a family of
  one thread's ranges named like steps or differing only by their numbers, lasting together
  at least half of the rank's GPU busy time.
- **Kernel pattern**: without such ranges, the rarest kernel name that repeats (at least three
  times) is taken as the step's anchor, tried from the rarest up; it is accepted when the
  kernel sequence repeats with the anchor's median spacing ``p`` (the kernel ``p`` launches
  later has the same name for at least 80 % of the launches). Each step runs from one anchor
  launch to the next (the last one to the end of the last kernel of its period).
"""

from __future__ import annotations

import polars as pl

from kernelscope.kinds.ranks.analysis.thresholds import RANKS_THRESHOLDS
from kernelscope.timeline.analysis.steps import trace_steps

STEP_SCHEMA = {"step": pl.Int64, "name": pl.String, "start": pl.Int64, "end": pl.Int64}
MAX_ANCHORS = 6


def _empty() -> pl.DataFrame:
    return pl.DataFrame(schema=STEP_SCHEMA)


def nvtx_steps(ranges: pl.DataFrame, gpu_busy_ns: int) -> pl.DataFrame:
    """Steps from NVTX ranges (``ranges`` as from ``nvtx_ranges``) that hold the rank's work
    (``gpu_busy_ns``: its GPU busy time), or an empty frame."""
    named = ranges.select("start", "end", "global_tid",
                          pl.col("range").str.strip_prefix(":").alias("name"))
    return trace_steps(named, gpu_busy_ns).select(list(STEP_SCHEMA))


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


def rank_steps(ranges: pl.DataFrame, kernels: pl.DataFrame, names: dict[int, str],
               given: pl.DataFrame | None, gpu_busy_ns: int
               ) -> tuple[pl.DataFrame, str | None, str | None]:
    """The rank's steps (``given``, the trace's own; else NVTX ranges lasting at least half
    its GPU busy time; else a repeating kernel pattern), where they came from (``profiler
    steps``, ``nvtx``, ``kernel pattern`` or None), and the pattern's anchor kernel."""
    if given is not None and given.height:
        return given.cast(STEP_SCHEMA), "profiler steps", None  # type: ignore[arg-type]
    steps = nvtx_steps(ranges, gpu_busy_ns)
    if steps.height:
        return steps, "nvtx", None
    steps, anchor_id = kernel_pattern_steps(kernels)
    if not steps.height:
        return steps, None, None
    return steps, "kernel pattern", names.get(int(anchor_id)) if anchor_id is not None else None
