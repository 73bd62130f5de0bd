"""Re-implementations of the ``nsys analyze`` expert-system rules kernelscope reports.

Each function returns the rows ``nsys analyze --rule NAME`` prints, as a polars frame with
snake_case columns (:data:`RULE_COLUMNS` maps them to nsys's headers), in nsys's order.
Definitions follow NVIDIA's ``rules/*.py`` (Nsight Systems 2025.3); see docs/timeline.md.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import polars as pl

from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.model.intervals import merge_intervals, overlap_sum_until
from kernelscope.timeline.model.model import TimelineReport, pid_of, tid_of

I64 = pl.Int64
MEMCPY_KIND_HTOD = 1
MEM_KIND_PAGEABLE = 0
MEM_KIND_PINNED = 1
MEM_KIND_MANAGED = 4

# Profiler overhead that nsys counts as GPU activity when looking for gaps and utilisation.
CUDA_OVERHEAD_NAMES = (
    "CUDA profiling data flush overhead",
    "CUDA profiling stop overhead",
    "CUDA profiling overhead",
)

# Column -> nsys CSV header, per rule.
RULE_COLUMNS: dict[str, dict[str, str]] = {
    "cuda_memcpy_async": {
        "duration_ns": "Duration (ns)", "start_ns": "Start (ns)", "src_kind": "Src Kind",
        "dst_kind": "Dst Kind", "bytes": "Bytes (MB)", "pid": "PID", "device_id": "Device ID",
        "context_id": "Context ID", "green_context_id": "Green Context ID",
        "stream_id": "Stream ID", "api_name": "API Name",
    },
    "cuda_memcpy_sync": {
        "duration_ns": "Duration (ns)", "start_ns": "Start (ns)", "src_kind": "Src Kind",
        "dst_kind": "Dst Kind", "bytes": "Bytes (MB)", "pid": "PID", "device_id": "Device ID",
        "context_id": "Context ID", "green_context_id": "Green Context ID",
        "stream_id": "Stream ID", "api_name": "API Name",
    },
    "cuda_memset_sync": {
        "duration_ns": "Duration (ns)", "start_ns": "Start (ns)", "memory_kind": "Memory Kind",
        "bytes": "Bytes (MB)", "pid": "PID", "device_id": "Device ID",
        "context_id": "Context ID", "green_context_id": "Green Context ID",
        "stream_id": "Stream ID", "api_name": "API Name",
    },
    "cuda_api_sync": {
        "duration_ns": "Duration (ns)", "start_ns": "Start (ns)", "pid": "PID", "tid": "TID",
        "api_name": "API Name",
    },
    "gpu_gaps": {
        "row": "Row#", "duration_ns": "Duration (ns)", "start_ns": "Start (ns)", "pid": "PID",
        "device_id": "Device ID", "context_id": "Context ID",
    },
    "gpu_time_util": {
        "row": "Row#", "in_use_pct": "In-Use (%)", "duration_ns": "Duration (ns)",
        "start_ns": "Start (ns)", "pid": "PID", "device_id": "Device ID",
        "context_id": "Context ID",
    },
}


def sqlite_round(value: float, digits: int) -> float:
    """Round like SQLite's ``round()``: half away from zero on the exact binary value."""
    quantum = Decimal(1).scaleb(-digits)
    return float(Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP))


def _like(pattern: str) -> str:
    """Case-insensitive regex for an SQL LIKE pattern made of literals and ``%``."""
    parts = [p.replace("(", r"\(").replace(")", r"\)") for p in pattern.split("%")]
    return "(?i)^" + ".*".join(parts) + "$"


def _with_api(report: TimelineReport, ops: pl.DataFrame) -> pl.DataFrame:
    """Join GPU operations to the CUDA API call that issued them (same correlation id and
    process), adding ``api_name`` (as recorded, e.g. ``cudaMemcpy_v3020``)."""
    api = report.cuda_api.filter(  # a filter, not a semi join: ~2.5 times quicker
        pl.col("correlation_id").is_in(ops["correlation_id"].implode())).select(
        "correlation_id",
        pid_of(pl.col("global_tid")).alias("pid"),
        pl.col("name").alias("api_name"),
    )
    return ops.with_columns(pid_of(pl.col("global_pid")).alias("pid")).join(
        api, on=["correlation_id", "pid"], how="inner"
    )


