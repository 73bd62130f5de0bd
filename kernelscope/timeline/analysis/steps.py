"""A trace's steps from its named CPU ranges: the one rule every view that cuts a trace into
steps follows (the critical path, the ranks, operator efficiency per step).

- **Candidates**: the ranges of one thread whose names differ only by their numbers
  (``step 0``, ``ProfilerStep#5``, ``pass 3``; at least two different names) or that are
  named like a step (``step``, ``iter``, ``iteration``, ``train_step``, ``batch``,
  ``microbatch``), with at least two instances that do not overlap. Kineto's
  ``user_annotation``s (``ProfilerStep#N`` among them) are such ranges; its operators are not.
- **The family**: among the candidates, the one covering the most time. A number in the name
  is a step's index when every instance has a distinct one; otherwise steps are numbered in
  time order.
- **Holding the work**: a view that gives each step its GPU work (the ranks' step times,
  MFU per step) takes the family only when together its ranges last at least
  ``step_coverage`` of the GPU's busy time. Shorter ones mark a moment of each iteration (its
  launches), not the iteration that holds its GPU work: a TensorRT trace's 16 layer ranges
  last 0.29 ms of the 6.42 ms its GPU works, and a CUDA graph replayed in each ``step N``
  range runs after the range closes. The critical path takes the family as it is: its steps
  are CPU-side spans, and GPU work that no step waits for is off their paths.
"""

from __future__ import annotations

import re

import polars as pl

from kernelscope.timeline.analysis.nvtx import nvtx_ranges
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.model.intervals import Coverage
from kernelscope.timeline.model.model import TimelineReport

STEP_NAME = re.compile(r"(?i)^(?:.*[^a-z])?(step|iter|iteration|train_step|batch|microbatch)"
                       r"(?:[^a-z].*)?$")
NUMBER = re.compile(r"\d+")
RANGE_SCHEMA = {"start": pl.Int64, "end": pl.Int64, "global_tid": pl.Int64, "name": pl.String}
STEP_SCHEMA = {"step": pl.Int64, "name": pl.String, "global_tid": pl.Int64,
               "start": pl.Int64, "end": pl.Int64}


def no_steps() -> pl.DataFrame:
    """An empty frame of ``STEP_SCHEMA``."""
    return pl.DataFrame(schema=STEP_SCHEMA)


def _candidate(pattern: str, group: pl.DataFrame) -> bool:
    """Whether ``group`` (one thread's ranges whose names share ``pattern``) may be steps."""
    if group.height < 2:
        return False
    numbered = "#" in pattern and group["name"].n_unique() > 1
    return numbered or STEP_NAME.match(pattern) is not None


def range_steps(ranges: pl.DataFrame) -> pl.DataFrame:
    """The step family (``STEP_SCHEMA``) among ``ranges`` (start, end, global_tid, name),
    or an empty frame when no family of ranges may be steps."""
    if not ranges.height:
        return no_steps()
    named = ranges.select("start", "end", "global_tid", "name").with_columns(
        pl.col("name").str.replace_all(r"\d+", "#").alias("pattern"))
    best: tuple[int, pl.DataFrame] | None = None
    for (_tid, pattern), group in named.group_by(["global_tid", "pattern"]):
        if not _candidate(str(pattern), group):
            continue
        group = group.sort("start")
        if (group["start"].slice(1) < group["end"].slice(0, group.height - 1)).any():
            continue
        covered = int((group["end"] - group["start"]).sum())
        if best is None or covered > best[0]:
            best = (covered, group)
    if best is None:
        return no_steps()
    group = best[1]
    numbers = [NUMBER.findall(name) for name in group["name"].to_list()]
    last_numbers = [int(found[-1]) if found else None for found in numbers]
    if None not in last_numbers and len(set(last_numbers)) == len(last_numbers):
        index = pl.Series(last_numbers, dtype=pl.Int64)
    else:
        index = pl.int_range(group.height, eager=True).cast(pl.Int64)
    return group.select(index.alias("step"), "name", "global_tid", "start", "end").cast(
        STEP_SCHEMA)  # type: ignore[arg-type]


def hold_the_work(steps: pl.DataFrame, gpu_busy_ns: int) -> bool:
    """Whether ``steps`` together last at least ``step_coverage`` of the GPU's busy time
    (``gpu_busy_ns``): shorter ones cannot be the iterations that hold its work."""
    covered = Coverage.from_intervals(steps.select("start", "end")).total
    return covered >= TIMELINE_THRESHOLDS.step_coverage * gpu_busy_ns


def trace_steps(ranges: pl.DataFrame, gpu_busy_ns: int) -> pl.DataFrame:
    """The steps among ``ranges`` (as :func:`range_steps`) when they hold the GPU's work
    (:func:`hold_the_work`), else an empty frame."""
    steps = range_steps(ranges)
    return steps if steps.height and hold_the_work(steps, gpu_busy_ns) else no_steps()


def gpu_busy_ns(report: TimelineReport) -> int:
    """How long ``report``'s GPU works (kernels, copies, memsets; the union over its devices
    when it has several)."""
    per_device = report.device_busy
    if len(per_device) == 1:
        return int(next(iter(per_device.values())).total)
    return int(Coverage.from_intervals(report.gpu_ops).total)


def thread_ranges(report: TimelineReport) -> pl.DataFrame:
    """``report``'s NVTX push/pop ranges (Kineto's ``user_annotation``s are those): start,
    end, global_tid, name (without the default domain's ``:``)."""
    return nvtx_ranges(report).filter(pl.col("style") == "PushPop").select(
        "start", "end", "global_tid", pl.col("range").str.strip_prefix(":").alias("name"),
    ).cast(RANGE_SCHEMA)  # type: ignore[arg-type]


def report_steps(report: TimelineReport, *, hold_work: bool) -> pl.DataFrame:
    """``report``'s steps (``STEP_SCHEMA``) among its NVTX push/pop ranges, or an empty frame
    when it has none; with ``hold_work``, also when they do not hold its GPU work."""
    ranges = thread_ranges(report).filter(pl.col("global_tid").is_not_null()
                                          & (pl.col("end") >= pl.col("start")))
    if hold_work:
        return trace_steps(ranges, gpu_busy_ns(report))
    return range_steps(ranges)
