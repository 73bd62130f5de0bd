"""What the sampled GPU metrics say: over the capture, per kernel family, per NVTX range, and
one verdict per device in the method's order.

Means "while X ran" count the samples whose timestamp falls inside X (binary inclusion, as
NVIDIA's ``gpu_metric_util_sum`` recipe does): the union of a kernel family's launches on a
device (overlapping launches count a sample once), the union of an NVTX range's instances, or
the device's busy intervals (any kernel, memcpy or memset). A family whose launches are all
shorter than the sampling period may hold no sample; ``samples`` says how many support each
mean.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from kernelscope.core.findings import Evidence, Evidenced
from kernelscope.core.shares import fmt_percent
from kernelscope.timeline.analysis.nvtx import nvtx_ranges, operation
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS, TimelineThresholds
from kernelscope.timeline.model.gpu_metrics import SPECS, GpuMetrics, MetricSeries
from kernelscope.timeline.model.intervals import merge_intervals
from kernelscope.timeline.model.model import TimelineReport
from kernelscope.timeline.model.profilers import gpu_metrics_hint

RANGE_KEYS: tuple[str, ...] = ("sm_active", "sm_issue", "tensor_active", "dram_read",
                               "dram_write")
"""The metrics the per-family and per-range tables show (DRAM bandwidth is read + write)."""



def metric_summary(gm: GpuMetrics) -> pl.DataFrame:
    """Per device and metric over the whole capture: device, key, name, unit, mean, p50, p95,
    min, max, samples (p50/p95 linearly interpolated)."""
    rows = []
    for (device, key), s in sorted(gm.series.items(),
                                   key=lambda kv: (kv[0][0], list(SPECS).index(kv[0][1]))):
        v = s.values
        rows.append({
            "device": device, "key": key, "name": s.name, "unit": SPECS[key].unit,
            "mean": v.mean(), "p50": v.quantile(0.5, "linear"),
            "p95": v.quantile(0.95, "linear"), "min": v.min(), "max": v.max(),
            "samples": s.count,
        })
    schema = {"device": pl.Int64, "key": pl.String, "name": pl.String, "unit": pl.String,
              "mean": pl.Float64, "p50": pl.Float64, "p95": pl.Float64, "min": pl.Float64,
              "max": pl.Float64, "samples": pl.Int64}
    return pl.DataFrame(rows, schema=schema)


def _grouped_means(series: MetricSeries, intervals: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Sum and count of the samples inside each group's (merged) intervals."""
    total, count = series.sums_in(intervals["start"], intervals["end"])
    return (
        intervals.select(by)
        .with_columns(total.alias("sum"), count.alias("n"))
        .group_by(by, maintain_order=True)
        .agg(pl.col("sum").sum(), pl.col("n").sum())
    )


def means_by_group(
    gm: GpuMetrics, intervals: pl.DataFrame, by: list[str], keys: tuple[str, ...] = RANGE_KEYS
) -> pl.DataFrame:
    """Per group (``by`` columns plus ``device``) of [start, end) intervals: ``samples`` and
    the mean of each metric in ``keys`` over the samples inside them (null without any).

    ``intervals`` needs columns ``device``, ``start``, ``end`` and ``by``; each group's
    intervals are merged first so overlapping ones count a sample once.
    """
    groups = [*by, "device"]
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        **{c: intervals.schema[c] for c in groups}, "samples": pl.Int64,
        **{k: pl.Float64 for k in keys},
    }
    parts = []
    for (device,), sub in intervals.group_by(["device"], maintain_order=True):
        merged = merge_intervals(sub, by).with_columns(pl.lit(device).alias("device"))
        merged = merged.cast({"device": intervals.schema["device"]})
        out = merged.select(groups).unique(maintain_order=True)
        samples: pl.DataFrame | None = None
        for key in keys:
            s = gm.get(int(device), key)  # type: ignore[arg-type]
            if s is None:
                out = out.with_columns(pl.lit(None, pl.Float64).alias(key))
                continue
            sums = _grouped_means(s, merged, groups)
            mean = pl.when(pl.col("n") > 0).then(pl.col("sum") / pl.col("n"))
            out = out.join(sums.select(*groups, mean.alias(key)), on=groups, how="left",
                           maintain_order="left")
            if samples is None:
                samples = sums.select(*groups, pl.col("n").cast(pl.Int64).alias("samples"))
        if samples is None:
            out = out.with_columns(pl.lit(0, pl.Int64).alias("samples"))
        else:
            out = out.join(samples, on=groups, how="left", maintain_order="left")
        parts.append(out.select(list(schema)))
    if not parts:
        return pl.DataFrame(schema=schema)
    return pl.concat(parts).cast(schema)  # type: ignore[arg-type]


