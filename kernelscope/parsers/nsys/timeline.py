"""Precomputed lanes for drawing a zoomable timeline cheaply.

:class:`TimelineIndex` is built once per report (one pass over every event); after that,
each redraw for a window [t0, t1) and a width in columns costs a few binary searches per
lane, independent of the number of events, so zoom and pan stay well under 100 ms even for
a million kernels.

Lanes, in display order: for each device an ``all`` lane (everything on the device merged)
followed by one lane per stream (kernels, memcpys and memsets of that stream); then for each
CPU thread an NVTX lane (union of its ranges) and a CUDA API lane (union of its calls).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import polars as pl

from kernelscope.parsers.nsys.gap_causes import DEFAULT_LARGE_GAP_NS
from kernelscope.parsers.nsys.intervals import Coverage, merge_intervals
from kernelscope.parsers.nsys.model import NsysReport
from kernelscope.parsers.nsys.nvtx import nvtx_ranges
from kernelscope.parsers.nsys.utilization import idle_gaps


@dataclass(frozen=True)
class Lane:
    """One horizontal row of the timeline."""

    key: str  # stable id, e.g. "gpu0", "gpu0/s7", "nvtx/1234", "cuda/1234"
    label: str  # what to print at the left, e.g. "GPU 0 stream 7"
    kind: str  # "gpu", "stream", "nvtx" or "cuda-api"
    coverage: Coverage
    device: int | None = None
    stream: int | None = None
    tid: int | None = None
    pid: int | None = None
    events: int = 0


@dataclass(frozen=True)
class TimelineView:
    """Busy fractions for one window: ``busy[lane.key][column]`` in [0, 1]."""

    t0: int
    t1: int
    width: int
    edges: list[int]  # width + 1 column boundaries
    busy: dict[str, list[float]] = field(default_factory=dict)

    def column_of(self, t: int) -> int | None:
        """The column that time ``t`` falls in, or None outside the window."""
        if not self.t0 <= t < self.t1:
            return None
        return min(int((t - self.t0) * self.width // (self.t1 - self.t0)), self.width - 1)


@dataclass(frozen=True)
class Gap:
    """An idle gap of one device."""

    device: int
    start_ns: int
    end_ns: int

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns


def _coverages(df: pl.DataFrame, by: list[str]) -> dict[tuple[int, ...], tuple[Coverage, int]]:
    """Merged coverage and event count per group of ``by``."""
    if not df.height:
        return {}
    counts = df.group_by(by).len()
    count_of = {tuple(r[:-1]): r[-1] for r in counts.iter_rows()}
    merged = merge_intervals(df, by)
    out: dict[tuple[int, ...], tuple[Coverage, int]] = {}
    for key, part in merged.partition_by(by, as_dict=True, maintain_order=True).items():
        starts = part["start"]
        ends = part["end"]
        lengths = ends - starts
        cov = Coverage(starts, ends, (lengths.cum_sum() - lengths).rename("before"))
        out[tuple(int(k) for k in key)] = (cov, int(count_of.get(tuple(key), 0)))
    return out


class TimelineIndex:
    """Everything a timeline screen needs, precomputed from a report."""

    def __init__(self, report: NsysReport, *, large_gap_ns: int = DEFAULT_LARGE_GAP_NS) -> None:
        self.report = report
        self.start_ns = report.start_ns
        self.end_ns = report.end_ns
        self.large_gap_ns = large_gap_ns
        self.lanes: list[Lane] = []
        ops = report.gpu_ops
        dev_counts = dict(ops.group_by("device_id").len().iter_rows())
        per_device = {(d,): (cov, int(dev_counts.get(d, 0)))
                      for d, cov in report.device_busy.items()}
        per_stream = _coverages(ops, ["device_id", "stream_id"])
        for (dev,), (cov, n) in sorted(per_device.items()):
            self.lanes.append(Lane(f"gpu{dev}", f"{report.device_name(dev)} ({dev})", "gpu",
                                   cov, device=dev, events=n))
            for (d, stream), (scov, sn) in sorted(per_stream.items()):
                if d == dev:
                    self.lanes.append(Lane(f"gpu{dev}/s{stream}", f"  stream {stream}", "stream",
                                           scov, device=dev, stream=stream, events=sn))
        nvtx = nvtx_ranges(report).filter(pl.col("global_tid").is_not_null())
        nvtx_cov = _coverages(nvtx, ["global_tid"])
        api_cov = _coverages(report.cuda_api.filter(pl.col("global_tid").is_not_null()),
                             ["global_tid"])
        for gtid in sorted(set(nvtx_cov) | set(api_cov)):
            tid = gtid[0] % (1 << 24)
            pid = (gtid[0] >> 24) % (1 << 24)
            name = report.threads.get(gtid[0], "")
            who = f"{name} [{tid}]" if name else f"thread {tid}"
            if gtid in nvtx_cov:
                cov, n = nvtx_cov[gtid]
                self.lanes.append(Lane(f"nvtx/{tid}", f"NVTX {who}", "nvtx", cov,
                                       tid=tid, pid=pid, events=n))
            if gtid in api_cov:
                cov, n = api_cov[gtid]
                self.lanes.append(Lane(f"cuda/{tid}", f"CUDA API {who}", "cuda-api", cov,
                                       tid=tid, pid=pid, events=n))
        self._lane_by_key = {lane.key: lane for lane in self.lanes}
        gaps = idle_gaps(report, large_gap_ns).sort("start_ns", "device")
        self._gaps = gaps

    @cached_property
    def _ops(self) -> pl.DataFrame:
        """Every GPU operation with its name, sorted by start (built on first use)."""
        return self._ops_frame(self.report)

    @cached_property
    def _max_op_ns(self) -> int:
        return int(self._ops.select((pl.col("end") - pl.col("start")).max()).item() or 0)

    @staticmethod
    def _ops_frame(report: NsysReport) -> pl.DataFrame:
        cols = ["start", "end", "device_id", "stream_id", "correlation_id"]
        parts = [
            report.kernels.select(pl.lit("kernel").alias("kind"), *cols,
                                  pl.col("name").cast(pl.Categorical)),
            report.memcpy.select(pl.lit("memcpy").alias("kind"), *cols,
                                 pl.col("operation").cast(pl.Categorical).alias("name")),
            report.memset.select(pl.lit("memset").alias("kind"), *cols,
                                 pl.col("operation").cast(pl.Categorical).alias("name")),
        ]
        return pl.concat(parts, how="vertical_relaxed").sort("start")

    # -- drawing ---------------------------------------------------------------------------
    def lane(self, key: str) -> Lane:
        return self._lane_by_key[key]

    def edges(self, t0: int, t1: int, width: int) -> pl.Series:
        """``width + 1`` integer column boundaries spanning [t0, t1)."""
        width = max(int(width), 1)
        span = max(t1 - t0, 1)
        return pl.Series([t0 + span * i // width for i in range(width + 1)], dtype=pl.Int64)

    def render(
        self, t0: int, t1: int, width: int, lanes: list[str] | None = None
    ) -> TimelineView:
        """Busy fraction per column for each lane (all lanes, or those keys in ``lanes``)."""
        if t1 <= t0:
            t1 = t0 + 1
        edge_s = self.edges(t0, t1, width)
        widths = edge_s.diff().slice(1).cast(pl.Float64)
        widths = widths.zip_with(widths > 0, pl.Series([1.0] * widths.len()))
        busy: dict[str, list[float]] = {}
        for lane in self.lanes if lanes is None else [self._lane_by_key[k] for k in lanes]:
            per = lane.coverage.busy_per_bin(edge_s).cast(pl.Float64) / widths
            busy[lane.key] = per.clip(0.0, 1.0).to_list()
        return TimelineView(t0, t1, max(int(width), 1), edge_s.to_list(), busy)

    def sparkline(
        self, t0: int, t1: int, width: int, device: int | None = None
    ) -> list[float]:
        """GPU utilisation per column in [0, 1]: one device, or the mean over devices."""
        keys = [ln.key for ln in self.lanes if ln.kind == "gpu"
                and (device is None or ln.device == device)]
        if not keys:
            return [0.0] * max(int(width), 1)
        view = self.render(t0, t1, width, keys)
        cols = zip(*(view.busy[k] for k in keys), strict=True)
        return [sum(c) / len(keys) for c in cols]

    # -- navigation ------------------------------------------------------------------------
    def large_gaps(self, device: int | None = None) -> list[Gap]:
        g = self._gaps if device is None else self._gaps.filter(pl.col("device") == device)
        return [Gap(d, s, e) for d, s, e, _ in g.iter_rows()]

    def next_gap(self, t: int, device: int | None = None) -> Gap | None:
        """The first large gap starting strictly after ``t``."""
        g = self._gaps if device is None else self._gaps.filter(pl.col("device") == device)
        i = int(g["start_ns"].search_sorted(t, side="right"))  # type: ignore[arg-type]
        if i >= g.height:
            return None
        d, s, e, _ = g.row(i)
        return Gap(d, s, e)

    def previous_gap(self, t: int, device: int | None = None) -> Gap | None:
        """The last large gap starting strictly before ``t``."""
        g = self._gaps if device is None else self._gaps.filter(pl.col("device") == device)
        i = int(g["start_ns"].search_sorted(t, side="left")) - 1  # type: ignore[arg-type]
        if i < 0:
            return None
        d, s, e, _ = g.row(i)
        return Gap(d, s, e)

    def ops_between(
        self,
        t0: int,
        t1: int,
        *,
        device: int | None = None,
        stream: int | None = None,
        limit: int = 1000,
    ) -> pl.DataFrame:
        """GPU operations overlapping [t0, t1), by start (columns kind, start, end,
        device_id, stream_id, correlation_id, name); at most ``limit`` rows."""
        starts = self._ops["start"]
        lo = int(starts.search_sorted(t0 - self._max_op_ns, side="left"))  # type: ignore[arg-type]
        hi = int(starts.search_sorted(t1, side="left"))  # type: ignore[arg-type]
        window = self._ops.slice(lo, max(hi - lo, 0)).filter(pl.col("end") > t0)
        if device is not None:
            window = window.filter(pl.col("device_id") == device)
        if stream is not None:
            window = window.filter(pl.col("stream_id") == stream)
        return window.head(limit).with_columns(pl.col("name").cast(pl.String))


__all__ = ["Gap", "Lane", "TimelineIndex", "TimelineView"]