def _memcpy_rows(df: pl.DataFrame) -> pl.DataFrame:
    return _copy_rows(
        df, pl.col("src_kind_name").alias("src_kind"), pl.col("dst_kind_name").alias("dst_kind")
    )


def _copy_rows(df: pl.DataFrame, *memory_kinds: pl.Expr) -> pl.DataFrame:
    """The rows of a memcpy or memset rule: ``memory_kinds`` stand after the start."""
    return df.select(
        (pl.col("end") - pl.col("start")).alias("duration_ns"),
        pl.col("start").alias("start_ns"),
        *memory_kinds,
        "bytes", "pid", "device_id", "context_id",
        pl.when(pl.col("green_context_id") != 0).then(pl.col("green_context_id"))
        .alias("green_context_id"),
        "stream_id", "api_name",
    ).sort(["duration_ns", "start_ns"], descending=[True, False])


def cuda_memcpy_async(report: TimelineReport) -> pl.DataFrame:
    """Async memcpys (``cudaMemcpy*Async*``) where either side is pageable memory."""
    copies = report.memcpy.filter(
        (pl.col("src_kind") == MEM_KIND_PAGEABLE) | (pl.col("dst_kind") == MEM_KIND_PAGEABLE)
    )
    joined = _with_api(report, copies).filter(
        pl.col("api_name").str.contains(_like("cudaMemcpy%Async%"))
    )
    return _memcpy_rows(joined)


def cuda_memcpy_sync(report: TimelineReport) -> pl.DataFrame:
    """Synchronous memcpys (``cudaMemcpy*`` without ``Async``), except host-to-device
    copies of 64 KB (64000 bytes) or less, which return before the copy completes, and
    copies within one device."""
    copies = report.memcpy.filter(
        ~(pl.col("src_device_id").is_not_null()
          & (pl.col("src_device_id") == pl.col("dst_device_id")).fill_null(False))
    )
    joined = _with_api(report, copies).filter(
        pl.col("api_name").str.contains(_like("cudaMemcpy%"))
        & ~pl.col("api_name").str.contains(_like("%async%"))
        & ~(
            (pl.col("copy_kind") == MEMCPY_KIND_HTOD)
            & (pl.col("bytes") <= TIMELINE_THRESHOLDS.sync_memcpy_small_htod_bytes)
        )
    )
    return _memcpy_rows(joined)


def cuda_memset_sync(report: TimelineReport) -> pl.DataFrame:
    """Synchronous memsets (``cudaMemset*`` without ``async``) of pinned or managed memory."""
    sets = report.memset.filter(pl.col("mem_kind").is_in([MEM_KIND_PINNED, MEM_KIND_MANAGED]))
    joined = _with_api(report, sets).filter(
        pl.col("api_name").str.contains(_like("cudaMemset%"))
        & ~pl.col("api_name").str.contains(_like("%async%"))
    )
    labels = {MEM_KIND_PINNED: "Pinned", MEM_KIND_MANAGED: "Managed"}
    return _copy_rows(
        joined,
        pl.col("mem_kind").replace_strict(labels, default=None, return_dtype=pl.String)
        .alias("memory_kind"),
    )


def cuda_api_sync(report: TimelineReport) -> pl.DataFrame:
    """Calls of ``cudaDeviceSynchronize*`` and ``cudaStreamSynchronize*``."""
    pattern = f"{_like('cudaDeviceSynchronize%')}|{_like('cudaStreamSynchronize%')}"
    return (
        report.cuda_api.filter(pl.col("name").str.contains(pattern))
        .select(
            (pl.col("end") - pl.col("start")).alias("duration_ns"),
            pl.col("start").alias("start_ns"),
            pid_of(pl.col("global_tid")).alias("pid"),
            tid_of(pl.col("global_tid")).alias("tid"),
            pl.col("name").alias("api_name"),
        )
        .sort(["duration_ns", "start_ns"], descending=[True, False])
    )


