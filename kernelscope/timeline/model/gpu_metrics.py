"""GPU metrics sampled by ``nsys profile --gpu-metrics-devices=…``: which ones are read and how.

nsys samples the GPU's own counters (SMs active, SM issue, tensor active, warps in flight,
DRAM and PCIe bandwidth, clocks) at ``--gpu-metrics-frequency`` (10 kHz by default) into
``GPU_METRICS`` (``timestamp``, ``typeId``, ``metricId``, ``value``), the names in
``TARGET_INFO_GPU_METRICS`` (``typeId``, ``metricId``, ``metricName``). Each ``typeId`` is one
sampled GPU; its low byte is the device id (as NVIDIA's ``gpu_metric_util_map`` recipe reads
it). A sample at ``t`` holds the counters over [t, t + period): on the H200 sample its SMs
Active follows the kernels' busy share of the following 100 µs (correlation 0.999) and not of
the preceding one (0.97).

Only the metrics in :data:`METRICS` are read (a 22-metric H200 capture reads 12 of them), with
a ``WHERE`` on their ids, columnar through the export reader. Each becomes a
:class:`MetricSeries` per device: sorted timestamps and values plus running sums, so the mean
over any window is two binary searches (:meth:`MetricSeries.window_means`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

import polars as pl

METRICS_TABLE = "GPU_METRICS"
NAMES_TABLE = "TARGET_INFO_GPU_METRICS"


@dataclass(frozen=True)
class MetricSpec:
    """A metric kernelscope reads: its key, its label, and the nsys names it goes by."""

    key: str
    label: str
    pattern: str  # regex on the name before " [unit]" (names differ between GPUs)
    unit: str  # "%" or "MHz"
    lane: bool = False  # shown as a timeline lane by default


METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("sm_active", "SMs Active", r"^SMs? Active$", "%", lane=True),
    MetricSpec("sm_issue", "SM Issue", r"^SM Issue$", "%", lane=True),
    MetricSpec("tensor_active", "Tensor Active", r"^Tensor( Active| Pipe Active|.*Active)",
               "%", lane=True),
    MetricSpec("dram_read", "DRAM Read", r"^DRAM Read Bandwidth$", "%", lane=True),
    MetricSpec("dram_write", "DRAM Write", r"^DRAM Write Bandwidth$", "%"),
    MetricSpec("gr_active", "GR Active", r"^GR Active$", "%"),
    MetricSpec("warps_in_flight", "Compute Warps in Flight",
               r"^Compute Warps in Flight$", "%"),
    MetricSpec("unallocated_warps", "Unallocated Warps in Active SMs",
               r"^Unallocated Warps in Active SMs$", "%"),
    MetricSpec("pcie_rx", "PCIe RX", r"^PCIe RX Throughput$", "%"),
    MetricSpec("pcie_tx", "PCIe TX", r"^PCIe TX Throughput$", "%"),
    MetricSpec("nvlink_rx", "NVLink RX", r"^NVLink RX (Throughput|Bandwidth)", "%"),
    MetricSpec("nvlink_tx", "NVLink TX", r"^NVLink TX (Throughput|Bandwidth)", "%"),
    MetricSpec("gpc_clock", "GPC Clock", r"^GPC Clock Frequency$", "MHz"),
    MetricSpec("sys_clock", "SYS Clock", r"^SYS Clock Frequency$", "MHz"),
)
SPECS = {m.key: m for m in METRICS}
DEFAULT_LANES: tuple[str, ...] = tuple(m.key for m in METRICS if m.lane)
HZ_IN_MHZ = 100_000
"""A value above this under a ``[MHz]`` name is in Hz (nsys 2025 stores 1,980,086,250 for the
H200's 1980 MHz clock); it is divided by 10^6."""

TIME_LIMIT = 1 << 61  # ns: a timestamp beyond is a damaged value (as for the events)
_UNIT = re.compile(r"\s*\[(?P<unit>[^\]]*)\]\s*$")


def split_name(name: str) -> tuple[str, str]:
    """``"SM Issue [Throughput %]"`` -> ``("SM Issue", "Throughput %")``."""
    match = _UNIT.search(name)
    if match is None:
        return name.strip(), ""
    return name[: match.start()].strip(), match["unit"]


def spec_for(name: str) -> MetricSpec | None:
    """The spec a metric name belongs to (only throughput-% and frequency variants: the
    ``[Avg]``/``[Avg Warps per Cycle]`` variants of the warp metrics are not read)."""
    stem, unit = split_name(name)
    for spec in METRICS:
        wanted = "MHz" if spec.unit == "MHz" else "Throughput %"
        if unit == wanted and re.search(spec.pattern, stem):
            return spec
    return None


@dataclass(frozen=True)
class CatalogEntry:
    """One row of TARGET_INFO_GPU_METRICS."""

    type_id: int
    metric_id: int
    name: str
    device: int
    key: str | None  # the spec read for it, None when not read


@dataclass(frozen=True)
class MetricSeries:
    """One metric of one device: samples sorted by time, with running sums.

    Sample ``i`` holds the value over [t_i, t_i + d_i), d_i the distance to the next sample
    (at most twice the median period; the last one the median period).
    """

    device: int
    key: str
    name: str  # as nsys names it, e.g. "SM Issue [Throughput %]"
    times: pl.Series  # Int64, sorted
    values: pl.Series  # Float64

    @property
    def spec(self) -> MetricSpec:
        return SPECS[self.key]

    @property
    def count(self) -> int:
        return self.times.len()

    @cached_property
    def period_ns(self) -> int:
        if self.count < 2:
            return 0
        return int(self.times.diff().drop_nulls().median())  # type: ignore[arg-type]

    @cached_property
    def _durations(self) -> pl.Series:
        if not self.count:
            return pl.Series([], dtype=pl.Int64)
        nxt = self.times.shift(-1).fill_null(self.times[-1] + self.period_ns)
        cap = 2 * self.period_ns
        durations: pl.Series = (nxt - self.times).clip(upper_bound=cap if cap > 0 else None)
        out: pl.Series = durations.cast(pl.Int64)
        return out

    @cached_property
    def _value_prefix(self) -> pl.Series:
        """Sum of values of samples before i (len count + 1)."""
        return pl.concat([pl.Series([0.0]), self.values.cum_sum()])

    @cached_property
    def _integral_prefix(self) -> tuple[pl.Series, pl.Series]:
        """Integral of value·dt and covered time before sample i (len count + 1)."""
        d = self._durations.cast(pl.Float64)
        return (pl.concat([pl.Series([0.0]), (self.values * d).cum_sum()]),
                pl.concat([pl.Series([0.0]), d.cum_sum()]))

    def sums_in(self, starts: pl.Series, ends: pl.Series) -> tuple[pl.Series, pl.Series]:
        """For each [start, end): the sum and count of the samples whose timestamp falls in
        it (binary inclusion, as NVIDIA's ``gpu_metric_util_sum`` recipe counts them)."""
        lo = self.times.search_sorted(starts.cast(pl.Int64), side="left").cast(pl.Int64)
        hi = self.times.search_sorted(ends.cast(pl.Int64), side="left").cast(pl.Int64)
        prefix = self._value_prefix
        return prefix.gather(hi) - prefix.gather(lo), (hi - lo)

    def _integral_until(self, t: pl.Series) -> tuple[pl.Series, pl.Series]:
        t = t.cast(pl.Int64)
        area, cover = self._integral_prefix
        idx = self.times.search_sorted(t, side="right").cast(pl.Int64) - 1
        safe = idx.clip(lower_bound=0)
        inside = (t - self.times.gather(safe)).clip(lower_bound=0)
        inside = inside.zip_with(inside < self._durations.gather(safe),
                                 self._durations.gather(safe)).cast(pl.Float64)
        before = idx >= 0
        zero = pl.zeros(t.len(), pl.Float64, eager=True)
        a = (area.gather(safe) + self.values.gather(safe) * inside).zip_with(before, zero)
        c = (cover.gather(safe) + inside).zip_with(before, zero)
        return a, c

    def integrals(self, starts: pl.Series, ends: pl.Series) -> tuple[pl.Series, pl.Series]:
        """For each [start, end): the integral of the sampled value over it (value × ns) and
        the time of it the samples cover (ns), for time-weighted means over many windows."""
        if not self.count:
            zero = pl.zeros(starts.len(), pl.Float64, eager=True)
            return zero, zero
        area_0, cover_0 = self._integral_until(starts)
        area_1, cover_1 = self._integral_until(ends)
        return area_1 - area_0, cover_1 - cover_0

    def window_means(self, edges: pl.Series) -> list[float | None]:
        """Time-weighted mean of the sampled value over each [edges[i], edges[i+1]) (None
        where no sample covers any of it): what a lane column shows, at any zoom."""
        if not self.count or edges.len() < 2:
            return [None] * max(edges.len() - 1, 0)
        area, cover = self._integral_until(edges)
        da = area.diff().slice(1)
        dc = cover.diff().slice(1)
        return [a / c if c > 0 else None for a, c in zip(da.to_list(), dc.to_list(), strict=True)]

    def value_at(self, t: int) -> float | None:
        """The value of the sample covering ``t`` (None outside every sample)."""
        if not self.count:
            return None
        i = int(self.times.search_sorted(t, side="right")) - 1
        if i < 0 or t >= int(self.times[i]) + int(self._durations[i]):
            return None
        return float(self.values[i])


@dataclass
class GpuMetrics:
    """The GPU metrics of a report: every metric nsys sampled (``names``) and the series read.

    ``series`` maps (device, key) to its samples; ``available`` lists every metric of the
    export, read or not, per device.
    """

    series: dict[tuple[int, str], MetricSeries] = field(default_factory=dict)
    available: list[CatalogEntry] = field(default_factory=list)

    @property
    def present(self) -> bool:
        return bool(self.series)

    @property
    def devices(self) -> list[int]:
        return sorted({d for d, _ in self.series})

    @property
    def sample_count(self) -> int:
        return sum(s.count for s in self.series.values())

    def get(self, device: int, key: str) -> MetricSeries | None:
        return self.series.get((device, key))

    def keys(self, device: int | None = None) -> list[str]:
        """The keys read, in :data:`METRICS` order (for one device, or any)."""
        have = {k for d, k in self.series if device is None or d == device}
        return [m.key for m in METRICS if m.key in have]


def build(raw: pl.DataFrame | None, entries: list[CatalogEntry]) -> GpuMetrics:
    """Split the samples read by :func:`read_task` into one series per device and metric."""
    out = GpuMetrics(available=entries)
    if raw is None or not raw.height:
        return out
    chosen = {(e.type_id, e.metric_id): e for e in entries if e.key}
    frame = raw.filter(pl.col("timestamp").is_between(-TIME_LIMIT, TIME_LIMIT, closed="none")
                       & pl.col("value").is_not_null() & pl.col("value").is_finite())
    for (type_id, metric_id), part in frame.partition_by(
        ["type_id", "metric_id"], as_dict=True, maintain_order=False
    ).items():
        entry = chosen.get((int(type_id), int(metric_id)))  # type: ignore[call-overload]
        if entry is None or entry.key is None:
            continue
        if not part["timestamp"].is_sorted():
            part = part.sort("timestamp")
        values = part["value"]
        if SPECS[entry.key].unit == "MHz" and values.max() > HZ_IN_MHZ:  # type: ignore[operator]
            values = values / 1e6
        key = (entry.device, entry.key)
        # One device sampled under two type ids: keep the larger series.
        if key in out.series and out.series[key].count >= part.height:
            continue
        out.series[key] = MetricSeries(entry.device, entry.key, entry.name,
                                       part["timestamp"].rename("timestamp"),
                                       values.rename("value"))
    out.series = dict(sorted(out.series.items(),
                             key=lambda kv: (kv[0][0], list(SPECS).index(kv[0][1]))))
    return out


__all__ = [
    "DEFAULT_LANES",
    "METRICS",
    "CatalogEntry",
    "GpuMetrics",
    "MetricSeries",
    "MetricSpec",
    "build",
    "spec_for",
    "split_name",
]
