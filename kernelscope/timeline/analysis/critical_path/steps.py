"""The CPU ranges a critical path's nodes are named by. Its steps are the trace's
(``timeline.analysis.steps``, the rule every view follows), or the whole trace as one step.
"""

from __future__ import annotations

import polars as pl

from kernelscope.timeline.analysis.steps import RANGE_SCHEMA, thread_ranges
from kernelscope.timeline.model.model import TimelineReport


def cpu_ranges(report: TimelineReport, extra: pl.DataFrame | None = None) -> pl.DataFrame:
    """The named CPU ranges of every thread: NVTX push/pop ranges (Kineto's
    ``user_annotation``s are those) and ``extra`` (Kineto's ``cpu_op``s): start, end,
    global_tid, name; sorted by thread and start."""
    parts = [thread_ranges(report)]
    if extra is not None and extra.height:
        parts.append(extra.select(list(RANGE_SCHEMA)).cast(RANGE_SCHEMA))  # type: ignore[arg-type]
    return (pl.concat(parts).filter(pl.col("global_tid").is_not_null()
                                    & (pl.col("end") >= pl.col("start")))
            .sort("global_tid", "start", pl.col("end"), descending=[False, False, True]))
