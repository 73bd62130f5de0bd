"""The ``nsys stats`` summary reports, computed with polars from an :class:`TimelineReport`.

Each function returns a frame with exactly the columns (names and order) of the matching
``nsys stats --report NAME`` CSV, sorted like it: by total time, largest first (ties by
name). Values are full precision; nsys prints them rounded to one decimal (three for MB).

Definitions (NVIDIA's ``reports/*.py`` in Nsight Systems 2025.3):

- Total = sum of durations (``end - start``); Avg = mean; Med = median (mean of the two
  middle values for an even count); Min/Max; StdDev = sample standard deviation
  (n - 1 divisor), 0 for a single instance.
- Time (%) = 100 x total / sum of all totals of the report.
"""

from __future__ import annotations

import polars as pl

from kernelscope.timeline.model.api_names import strip_api_version
from kernelscope.timeline.model.model import TimelineReport

OSRT_CALL_CLASS = 27  # ENUM_NSYS_EVENT_CLASS: OS runtime call (31/32 mark trace start/finish)
DURATION_STATS = ["Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)"]


def _duration_summary(
    df: pl.DataFrame, key: str, count_label: str, extra: list[str] | None = None
) -> pl.DataFrame:
    """Group ``df`` (columns start, end, ``key`` and ``extra``) into nsys-style statistics.

    Grouped on ``key`` as it is and made text once per group: a categorical key (the kernels'
    names) groups on its categories, one per distinct text, and the 40,000 names of a trace
    are not copied as text first (its kernel summary: 7 M instructions instead of 18 M)."""
    extra = extra or []
    dur = (pl.col("end") - pl.col("start")).alias("dur")
    grouped = (
        df.lazy()
        .filter(pl.col("end").is_not_null() & pl.col(key).is_not_null())
        .select(key, *extra, dur)
        .group_by([key, *extra])
        .agg(
            pl.col("dur").sum().alias("Total Time (ns)"),
            pl.len().cast(pl.Int64).alias(count_label),
            pl.col("dur").mean().alias("Avg (ns)"),
            pl.col("dur").median().cast(pl.Float64).alias("Med (ns)"),
            pl.col("dur").min().alias("Min (ns)"),
            pl.col("dur").max().alias("Max (ns)"),
            pl.col("dur").std(ddof=1).fill_null(0.0).alias("StdDev (ns)"),
        )
        .with_columns(pl.col(key).cast(pl.String))
        .sort(["Total Time (ns)", key], descending=[True, False])
        .collect(engine="in-memory")
    )
    # Eagerly, from exact integer totals, so the last digit never depends on the query plan.
    total = int(grouped["Total Time (ns)"].sum() or 0)
    share = [100.0 * t / total if total else 0.0 for t in grouped["Total Time (ns)"].to_list()]
    return grouped.with_columns(pl.Series("Time (%)", share, dtype=pl.Float64))


def kernel_summary(report: TimelineReport) -> pl.DataFrame:
    """``cuda_gpu_kern_sum``: one row per kernel (demangled) name, by total time (largest
    first), then instances, then name.

    Columns: Time (%), Total Time (ns), Instances, Avg (ns), Med (ns), Min (ns), Max (ns),
    StdDev (ns), Name.
    """
    out = _duration_summary(report.kernels, "name", "Instances").sort(
        ["Total Time (ns)", "Instances", "name"], descending=[True, False, False]
    )
    return out.select(
        "Time (%)", "Total Time (ns)", "Instances", *DURATION_STATS, pl.col("name").alias("Name")
    )


def cuda_api_summary(report: TimelineReport) -> pl.DataFrame:
    """``cuda_api_sum``: one row per CUDA runtime/driver API (version suffix removed).

    Columns: Time (%), Total Time (ns), Num Calls, Avg (ns), Med (ns), Min (ns), Max (ns),
    StdDev (ns), Name.
    """
    # nsys groups by the recorded name and only then strips the version suffix.
    out = _duration_summary(report.cuda_api, "name", "Num Calls")
    return out.select(
        "Time (%)", "Total Time (ns)", "Num Calls", *DURATION_STATS,
        strip_api_version(pl.col("name")).alias("Name"),
    )


def osrt_summary(report: TimelineReport) -> pl.DataFrame:
    """``osrt_sum``: one row per OS runtime function (calls of event class 27 only).

    Columns: Time (%), Total Time (ns), Num Calls, Avg (ns), Med (ns), Min (ns), Max (ns),
    StdDev (ns), Name.
    """
    calls = report.osrt.filter(pl.col("event_class").fill_null(OSRT_CALL_CLASS) == OSRT_CALL_CLASS)
    out = _duration_summary(calls, "name", "Num Calls")
    return out.select(
        "Time (%)", "Total Time (ns)", "Num Calls", *DURATION_STATS, pl.col("name").alias("Name")
    )


def _memops(report: TimelineReport) -> pl.DataFrame:
    cols = ["start", "end", "bytes", "operation"]
    return pl.concat(
        [report.memcpy.select(cols), report.memset.select(cols)], how="vertical_relaxed"
    )


def memop_time_summary(report: TimelineReport) -> pl.DataFrame:
    """``cuda_gpu_mem_time_sum``: memcpy/memset GPU time per operation kind.

    Columns: Time (%), Total Time (ns), Count, Avg (ns), Med (ns), Min (ns), Max (ns),
    StdDev (ns), Operation.
    """
    out = _duration_summary(_memops(report), "operation", "Count")
    return out.select(
        "Time (%)", "Total Time (ns)", "Count", *DURATION_STATS,
        pl.col("operation").alias("Operation"),
    )


def memop_size_summary(report: TimelineReport) -> pl.DataFrame:
    """``cuda_gpu_mem_size_sum``: memcpy/memset bytes per operation kind, in MB (10^6 B).

    Columns: Total (MB), Count, Avg (MB), Med (MB), Min (MB), Max (MB), StdDev (MB),
    Operation; sorted by total size, largest first.
    """
    mb = pl.col("bytes").cast(pl.Float64) / 1e6
    return (
        _memops(report)
        .lazy()
        .group_by("operation")
        .agg(
            mb.sum().alias("Total (MB)"),
            pl.len().cast(pl.Int64).alias("Count"),
            mb.mean().alias("Avg (MB)"),
            mb.median().alias("Med (MB)"),
            mb.min().alias("Min (MB)"),
            mb.max().alias("Max (MB)"),
            mb.std(ddof=1).fill_null(0.0).alias("StdDev (MB)"),
        )
        .sort(["Total (MB)", "operation"], descending=[True, False])
        .select(
            "Total (MB)", "Count", "Avg (MB)", "Med (MB)", "Min (MB)", "Max (MB)",
            "StdDev (MB)", pl.col("operation").alias("Operation"),
        )
        .collect(engine="in-memory")
    )
