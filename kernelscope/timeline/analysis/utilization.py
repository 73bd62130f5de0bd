"""GPU utilisation, idle gaps and launch spacing, per device.

A device is *busy* while any kernel, memcpy or memset runs on it, on any stream and for any
process; overlapping work across streams is merged, so utilisation never exceeds 100 %.
An *idle gap* is a stretch between two consecutive busy intervals of one device (the time
before its first and after its last operation is not a gap).
"""

from __future__ import annotations

import polars as pl

from kernelscope.timeline.model.model import TimelineReport

# Upper bounds (ns) of the gap-size histogram buckets; the last bucket is open-ended.
GAP_BUCKETS_NS = (1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000)
_BUCKET_LABELS = ("<1 us", "1-10 us", "10-100 us", "100 us-1 ms", "1-10 ms", "10-100 ms",
                  "100 ms-1 s", ">=1 s")


def gpu_utilization(
    report: TimelineReport, t0: int | None = None, t1: int | None = None
) -> pl.DataFrame:
    """Busy time per device.

    Without a window the span of each device is its first operation's start to its last
    operation's end; with ``t0``/``t1`` it is that window for every device. Columns: device,
    name, start_ns, end_ns, span_ns, busy_ns, utilization_pct, ops.
    """
    rows = []
    counts = report.gpu_ops.group_by("device_id").len()
    count_of = dict(zip(counts["device_id"].to_list(), counts["len"].to_list(), strict=True))
    for dev, cov in report.device_busy.items():
        if not cov.count:
            continue
        lo = int(cov.starts[0]) if t0 is None else t0
        hi = int(cov.ends[-1]) if t1 is None else t1
        span = max(hi - lo, 0)
        busy = cov.busy_between(lo, hi)
        rows.append({
            "device": dev, "name": report.device_name(dev), "start_ns": lo, "end_ns": hi,
            "span_ns": span, "busy_ns": busy,
            "utilization_pct": 100.0 * busy / span if span else 0.0,
            "ops": int(count_of.get(dev, 0)),
        })
    schema = {
        "device": pl.Int64, "name": pl.String, "start_ns": pl.Int64, "end_ns": pl.Int64,
        "span_ns": pl.Int64, "busy_ns": pl.Int64, "utilization_pct": pl.Float64, "ops": pl.Int64,
    }
    return pl.DataFrame(rows, schema=schema)


