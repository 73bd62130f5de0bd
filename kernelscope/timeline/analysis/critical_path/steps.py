"""The steps a critical path is cut into: CPU-side ranges (``ProfilerStep#N``, NVTX
``step N``) of one thread, or the whole trace as one step.

A family of ranges is the ranges of one thread whose names differ only by their numbers
(``ProfilerStep#4``, ``ProfilerStep#5``) and name a step (``step``, ``iter``,
``iteration``, ``batch``); it needs two instances that do not overlap. Among several
families the one covering the most time wins.
"""

from __future__ import annotations

import re

import polars as pl

from kernelscope.timeline.analysis.nvtx import nvtx_ranges
from kernelscope.timeline.model.model import TimelineReport

STEP_WORD = re.compile(r"(?i)(step|iter|iteration|batch)")
STEP_SCHEMA = {"step": pl.Int64, "name": pl.String, "global_tid": pl.Int64,
               "start": pl.Int64, "end": pl.Int64}
RANGE_SCHEMA = {"start": pl.Int64, "end": pl.Int64, "global_tid": pl.Int64, "name": pl.String}


def cpu_ranges(report: TimelineReport, extra: pl.DataFrame | None = None) -> pl.DataFrame:
    """The named CPU ranges of every thread: NVTX push/pop ranges (Kineto's
    ``user_annotation``s are those) and ``extra`` (Kineto's ``cpu_op``s): start, end,
    global_tid, name; sorted by thread and start."""
    nvtx = nvtx_ranges(report).filter(pl.col("style") == "PushPop").select(
        "start", "end", "global_tid", pl.col("range").str.strip_prefix(":").alias("name"))
    parts = [nvtx.cast(RANGE_SCHEMA)]  # type: ignore[arg-type]
    if extra is not None and extra.height:
        parts.append(extra.select(list(RANGE_SCHEMA)).cast(RANGE_SCHEMA))  # type: ignore[arg-type]
    return (pl.concat(parts).filter(pl.col("global_tid").is_not_null()
                                    & (pl.col("end") >= pl.col("start")))
            .sort("global_tid", "start", pl.col("end"), descending=[False, False, True]))


def find_steps(ranges: pl.DataFrame) -> pl.DataFrame:
    """The steps (``STEP_SCHEMA``) among ``ranges`` (as from :func:`cpu_ranges`), or an
    empty frame when no family of ranges names steps."""
    numbered = ranges.filter(pl.col("name").str.contains(r"\d")).with_columns(
        pl.col("name").str.replace_all(r"\d+", "#").alias("pattern"))
    best: tuple[int, pl.DataFrame] | None = None
    for (_tid, pattern), group in numbered.group_by(["global_tid", "pattern"]):
        if group.height < 2 or not STEP_WORD.search(str(pattern)):
            continue
        group = group.sort("start")
        if (group["start"].slice(1) < group["end"].slice(0, group.height - 1)).any():
            continue
        covered = int((group["end"] - group["start"]).sum())
        if best is None or covered > best[0]:
            best = (covered, group)
    if best is None:
        return pl.DataFrame(schema=STEP_SCHEMA)
    group = best[1]
    index = group["name"].str.extract_all(r"\d+").list.last().cast(pl.Int64)
    if index.n_unique() != group.height or index.null_count():
        index = pl.int_range(group.height, eager=True).cast(pl.Int64)
    return group.select(index.alias("step"), "name", "global_tid", "start", "end").cast(
        STEP_SCHEMA)  # type: ignore[arg-type]
