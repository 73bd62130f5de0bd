"""Unified-memory migrations on a timeline: the pages of managed memory (``cudaMallocManaged``)
the driver moved between host and device on demand.

Nsight Systems records them among the copies, with copy kinds 11-13, and ``nsys stats`` names
them ``[CUDA memcpy Unified Host-to-Device]``, ``[CUDA memcpy Unified Device-to-Host]`` and
``[CUDA memcpy Unified Device-to-Device]``. No API call launches them (a page fault does), so
they are a cause of their own, with the managed-memory remedy, never "copies to avoid".
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import polars as pl

from kernelscope.timeline.model.model import TimelineReport

UNIFIED_COPY_KINDS = (11, 12, 13)
"""``ENUM_CUDA_MEMCPY_OPER``: Unified Host-to-Device, Device-to-Host, Device-to-Device."""

UNIFIED_REMEDY = (
    "Prefetch managed memory to the device that uses it next (cudaMemPrefetchAsync) and say "
    "where it lives (cudaMemAdvise: SetPreferredLocation, SetReadMostly, SetAccessedBy), or "
    "allocate it with cudaMalloc and copy it once, so kernels stop waiting on page faults."
)


def is_unified() -> pl.Expr:
    """True for a copy row that is a unified-memory migration."""
    return pl.col("copy_kind").is_in(UNIFIED_COPY_KINDS).fill_null(False)


def unified_migrations(report: TimelineReport) -> pl.DataFrame:
    """The migrations among ``report.memcpy`` (start, end, device_id, bytes, copy_kind;
    bytes null where the reader kept no sizes, as the ranks' reduced reader does); made once
    per report (the findings and the gaps' causes both read them)."""
    return report.memo("unified_migrations", lambda: _unified_migrations(report))


def _unified_migrations(report: TimelineReport) -> pl.DataFrame:
    copies = report.memcpy
    if not copies.height or "copy_kind" not in copies.columns:
        return pl.DataFrame(schema=_MIGRATION_SCHEMA)
    size = pl.col("bytes") if "bytes" in copies.columns else pl.lit(None, pl.Int64).alias("bytes")
    return copies.filter(is_unified()).select("start", "end", "device_id", size, "copy_kind")


_MIGRATION_SCHEMA = {"start": pl.Int64, "end": pl.Int64, "device_id": pl.Int64,
                     "bytes": pl.Int64, "copy_kind": pl.Int64}


MIGRATION_HEADERS = {"operation": "Operation", "count": "Count", "total_ns": "Total Time (ns)",
                     "bytes": "Total (bytes)"}
"""The columns of the unified-memory finding's rows (one per direction)."""


def migration_rows(migrations: pl.DataFrame) -> pl.DataFrame:
    """Per direction (nsys's operation name), the migrations, their GPU time and bytes,
    the most time first."""
    labels = {11: "Host-to-Device", 12: "Device-to-Host", 13: "Device-to-Device"}
    return (
        migrations.group_by("copy_kind")
        .agg(pl.len().cast(pl.Int64).alias("count"),
             (pl.col("end") - pl.col("start")).sum().alias("total_ns"),
             pl.col("bytes").sum().alias("bytes"))
        .with_columns(("[CUDA memcpy Unified " + pl.col("copy_kind").replace_strict(
            labels, default="Unknown", return_dtype=pl.String) + "]").alias("operation"))
        .sort(["total_ns", "copy_kind"], descending=[True, False])
        .select(*MIGRATION_HEADERS)
    )


def overlapping(migrations: pl.DataFrame, starts: Sequence[int], durations: Sequence[int]
                ) -> tuple[int, int]:
    """(how many migrations, ns of migration time) that ran while one of the intervals
    ``[start, start + duration)`` did (each migration counted once, with the time it shares
    with the intervals' union)."""
    if not migrations.height or not starts:
        return 0, 0
    union = _union(sorted((s, s + d) for s, d in zip(starts, durations, strict=True)))
    ends = [e for _, e in union]
    count = overlap_ns = 0
    for m_start, m_end in migrations.select("start", "end").iter_rows():
        if m_start is None or m_end is None:
            continue
        hit = 0
        i = bisect.bisect_right(ends, m_start)
        while i < len(union) and union[i][0] < m_end:
            hit += max(0, min(union[i][1], m_end) - max(union[i][0], m_start))
            i += 1
        if hit:
            count += 1
            overlap_ns += hit
    return count, overlap_ns


def _union(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted ``spans`` merged where they overlap (disjoint, in order)."""
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out