def utilization_windows(
    report: TimelineReport,
    *,
    windows: int = 100,
    window_ns: int | None = None,
    t0: int | None = None,
    t1: int | None = None,
) -> pl.DataFrame:
    """Utilisation of each device in consecutive equal windows of [t0, t1).

    The range defaults to the report's span; give either a number of ``windows`` or their
    length ``window_ns``. Columns: device, window, start_ns, end_ns, busy_ns, utilization_pct.
    """
    lo = report.start_ns if t0 is None else t0
    hi = report.end_ns if t1 is None else t1
    if hi <= lo:
        hi = lo + 1
    if window_ns is not None and window_ns > 0:
        n = max(1, -(-(hi - lo) // window_ns))
        edges = [min(lo + i * window_ns, hi) for i in range(n + 1)]
    else:
        n = max(1, windows)
        edges = [lo + (hi - lo) * i // n for i in range(n + 1)]
    edge_s = pl.Series(edges, dtype=pl.Int64)
    parts = []
    for dev, cov in report.device_busy.items():
        busy = cov.busy_per_bin(edge_s)
        parts.append(
            pl.DataFrame({
                "device": pl.Series([dev] * n, dtype=pl.Int64),
                "window": pl.Series(range(n), dtype=pl.Int64),
                "start_ns": edge_s.slice(0, n), "end_ns": edge_s.slice(1, n), "busy_ns": busy,
            })
        )
    if not parts:
        return pl.DataFrame(schema={
            "device": pl.Int64, "window": pl.Int64, "start_ns": pl.Int64, "end_ns": pl.Int64,
            "busy_ns": pl.Int64, "utilization_pct": pl.Float64,
        })
    out = pl.concat(parts)
    width = (pl.col("end_ns") - pl.col("start_ns")).cast(pl.Float64)
    return out.with_columns(
        pl.when(width > 0).then(100.0 * pl.col("busy_ns") / width).otherwise(0.0)
        .alias("utilization_pct")
    )


def idle_gaps(report: TimelineReport, min_gap_ns: int = 0) -> pl.DataFrame:
    """Every idle gap of at least ``min_gap_ns`` on every device, in time order.

    Columns: device, start_ns, end_ns, duration_ns.
    """
    parts = []
    for dev, cov in report.device_busy.items():
        g = cov.gaps()
        parts.append(
            g.filter(pl.col("duration") >= max(min_gap_ns, 1)).select(
                pl.lit(dev, pl.Int64).alias("device"),
                pl.col("start").alias("start_ns"),
                pl.col("end").alias("end_ns"),
                pl.col("duration").alias("duration_ns"),
            )
        )
    if not parts:
        return pl.DataFrame(schema={"device": pl.Int64, "start_ns": pl.Int64,
                                    "end_ns": pl.Int64, "duration_ns": pl.Int64})
    return pl.concat(parts).sort("start_ns", "device")


def gap_histogram(gaps: pl.DataFrame) -> pl.DataFrame:
    """Gap count and total idle time per decade of gap size (from :func:`idle_gaps`).

    Columns: device, bucket (label), upper_ns (null for the last bucket), gaps, total_ns.
    Every bucket is listed for every device, empty ones with zeros.
    """
    edges = list(GAP_BUCKETS_NS)
    bucket = pl.lit(len(edges), pl.Int64)
    for i, upper in reversed(list(enumerate(edges))):
        bucket = pl.when(pl.col("duration_ns") < upper).then(i).otherwise(bucket)
    counted = (
        gaps.with_columns(bucket.alias("b"))
        .group_by("device", "b")
        .agg(pl.len().cast(pl.Int64).alias("gaps"), pl.col("duration_ns").sum().alias("total_ns"))
    )
    devices = sorted(set(gaps["device"].to_list()))
    frame = pl.DataFrame(
        {
            "device": [d for d in devices for _ in _BUCKET_LABELS],
            "b": [i for _ in devices for i in range(len(_BUCKET_LABELS))],
        },
        schema={"device": pl.Int64, "b": pl.Int64},
    )
    uppers = [*edges, None]
    return (
        frame.join(counted, on=["device", "b"], how="left", maintain_order="left")
        .with_columns(
            pl.col("b").replace_strict(dict(enumerate(_BUCKET_LABELS)), return_dtype=pl.String)
            .alias("bucket"),
            pl.col("b").replace_strict(dict(enumerate(uppers)), return_dtype=pl.Int64)
            .alias("upper_ns"),
            pl.col("gaps").fill_null(0),
            pl.col("total_ns").fill_null(0),
        )
        .select("device", "bucket", "upper_ns", "gaps", "total_ns")
    )


def launch_gaps(report: TimelineReport) -> pl.DataFrame:
    """Spacing of consecutive kernels on each stream.

    Columns: device, stream, kernels, median_gap_ns (next start - previous end, clipped at
    0), median_interval_ns (start to start), median_kernel_ns (duration).
    """
    by = ["device_id", "stream_id"]
    k = report.kernels.select(*by, "start", "end").sort([*by, "start"])
    same = pl.all_horizontal([pl.col(c) == pl.col(c).shift(1) for c in by]).fill_null(False)
    return (
        k.lazy()
        .with_columns(
            pl.when(same).then((pl.col("start") - pl.col("end").shift(1)).clip(lower_bound=0))
            .alias("gap"),
            pl.when(same).then(pl.col("start") - pl.col("start").shift(1)).alias("interval"),
            (pl.col("end") - pl.col("start")).alias("dur"),
        )
        .group_by(by)
        .agg(
            pl.len().cast(pl.Int64).alias("kernels"),
            pl.col("gap").median().alias("median_gap_ns"),
            pl.col("interval").median().alias("median_interval_ns"),
            pl.col("dur").median().alias("median_kernel_ns"),
        )
        .sort(by)
        .rename({"device_id": "device", "stream_id": "stream"})
        .collect(engine="in-memory")
    )
