"""Findings: the ``nsys analyze`` rules plus kernelscope's own, in the findings model.

Every finding (``kernelscope.core.findings.Finding``) has an ``id``, a ``Severity``, a one-line
``title``, ``advice``, the ``evidence`` that decided its severity, and ``rows`` (one mapping per
offending row) headed by ``columns``. Rules that find nothing are not returned.

| id | source | what |
|----|--------|------|
| pageable-memcpy | nsys ``cuda_memcpy_async`` | async copies using pageable host memory |
| sync-memcpy | nsys ``cuda_memcpy_sync`` | synchronous copies that block the host |
| sync-memset | nsys ``cuda_memset_sync`` | synchronous memsets of pinned/managed memory |
| sync-api | nsys ``cuda_api_sync`` | cudaDeviceSynchronize / cudaStreamSynchronize calls |
| gpu-gap | nsys ``gpu_gaps`` | a GPU idle for longer than 500 ms |
| low-gpu-utilization | nsys ``gpu_time_util`` | regions with GPU time utilisation under 50 % |
| many-tiny-kernels | kernelscope | launch-bound stretches of short kernels |
| unified-memory-migrations | kernelscope | pages of managed memory moved on demand |
"""

from __future__ import annotations

import polars as pl

from kernelscope.core.durations import fmt_ns
from kernelscope.core.findings import Evidence, Finding
from kernelscope.core.severity import Severity, most_severe_first
from kernelscope.timeline.analysis import nsys_rules
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.analysis.unified_memory import (
    MIGRATION_HEADERS,
    UNIFIED_REMEDY,
    migration_rows,
    unified_migrations,
)
from kernelscope.timeline.model.model import TimelineReport

STEP = "timeline"
"""The ``step`` of the evidence a timeline finding rests on."""

SYNC_SHARE_WARNING = 0.1
"""Synchronisation calls blocking this share of the GPU span make ``sync-api`` a warning."""
CRITICAL_SHARE = 0.25
"""Idle gaps or launch-bound stretches covering this share of the GPU span are critical."""
CRITICAL_UTIL_PCT = 10
"""A region whose GPU time utilisation is under this (%) makes ``low-gpu-utilization``
critical."""


def _rows(df: pl.DataFrame) -> tuple[dict[str, object], ...]:
    return tuple(df.to_dicts())


def _share(name: str, share: float, threshold: float) -> Evidence:
    """A share of the GPU span (in %) against the threshold that raises the severity."""
    return Evidence(STEP, name, 100.0 * share, ">=", 100.0 * threshold, "%",
                    "share of the GPU span")


def _span_ns(report: TimelineReport) -> int:
    ops = report.gpu_ops
    if not ops.height:
        return max(report.duration_ns, 1)
    return max(int(ops["end"].max()) - int(ops["start"].min()), 1)  # type: ignore[arg-type]


def _rule_finding(
    fid: str, rule: str, df: pl.DataFrame, severity: Severity, title: str, advice: str,
    *evidence: Evidence,
) -> Finding | None:
    if not df.height:
        return None
    return Finding(fid, severity, title, evidence, advice, rule=rule, rows=_rows(df),
                   columns=nsys_rules.RULE_COLUMNS[rule])


HOST_BLOCKING_RULES = (
    ("pageable-memcpy", nsys_rules.cuda_memcpy_async,
     "asynchronous memcpy call(s) use pageable memory and run synchronously",
     "Use pinned host memory (cudaMallocHost / tensor.pin_memory()) for async copies."),
    ("sync-memcpy", nsys_rules.cuda_memcpy_sync, "synchronous memcpy call(s) block the host",
     "Use cudaMemcpy*Async() on a stream with pinned memory so copies overlap compute."),
    ("sync-memset", nsys_rules.cuda_memset_sync,
     "synchronous memset call(s) on pinned or managed memory block the host",
     "Use cudaMemsetAsync() on a stream."),
)
"""Rules that are a warning whenever they find a row: the finding's id, the nsys rule (its
function's name is the rule's), what each row is, and the advice."""


def host_blocking(report: TimelineReport) -> list[Finding | None]:
    """The findings of ``HOST_BLOCKING_RULES``, in order (``None`` where a rule found nothing)."""
    found = []
    for fid, rule, what, advice in HOST_BLOCKING_RULES:
        df = rule(report)
        found.append(_rule_finding(fid, rule.__name__, df, Severity.WARNING,
                                   f"{df.height} {what}", advice))
    return found


def sync_api(report: TimelineReport) -> Finding | None:
    df = nsys_rules.cuda_api_sync(report)
    if not df.height:
        return None
    share = int(df["duration_ns"].sum()) / _span_ns(report)
    severity = Severity.WARNING if share >= SYNC_SHARE_WARNING else Severity.INFO
    return _rule_finding(
        "sync-api", "cuda_api_sync", df, severity,
        f"{df.height} device/stream synchronisation call(s) block the host",
        "Avoid needless synchronisation; wait on events (cudaStreamWaitEvent) instead.",
        _share("time in synchronisation calls", share, SYNC_SHARE_WARNING),
    )