def _with_dram(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns((pl.col("dram_read") + pl.col("dram_write")).alias("dram"))


def family_metrics(report: TimelineReport) -> pl.DataFrame:
    """Per kernel name and device: instances, total_ns, samples and the mean SM active, SM
    issue, tensor active, DRAM read, write and read + write (``dram``) while its launches
    ran; by total time, largest first."""
    gm = report.gpu_metrics
    # no sampled device: no row (the same columns), without the grouping or the names' cast
    kernels = report.kernels if gm.devices else report.kernels.clear()
    k = kernels.select(pl.col("name").cast(pl.String), pl.col("device_id").alias("device"),
                       "start", "end")
    stats = k.group_by("name", "device").agg(
        pl.len().cast(pl.Int64).alias("instances"),
        (pl.col("end") - pl.col("start")).sum().alias("total_ns"),
    )
    means = means_by_group(gm, k.filter(pl.col("device").is_in(gm.devices)), ["name"])
    out = stats.join(means, on=["name", "device"], how="inner")
    return _with_dram(out).sort(["total_ns", "name"], descending=[True, False])


def nvtx_metrics(report: TimelineReport) -> pl.DataFrame:
    """Per NVTX operation (``nvtx.operation``) and sampled device: instances, total_ns,
    samples and the same means while its ranges were open; by total time, largest first."""
    gm = report.gpu_metrics
    ranges = nvtx_ranges(report).select(operation(pl.col("range")), "start", "end")
    if not ranges.height or not gm.devices:
        means = means_by_group(gm, pl.DataFrame(schema={"range": pl.String, "device": pl.Int64,
                                                        "start": pl.Int64, "end": pl.Int64}),
                               ["range"])
        return _with_dram(means.with_columns(pl.lit(0, pl.Int64).alias("instances"),
                                             pl.lit(0, pl.Int64).alias("total_ns")))
    stats = ranges.group_by("range").agg(
        pl.len().cast(pl.Int64).alias("instances"),
        (pl.col("end") - pl.col("start")).sum().alias("total_ns"),
    )
    per_device = pl.concat([ranges.with_columns(pl.lit(d, pl.Int64).alias("device"))
                            for d in gm.devices])
    means = means_by_group(gm, per_device, ["range"])
    out = stats.join(means, on="range", how="inner")
    return _with_dram(out).sort(["total_ns", "range", "device"], descending=[True, False, False])


def busy_metrics(report: TimelineReport, keys: tuple[str, ...] = RANGE_KEYS) -> pl.DataFrame:
    """Per sampled device: samples and the metric means while any GPU operation ran."""
    gm = report.gpu_metrics
    rows = []
    for device, cov in report.device_busy.items():
        if device in gm.devices:
            rows.append(pl.DataFrame({"device": device, "start": cov.starts,
                                      "end": cov.ends, "busy": "busy"}))
    if not rows:
        empty = pl.DataFrame(schema={"busy": pl.String, "device": pl.Int64, "start": pl.Int64,
                                     "end": pl.Int64})
        return _with_dram(means_by_group(gm, empty, ["busy"], keys)).drop("busy")
    frame = pl.concat(rows).cast({"device": pl.Int64})
    return _with_dram(means_by_group(gm, frame, ["busy"], keys)).drop("busy")


_UNITS = {"gpu_busy_pct": "%", "samples": "sample", "sm_active": "%", "sm_issue": "%",
          "tensor_active": "%", "dram": "%"}
"""The unit of each reading a verdict rests on."""


@dataclass(frozen=True)
class MetricsVerdict(Evidenced):
    """What the GPU metrics say about one device (or that the report has none): a label, like
    a kernel's bottleneck, resting on the readings in the findings model's ``Evidence``."""

    device: int | None
    label: str  # no-metrics, few-samples, gpu-idle, sm-underfilled, dram-bound,
    #             kernels-slow, compute-busy
    sentence: str
    evidence: tuple[Evidence, ...] = ()

    def reading(self, name: str) -> float | None:
        """The value of the reading ``name`` (e.g. ``samples``), None when not read."""
        return next((e.value for e in self.evidence if e.metric == name), None)

    def as_dict(self) -> dict[str, object]:
        return {"device": self.device, "label": self.label, "sentence": self.sentence,
                "evidence": {e.metric: e.value for e in self.evidence}}


def _readings(values: dict[str, float | int | None]) -> tuple[Evidence, ...]:
    return tuple(Evidence("gpu metrics", name, value, unit=_UNITS.get(name, ""))
                 for name, value in values.items())


def metrics_verdicts(
    report: TimelineReport,
    utilization: pl.DataFrame,
    thresholds: TimelineThresholds = TIMELINE_THRESHOLDS,
) -> list[MetricsVerdict]:
    """One verdict per sampled device, in the method's order: is the GPU busy at all (time
    share), then do the kernels fill the SMs (launch), then DRAM, then the SMs' issue rate
    (SM issue below ``metrics_busy_pct`` -> the kernels themselves are slow).
    ``utilization`` is :func:`gpu_utilization`'s frame (busy share of each device's span)."""
    gm = report.gpu_metrics
    if not gm.present:
        return [MetricsVerdict(None, "no-metrics",
                               f"This report has no GPU metrics: "
                               f"{gpu_metrics_hint(report.profiler)}.")]
    busy_pct = dict(zip(utilization["device"].to_list(),
                        utilization["utilization_pct"].to_list(), strict=True))
    sm_count = {d.id: d.sm_count for d in report.devices}
    out = []
    busy = busy_metrics(report)
    by_device = {row["device"]: row for row in busy.iter_rows(named=True)}
    for device in gm.devices:
        row = by_device.get(device, {})
        pct = busy_pct.get(device)
        ev: dict[str, float | int | None] = {
            "gpu_busy_pct": pct, "samples": row.get("samples", 0),
            **{k: row.get(k) for k in ("sm_active", "sm_issue", "tensor_active", "dram")},
        }
        out.append(MetricsVerdict(device, *_decide(ev, sm_count.get(device), thresholds),
                                  _readings(ev)))
    return out


def _decide(ev: dict[str, float | int | None], sms: int | None,
            t: TimelineThresholds) -> tuple[str, str]:
    pct, n = ev["gpu_busy_pct"], int(ev["samples"] or 0)
    active, issue, dram = ev["sm_active"], ev["sm_issue"], ev["dram"]
    if pct is None or n < t.min_metric_samples or issue is None:
        return ("few-samples",
                f"Only {n} GPU metric samples fall while the GPU was busy: too few to judge "
                "the kernels; raise `--gpu-metrics-frequency` (Hz) or profile a longer run.")
    sm_active, sm_issue, dram_pct = (fmt_percent(v, 0) for v in (active, issue, dram))
    head = f"GPU {fmt_percent(float(pct), 0)} busy"
    inside = f"while busy SMs active {sm_active}, SM issue {sm_issue}, DRAM {dram_pct}"
    if float(pct) < t.metrics_busy_pct:
        return ("gpu-idle",
                f"{head}: most of the time is lost between the kernels (gaps, launches, "
                f"sync), not inside them; fix the gaps first ({inside}).")
    if active is not None and float(active) < t.metrics_sm_active_pct:
        sm_text = f"{sms} SMs" if sms else "the SMs"
        return ("sm-underfilled",
                f"{head} but SMs active {sm_active}: the grids are too small to fill "
                f"{sm_text}; launch more blocks or batch the work ({inside}).")
    if dram is not None and float(dram) >= t.metrics_dram_bound_pct:
        return ("dram-bound",
                f"{head}, DRAM bandwidth {dram_pct}: the kernels are HBM-bound; cut the "
                f"bytes moved (fusion, reuse, lower precision) ({inside}).")
    if float(issue) < t.metrics_busy_pct:
        return ("kernels-slow",
                f"{head} but SM issue {sm_issue}: the kernels themselves are slow, take "
                f"them to Nsight Compute ({inside}).")
    return ("compute-busy",
            f"{head} and SM issue {sm_issue}: the SMs are busy issuing; the kernels' own "
            f"instruction mix decides the rest, take the longest to Nsight Compute ({inside}).")


__all__ = [
    "RANGE_KEYS",
    "MetricsVerdict",
    "busy_metrics",
    "family_metrics",
    "means_by_group",
    "metric_summary",
    "metrics_verdicts",
    "nvtx_metrics",
]
