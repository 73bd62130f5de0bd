"""NVTX range summary (``nsys stats -r nvtx_sum``) and GPU busy share per range.

A range's name is ``domain:message`` (``:message`` in the default domain, as nsys prints
it); its style is ``PushPop`` (nvtxRangePush/Pop) or ``StartEnd`` (nvtxRangeStart/End).

The summaries count ranges by operation: the per-call parts of a name (PyTorch's
``emit_nvtx`` writes ``aten::mm, seq = 12, op_id = 345, sizes = [[8, 64], [64, 64]],
input_op_ids = [(344, 0)]``; addresses such as ``0x7f3a…``) are folded away
(:func:`operation`), so each operation is one row with its count, and ``raw_names`` says
how many distinct names it folds. Names without such parts are left as they are (the
summary then equals ``nsys stats``'s).
"""

from __future__ import annotations

import polars as pl

from kernelscope.timeline.analysis.summaries import DURATION_STATS, _duration_summary
from kernelscope.timeline.model.intervals import Coverage
from kernelscope.timeline.model.model import TimelineReport, pid_of
from kernelscope.timeline.model.schema import (
    NVTX_PUSHPOP,
    NVTX_STARTEND,
    NVTXT_PUSHPOP,
    NVTXT_STARTEND,
)

_STYLE = {NVTX_PUSHPOP: "PushPop", NVTXT_PUSHPOP: "PushPop", NVTX_STARTEND: "StartEnd",
          NVTXT_STARTEND: "StartEnd"}


_PER_CALL = (
    (r", (?:seq|op_id) = -?\d+", ""),
    (r", sizes = \[(?:[^\[\]]|\[[^\[\]]*\])*\]", ""),
    (r", input_op_ids = \[[^\]]*\]", ""),
    (r"0x[0-9a-fA-F]{4,}", "0x…"),
)
"""The per-call parts of an NVTX name and what each becomes."""


def operation(name: pl.Expr) -> pl.Expr:
    """``name`` (an NVTX range name) without its per-call parts: the operation it runs."""
    for pattern, replacement in _PER_CALL:
        name = name.str.replace_all(pattern, replacement)
    return name


def nvtx_ranges(report: TimelineReport) -> pl.DataFrame:
    """Every NVTX range instance: start, end, global_tid, pid, style, range.

    ``range`` is named as ``nsys stats`` names it: ``domain:message``, with an empty domain
    for the default one (``:forward``). Ranges never closed (NULL end) end at the latest
    timestamp of the NVTX table, as in nsys. Made once per report (the summaries, the gaps'
    causes, the metrics and the critical path's steps all read it).
    """
    return report.memo("nvtx_ranges", lambda: _nvtx_ranges(report))


def _nvtx_ranges(report: TimelineReport) -> pl.DataFrame:
    nv = report.nvtx.filter(pl.col("event_type").is_in(list(_STYLE)))
    if not nv.height:
        return pl.DataFrame(schema={"start": pl.Int64, "end": pl.Int64, "global_tid": pl.Int64,
                                    "pid": pl.Int64, "style": pl.String, "range": pl.String})
    last = report.nvtx_last_ns
    return nv.select(
        "start",
        pl.col("end").fill_null(last),
        "global_tid",
        pid_of(pl.col("global_tid")).alias("pid"),
        pl.col("event_type").replace_strict(_STYLE, return_dtype=pl.String).alias("style"),
        (pl.col("domain").fill_null("") + ":" + pl.col("name").fill_null("")).alias("range"),
    )


def nvtx_summary(report: TimelineReport) -> pl.DataFrame:
    """``nvtx_sum`` by operation (:func:`operation`): Time (%), Total Time (ns), Instances,
    Avg (ns), Med (ns), Min (ns), Max (ns), StdDev (ns), Style, Range."""
    ranges = nvtx_ranges(report).with_columns(operation(pl.col("range")))
    out = _duration_summary(ranges, "range", "Instances", extra=["style"])
    return out.select(
        "Time (%)", "Total Time (ns)", "Instances", *DURATION_STATS,
        pl.col("style").alias("Style"), pl.col("range").alias("Range"),
    )


def nvtx_gpu_busy(report: TimelineReport) -> pl.DataFrame:
    """Per NVTX operation (:func:`operation`): how busy the GPU was while its ranges were
    open.

    For each instance, busy time is the time inside [start, end) when any kernel, memcpy or
    memset of the same process ran on any device (merged); gpu_busy_pct is the summed busy
    time over the summed range durations. Columns: range, style, instances, raw_names (the
    distinct names folded into it), total_ns, gpu_busy_ns, gpu_busy_pct; by total time,
    largest first.
    """
    ranges = nvtx_ranges(report)
    parts = []
    ops = report.gpu_ops.with_columns(pid_of(pl.col("global_pid")).alias("pid"))
    for (pid,), inst in ranges.group_by(["pid"], maintain_order=True):
        cov = Coverage.from_intervals(ops.filter(pl.col("pid") == pid))
        busy = cov.covered_until(inst["end"]) - cov.covered_until(inst["start"])
        parts.append(inst.with_columns(busy.alias("busy")))
    schema = {"range": pl.String, "style": pl.String, "instances": pl.Int64,
              "raw_names": pl.Int64, "total_ns": pl.Int64, "gpu_busy_ns": pl.Int64,
              "gpu_busy_pct": pl.Float64}
    if not parts:
        return pl.DataFrame(schema=schema)
    return (
        pl.concat(parts)
        .with_columns(pl.col("range").alias("raw"), operation(pl.col("range")))
        .group_by("range", "style")
        .agg(
            pl.len().cast(pl.Int64).alias("instances"),
            pl.col("raw").n_unique().cast(pl.Int64).alias("raw_names"),
            (pl.col("end") - pl.col("start")).sum().alias("total_ns"),
            pl.col("busy").sum().alias("gpu_busy_ns"),
        )
        .with_columns(
            pl.when(pl.col("total_ns") > 0)
            .then(100.0 * pl.col("gpu_busy_ns") / pl.col("total_ns"))
            .otherwise(0.0)
            .alias("gpu_busy_pct")
        )
        .sort(["total_ns", "range"], descending=[True, False])
        .select(list(schema))
    )