RANGE_CONTEXT = pl.col("context_id").get(pl.col("end").arg_max()).alias("context_id")
"""The context nsys's rules give a process's range on a device: their ``range`` query selects
``contextId`` as a bare column beside ``min(start)`` and ``max(end)``, and SQLite fills a bare
column from the row that set the last min/max aggregate of the query, ``max(end)``: the
context of the operation that ends last (a memcpy's context can differ from a kernel's)."""


def gpu_ops_with_overhead(report: TimelineReport) -> pl.DataFrame:
    """GPU operations per process and device, plus the CUDA profiler overhead of the process
    that falls strictly inside the device's active range (as nsys's rules count it).

    Columns: start, end, pid, device_id, context_id.
    """
    return report.memo("gpu_ops_with_overhead", lambda: _gpu_ops_with_overhead(report))


def _gpu_ops_with_overhead(report: TimelineReport) -> pl.DataFrame:
    ops = report.gpu_ops.filter(pl.col("start") > 0).select(
        "start", "end", pid_of(pl.col("global_pid")).alias("pid"), "device_id", "context_id"
    )
    over = report.overhead.filter(pl.col("name").is_in(CUDA_OVERHEAD_NAMES)).select(
        "start", "end", pid_of(pl.col("global_tid")).alias("pid")
    )
    if not over.height or not ops.height:
        return ops
    ranges = ops.group_by("pid", "device_id").agg(
        pl.col("start").min().alias("r_start"),
        pl.col("end").max().alias("r_end"),
        RANGE_CONTEXT,
    )
    inside = over.join(ranges, on="pid").filter(
        (pl.col("start") > pl.col("r_start")) & (pl.col("end") < pl.col("r_end"))
    )
    return pl.concat(
        [ops, inside.select("start", "end", "pid", "device_id", "context_id")],
        how="vertical_relaxed",
    )


def _may_gap(ops: pl.DataFrame, gap_ns: int) -> bool:
    """Whether some process's operations on one device span more than ``gap_ns`` (first
    start to last end): a gap between two of them is never longer than that, so where none
    does, no gap is looked for (the merge of every operation: ~9 ms of a 40,000-kernel
    trace's export)."""
    spans = ops.group_by("pid", "device_id").agg(
        (pl.col("end").max() - pl.col("start").min()).alias("span"))
    return bool(spans.select((pl.col("span") > gap_ns).any()).item())


def gpu_gaps(report: TimelineReport, gap_ms: int = TIMELINE_THRESHOLDS.gpu_gap_ms) -> pl.DataFrame:
    """Idle stretches longer than ``gap_ms`` between GPU operations of one process on one
    device (profiler overhead counts as busy). Columns: row, duration_ns, start_ns, end_ns,
    pid, device_id, context_id; longest first."""
    ops = gpu_ops_with_overhead(report)
    schema = {"row": I64, "duration_ns": I64, "start_ns": I64, "end_ns": I64, "pid": I64,
              "device_id": I64, "context_id": I64}
    if not ops.height or not _may_gap(ops, gap_ms * 1_000_000):
        return pl.DataFrame(schema=schema)
    merged = merge_intervals(ops, ["pid", "device_id"])
    # The merge sorts by pid, device and start: the next block of the same pid and device is
    # the next row (no window over the groups), and one query finds the long gaps.
    same = pl.all_horizontal(pl.col(c).eq_missing(pl.col(c).shift(-1)) for c in ("pid",
                                                                             "device_id"))
    gaps = (
        merged.lazy()
        .with_columns(
            pl.col("end").alias("start_ns"),
            pl.when(same).then(pl.col("start").shift(-1)).alias("end_ns"),
        )
        .filter(pl.col("end_ns").is_not_null())
        .with_columns((pl.col("end_ns") - pl.col("start_ns")).alias("duration_ns"))
        .filter(pl.col("duration_ns") > gap_ms * 1_000_000)
        .collect(engine="in-memory")
    )
    # The context of the operation that ends right where the gap starts.
    ends = gaps.select("pid", "device_id", pl.col("start_ns").alias("end"))
    ctx = (
        ops.filter(pl.col("end").is_in(ends["end"].implode()))  # the few first: one column
        .join(ends, on=["pid", "device_id", "end"], how="semi")
        .group_by("pid", "device_id", "end")
        .agg(pl.col("context_id").first())
        .rename({"end": "start_ns"})
    )
    gaps = gaps.join(ctx, on=["pid", "device_id", "start_ns"], how="left")
    return (
        gaps.sort(["duration_ns", "start_ns"], descending=[True, False])
        .with_row_index("row", offset=1)
        .select(pl.col("row").cast(I64), "duration_ns", "start_ns", "end_ns", "pid",
                "device_id", "context_id")
        .cast(schema)  # type: ignore[arg-type]
    )


