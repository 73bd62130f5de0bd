"""Findings: the ``nsys analyze`` rules plus kernelscope's own, as uniform records.

Every finding has an ``id``, a ``severity`` (``info``, ``warning`` or ``critical``), a
one-line ``title``, ``advice`` and ``items`` (one dict per offending row). Rules that find
nothing are not returned.

| id | source | what |
|----|--------|------|
| pageable-memcpy | nsys ``cuda_memcpy_async`` | async copies using pageable host memory |
| sync-memcpy | nsys ``cuda_memcpy_sync`` | synchronous copies that block the host |
| sync-memset | nsys ``cuda_memset_sync`` | synchronous memsets of pinned/managed memory |
| sync-api | nsys ``cuda_api_sync`` | cudaDeviceSynchronize / cudaStreamSynchronize calls |
| gpu-gap | nsys ``gpu_gaps`` | a GPU idle for longer than 500 ms |
| low-gpu-utilization | nsys ``gpu_time_util`` | regions with GPU time utilisation under 50 % |
| many-tiny-kernels | kernelscope | launch-bound stretches of short kernels |
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from kernelscope.core.durations import fmt_ns
from kernelscope.core.severity import most_severe_first
from kernelscope.timeline.analysis import nsys_rules
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.model.model import NsysReport


@dataclass(frozen=True)
class Finding:
    """One problem found in the report."""

    id: str
    severity: str
    title: str
    advice: str
    items: list[dict[str, object]] = field(default_factory=list)
    rule: str | None = None  # the nsys analyze rule it mirrors, if any
    columns: dict[str, str] = field(default_factory=dict)  # item key -> display header

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "severity": self.severity, "title": self.title,
                "items": [dict(i) for i in self.items]}


def _items(df: pl.DataFrame) -> list[dict[str, object]]:
    return df.to_dicts()


def _span_ns(report: NsysReport) -> int:
    ops = report.gpu_ops
    if not ops.height:
        return max(report.duration_ns, 1)
    return max(int(ops["end"].max()) - int(ops["start"].min()), 1)  # type: ignore[arg-type]


def _rule_finding(
    fid: str, rule: str, df: pl.DataFrame, severity: str, title: str, advice: str
) -> Finding | None:
    if not df.height:
        return None
    return Finding(fid, severity, title, advice, _items(df), rule, nsys_rules.RULE_COLUMNS[rule])


def pageable_memcpy(report: NsysReport) -> Finding | None:
    df = nsys_rules.cuda_memcpy_async(report)
    return _rule_finding(
        "pageable-memcpy", "cuda_memcpy_async", df, "warning",
        f"{df.height} asynchronous memcpy call(s) use pageable memory and run synchronously",
        "Use pinned host memory (cudaMallocHost / tensor.pin_memory()) for async copies.",
    )


def sync_memcpy(report: NsysReport) -> Finding | None:
    df = nsys_rules.cuda_memcpy_sync(report)
    return _rule_finding(
        "sync-memcpy", "cuda_memcpy_sync", df, "warning",
        f"{df.height} synchronous memcpy call(s) block the host",
        "Use cudaMemcpy*Async() on a stream with pinned memory so copies overlap compute.",
    )


def sync_memset(report: NsysReport) -> Finding | None:
    df = nsys_rules.cuda_memset_sync(report)
    return _rule_finding(
        "sync-memset", "cuda_memset_sync", df, "warning",
        f"{df.height} synchronous memset call(s) on pinned or managed memory block the host",
        "Use cudaMemsetAsync() on a stream.",
    )


def sync_api(report: NsysReport) -> Finding | None:
    df = nsys_rules.cuda_api_sync(report)
    if not df.height:
        return None
    share = int(df["duration_ns"].sum()) / _span_ns(report)
    return _rule_finding(
        "sync-api", "cuda_api_sync", df, "warning" if share >= 0.1 else "info",
        f"{df.height} device/stream synchronisation call(s) block the host",
        "Avoid needless synchronisation; wait on events (cudaStreamWaitEvent) instead.",
    )


def gpu_gap(report: NsysReport, gap_ms: int = TIMELINE_THRESHOLDS.gpu_gap_ms) -> Finding | None:
    df = nsys_rules.gpu_gaps(report, gap_ms)
    if not df.height:
        return None
    share = int(df["duration_ns"].sum()) / _span_ns(report)
    return _rule_finding(
        "gpu-gap", "gpu_gaps", df, "critical" if share >= 0.25 else "warning",
        f"{df.height} GPU idle gap(s) longer than {gap_ms} ms",
        "Find what the CPU does in these gaps (timeline, OS runtime, NVTX) and overlap it "
        "with GPU work.",
    )


def low_gpu_utilization(
    report: NsysReport,
    threshold: int = TIMELINE_THRESHOLDS.time_util_pct,
    chunks: int = TIMELINE_THRESHOLDS.time_util_chunks,
) -> Finding | None:
    df = nsys_rules.gpu_time_util(report, threshold, chunks)
    if not df.height:
        return None
    worst = float(df["in_use_pct"].min())  # type: ignore[arg-type]
    return _rule_finding(
        "low-gpu-utilization", "gpu_time_util", df, "critical" if worst < 10 else "warning",
        f"{df.height} region(s) with GPU time utilisation under {threshold}%",
        "Keep the GPU fed: overlap CPU work with GPU work, remove syncs, batch launches.",
    )


def tiny_kernel_stretches(
    report: NsysReport,
    *,
    tiny_ns: int = TIMELINE_THRESHOLDS.tiny_kernel_ns,
    max_gap_ns: int = TIMELINE_THRESHOLDS.tiny_max_gap_ns,
    min_kernels: int = TIMELINE_THRESHOLDS.tiny_min_kernels,
    max_busy: float = TIMELINE_THRESHOLDS.tiny_max_busy,
) -> pl.DataFrame:
    """Launch-bound stretches: runs of at least ``min_kernels`` consecutive kernels on one
    stream, each shorter than ``tiny_ns`` and at most ``max_gap_ns`` apart, during which the
    device is busy less than ``max_busy`` of the time (gaps as long as the kernels).

    Columns: device_id, stream_id, start_ns, end_ns, kernels, busy_pct, median_kernel_ns,
    median_gap_ns, top_kernel.
    """
    by = ["device_id", "stream_id"]
    # Names as strings: a categorical's physical codes are not stable across read chunks.
    k = report.kernels.select(*by, "start", "end", pl.col("name").cast(pl.String))
    k = k.sort([*by, "start"])
    same_stream = pl.all_horizontal([pl.col(c) == pl.col(c).shift(1) for c in by]).fill_null(
        False
    )
    tiny = (pl.col("end") - pl.col("start")) < tiny_ns
    gap = pl.col("start") - pl.col("end").shift(1)
    # A run breaks at a stream change, a long gap, or a kernel that is not tiny (which
    # starts a run of its own and is dropped below).
    breaks = ~same_stream | ~tiny | ~tiny.shift(1).fill_null(False) | (gap > max_gap_ns)
    runs = (
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
            pl.col("name").mode().sort().first().alias("top_kernel"),
        )
        .filter(pl.col("kernels") >= min_kernels)
        .sort("start_ns")
        .collect()
    )
    runs = runs.drop("_run").sort("start_ns")
    parts = []
    for (dev,), part in runs.group_by(["device_id"], maintain_order=True):
        cov = report.device_busy.get(int(dev))  # type: ignore[arg-type]
        if cov is None:
            busy = pl.zeros(part.height, pl.Int64, eager=True)
        else:
            busy = cov.covered_until(part["end_ns"]) - cov.covered_until(part["start_ns"])
        span = (part["end_ns"] - part["start_ns"]).clip(lower_bound=1)
        parts.append(part.with_columns((100.0 * busy / span).alias("busy_pct")))
    if not parts:
        return runs.with_columns(pl.lit(0.0).alias("busy_pct")).select(
            *by, "start_ns", "end_ns", pl.col("kernels").cast(pl.Int64), "busy_pct",
            "median_kernel_ns", "median_gap_ns", "top_kernel",
        )
    return (
        pl.concat(parts)
        .sort("start_ns")
        .filter(pl.col("busy_pct") < 100.0 * max_busy)
        .select(*by, "start_ns", "end_ns", pl.col("kernels").cast(pl.Int64), "busy_pct",
                "median_kernel_ns", "median_gap_ns", "top_kernel")
    )


def many_tiny_kernels(report: NsysReport) -> Finding | None:
    df = tiny_kernel_stretches(report)
    if not df.height:
        return None
    n = int(df["kernels"].sum())
    spans = df["end_ns"] - df["start_ns"]
    covered = int(spans.sum())
    busy = float((df["busy_pct"] * spans).sum()) / max(covered, 1)
    return Finding(
        "many-tiny-kernels",
        "critical" if covered / _span_ns(report) >= 0.25 else "warning",
        f"{n} short kernels (< {fmt_ns(TIMELINE_THRESHOLDS.tiny_kernel_ns, compact=True)}) in "
        f"{df.height} launch-bound "
        f"stretch(es): the GPU is busy only {busy:.0f}% of that time",
        "Capture these launches in a CUDA Graph or fuse the kernels (torch.compile, custom "
        "fused kernels) so launch overhead stops dominating.",
        _items(df),
        None,
        {
            "device_id": "Device ID", "stream_id": "Stream ID", "start_ns": "Start (ns)",
            "end_ns": "End (ns)", "kernels": "Kernels", "busy_pct": "GPU busy (%)",
            "median_kernel_ns": "Med kernel (ns)", "median_gap_ns": "Med gap (ns)",
            "top_kernel": "Most frequent kernel",
        },
    )


def findings(report: NsysReport) -> list[Finding]:
    """Every rule that found something, most severe first (stable within a severity)."""
    return list(report.memo("findings", lambda: _findings(report)))


def _findings(report: NsysReport) -> list[Finding]:
    found = [
        rule(report)
        for rule in (pageable_memcpy, sync_memcpy, sync_memset, sync_api, gpu_gap,
                     low_gpu_utilization, many_tiny_kernels)
    ]
    out = [f for f in found if f is not None]
    return most_severe_first(out, lambda f: f.severity)