def gpu_gap(report: TimelineReport, gap_ms: int = TIMELINE_THRESHOLDS.gpu_gap_ms) -> Finding | None:
    df = nsys_rules.gpu_gaps(report, gap_ms)
    if not df.height:
        return None
    share = int(df["duration_ns"].sum()) / _span_ns(report)
    return _rule_finding(
        "gpu-gap", "gpu_gaps", df,
        Severity.CRITICAL if share >= CRITICAL_SHARE else Severity.WARNING,
        f"{df.height} GPU idle gap(s) longer than {gap_ms} ms",
        "Find what the CPU does in these gaps (timeline, OS runtime, NVTX) and overlap it "
        "with GPU work.",
        Evidence(STEP, "idle gaps", df.height, note=f"longer than {gap_ms} ms"),
        _share("time in these gaps", share, CRITICAL_SHARE),
    )


def low_gpu_utilization(
    report: TimelineReport,
    threshold: int = TIMELINE_THRESHOLDS.time_util_pct,
    chunks: int = TIMELINE_THRESHOLDS.time_util_chunks,
) -> Finding | None:
    df = nsys_rules.gpu_time_util(report, threshold, chunks)
    if not df.height:
        return None
    worst = float(df["in_use_pct"].min())  # type: ignore[arg-type]
    return _rule_finding(
        "low-gpu-utilization", "gpu_time_util", df,
        Severity.CRITICAL if worst < CRITICAL_UTIL_PCT else Severity.WARNING,
        f"{df.height} region(s) with GPU time utilisation under {threshold}%",
        "Keep the GPU fed: overlap CPU work with GPU work, remove syncs, batch launches.",
        Evidence(STEP, "lowest GPU time utilisation", worst, "<", CRITICAL_UTIL_PCT, "%",
                 f"of {df.height} region(s) under {threshold} %"),
    )


STRETCH_COLUMNS = ("device_id", "stream_id", "start_ns", "end_ns", "kernels", "busy_pct",
                   "median_kernel_ns", "median_gap_ns", "top_kernel")
"""The columns of ``tiny_kernel_stretches``, in order."""


def tiny_kernel_stretches(
    report: TimelineReport,
    *,
    tiny_ns: int = TIMELINE_THRESHOLDS.tiny_kernel_ns,
    max_gap_ns: int = TIMELINE_THRESHOLDS.tiny_max_gap_ns,
    min_kernels: int = TIMELINE_THRESHOLDS.tiny_min_kernels,
    max_busy: float = TIMELINE_THRESHOLDS.tiny_max_busy,
) -> pl.DataFrame:
    """Launch-bound stretches: runs of at least ``min_kernels`` consecutive kernels on one
    stream, each shorter than ``tiny_ns`` and at most ``max_gap_ns`` apart, during which the
    device is busy less than ``max_busy`` of the time (gaps as long as the kernels).

    Columns: ``STRETCH_COLUMNS``.
    """
    runs = _tiny_runs(report, tiny_ns, max_gap_ns, min_kernels)
    parts = [_with_busy(report, int(dev), part)  # type: ignore[arg-type]
             for (dev,), part in runs.group_by(["device_id"], maintain_order=True)]
    if not parts:
        return runs.with_columns(pl.lit(0.0).alias("busy_pct")).select(*_stretch_columns())
    return (
        pl.concat(parts)
        .sort("start_ns")
        .filter(pl.col("busy_pct") < 100.0 * max_busy)
        .select(*_stretch_columns())
    )


def _stretch_columns() -> list[pl.Expr]:
    return [pl.col("kernels").cast(pl.Int64) if c == "kernels" else pl.col(c)
            for c in STRETCH_COLUMNS]


def _tiny_runs(report: TimelineReport, tiny_ns: int, max_gap_ns: int, min_kernels: int
               ) -> pl.DataFrame:
    """Runs of at least ``min_kernels`` tiny kernels on one stream, each at most
    ``max_gap_ns`` after the last, by start (every stretch column but ``busy_pct``)."""
    by = ["device_id", "stream_id"]
    k = report.kernels.select(*by, "start", "end", "name").sort([*by, "start"])
    same_stream = pl.all_horizontal([pl.col(c) == pl.col(c).shift(1) for c in by]).fill_null(
        False
    )
    tiny = (pl.col("end") - pl.col("start")) < tiny_ns
    gap = pl.col("start") - pl.col("end").shift(1)
    # A run breaks at a stream change, a long gap, or a kernel that is not tiny (which
    # starts a run of its own and is dropped below).
    breaks = ~same_stream | ~tiny | ~tiny.shift(1).fill_null(False) | (gap > max_gap_ns)
    return (
        k.lazy()
        .with_columns(
            pl.when(same_stream).then(gap).alias("gap"),
            (pl.col("end") - pl.col("start")).alias("dur"),
            tiny.alias("tiny"),
            breaks.cum_sum().alias("_run"),
        )
        .filter(pl.col("tiny"))
        .group_by("_run")
        .agg(
            pl.col("device_id").first(),
            pl.col("stream_id").first(),
            pl.col("start").min().alias("start_ns"),
            pl.col("end").max().alias("end_ns"),
            pl.len().alias("kernels"),
            pl.col("dur").median().alias("median_kernel_ns"),
            pl.col("gap").slice(1).median().alias("median_gap_ns"),
            # the most frequent names made text before their sort (a categorical's order
            # need not be its text's), once per run rather than once per kernel
            pl.col("name").mode().cast(pl.String).sort().first().alias("top_kernel"),
        )
        .filter(pl.col("kernels") >= min_kernels)
        .sort("start_ns")
        .collect(engine="in-memory")
        .drop("_run")
        .sort("start_ns")
    )