def gpu_time_util(
    report: TimelineReport,
    threshold: int = TIMELINE_THRESHOLDS.time_util_pct,
    chunks: int = TIMELINE_THRESHOLDS.time_util_chunks,
) -> pl.DataFrame:
    """Regions whose GPU time utilisation is below ``threshold`` percent.

    For each process and device, [first op start, last op end] is cut into ``chunks`` equal
    chunks of ``ceil(span / chunks)`` ns (the last one clipped); a chunk's utilisation is
    the summed (not merged: concurrent work adds up) op time inside it over its length.
    Consecutive low chunks are coalesced, with the length-weighted mean utilisation rounded
    to 0.1. Columns: row, in_use_pct, duration_ns, start_ns, end_ns, pid, device_id,
    context_id; lowest utilisation first.
    """
    schema = {"row": I64, "in_use_pct": pl.Float64, "duration_ns": I64, "start_ns": I64,
              "end_ns": I64, "pid": I64, "device_id": I64, "context_id": I64}
    ops = gpu_ops_with_overhead(report)
    rows: list[dict[str, object]] = []
    for (pid, dev), part in ops.group_by(["pid", "device_id"], maintain_order=True):
        lo = int(part["start"].min())  # type: ignore[arg-type]
        hi = int(part["end"].max())  # type: ignore[arg-type]
        size = math.ceil((hi - lo) / chunks) if hi > lo else 0
        if size <= 0:
            continue
        starts = [lo + i * size for i in range(chunks)]
        bounds = [(s, min(s + size, hi)) for s in starts if s < min(s + size, hi)]
        edges = pl.Series([b[0] for b in bounds] + [bounds[-1][1]], dtype=I64)
        cum = overlap_sum_until(part, edges, origin=lo).to_list()
        ctx = part.select(RANGE_CONTEXT).item()
        group: list[tuple[int, int, float]] = []
        for i, (s, e) in enumerate(bounds):
            used = cum[i + 1] - cum[i] if i + 1 < len(cum) else 0
            pct = used / (e - s) * 100  # in nsys's order of operations
            if pct < threshold:
                group.append((s, e, pct))
                nxt_low = False
                if i + 1 < len(bounds):
                    ns, ne = bounds[i + 1]
                    nxt_low = (cum[i + 2] - cum[i + 1]) / (ne - ns) * 100 < threshold
                if nxt_low:
                    continue
            if group:
                total = sum(g[1] - g[0] for g in group)
                avg = sum((g[1] - g[0]) * g[2] for g in group) / total
                rows.append({
                    "in_use_pct": sqlite_round(avg, 1), "duration_ns": group[-1][1] - group[0][0],
                    "start_ns": group[0][0], "end_ns": group[-1][1], "pid": pid,
                    "device_id": dev, "context_id": ctx,
                })
                group = []
    if not rows:
        return pl.DataFrame(schema=schema)
    out = pl.DataFrame(rows).sort(["in_use_pct", "duration_ns"])
    return (
        out.with_row_index("row", offset=1)
        .select(list(schema))
        .cast(schema)  # type: ignore[arg-type]
    )