def _with_busy(report: TimelineReport, device: int, runs: pl.DataFrame) -> pl.DataFrame:
    """``runs`` of one device with ``busy_pct``: how much of each the device was busy."""
    cov = report.device_busy.get(device)
    if cov is None:
        busy = pl.zeros(runs.height, pl.Int64, eager=True)
    else:
        busy = cov.covered_until(runs["end_ns"]) - cov.covered_until(runs["start_ns"])
    span = (runs["end_ns"] - runs["start_ns"]).clip(lower_bound=1)
    return runs.with_columns((100.0 * busy / span).alias("busy_pct"))


STRETCH_HEADERS = {
    "device_id": "Device ID", "stream_id": "Stream ID", "start_ns": "Start (ns)",
    "end_ns": "End (ns)", "kernels": "Kernels", "busy_pct": "GPU busy (%)",
    "median_kernel_ns": "Med kernel (ns)", "median_gap_ns": "Med gap (ns)",
    "top_kernel": "Most frequent kernel",
}


def many_tiny_kernels(report: TimelineReport) -> Finding | None:
    df = tiny_kernel_stretches(report)
    if not df.height:
        return None
    n = int(df["kernels"].sum())
    spans = df["end_ns"] - df["start_ns"]
    covered = int(spans.sum())
    busy = float((df["busy_pct"] * spans).sum()) / max(covered, 1)
    share = covered / _span_ns(report)
    tiny_ns = TIMELINE_THRESHOLDS.tiny_kernel_ns
    return Finding(
        "many-tiny-kernels",
        Severity.CRITICAL if share >= CRITICAL_SHARE else Severity.WARNING,
        f"{n} short kernels (< {fmt_ns(tiny_ns, compact=True)}) in "
        f"{df.height} launch-bound "
        f"stretch(es): the GPU is busy only {busy:.0f}% of that time",
        (
            Evidence(STEP, "short kernels", n, note=f"in {df.height} launch-bound stretch(es)"),
            Evidence(STEP, "GPU busy in these stretches", busy, "<",
                     100.0 * TIMELINE_THRESHOLDS.tiny_max_busy, "%"),
            _share("time in these stretches", share, CRITICAL_SHARE),
        ),
        "Capture these launches in a CUDA Graph or fuse the kernels (torch.compile, custom "
        "fused kernels) so launch overhead stops dominating.",
        rows=_rows(df),
        columns=STRETCH_HEADERS,
    )


def unified_memory_migrations(report: TimelineReport) -> Finding | None:
    """The unified-memory migrations (nsys's ``[CUDA memcpy Unified …]``): kernels that wait
    on page faults, whose remedy is prefetching and advice, not fewer copies."""
    migrations = unified_migrations(report)
    if not migrations.height:
        return None
    rows = migration_rows(migrations)
    total = int(rows["total_ns"].sum() or 0)
    share = total / _span_ns(report)
    return Finding(
        "unified-memory-migrations",
        Severity.CRITICAL if share >= CRITICAL_SHARE else Severity.WARNING,
        f"{migrations.height:,} unified-memory migrations ({fmt_ns(total)} of GPU time): "
        "pages of managed memory moved on demand",
        (Evidence(STEP, "unified-memory migrations", migrations.height,
                  note="[CUDA memcpy Unified …], started by page faults"),
         _share("time in migrations", share, CRITICAL_SHARE)),
        UNIFIED_REMEDY,
        rows=_rows(rows),
        columns=MIGRATION_HEADERS,
    )


def findings(report: TimelineReport) -> list[Finding]:
    """Every rule that found something, most severe first (stable within a severity)."""
    return list(report.memo("findings", lambda: _findings(report)))


def _findings(report: TimelineReport) -> list[Finding]:
    found = host_blocking(report) + [
        rule(report)
        for rule in (sync_api, gpu_gap, low_gpu_utilization, many_tiny_kernels,
                     unified_memory_migrations)
    ]
    out = [f for f in found if f is not None]
    return most_severe_first(out, lambda f: f.severity)
