"""Precomputed lanes for drawing a zoomable timeline cheaply.

:class:`TimelineIndex` is built once per report (one pass over every event); after that,
each redraw for a window [t0, t1) and a width in columns costs a few binary searches per
lane, independent of the number of events, so zoom and pan stay well under 100 ms even for
a million kernels.

Lanes, in display order: for each device an ``all`` lane (everything on the device merged)
followed by one lane per stream (kernels, memcpys and memsets of that stream); then for each
CPU thread one NVTX lane per nesting level (ranges inside ranges go one lane down) and a CUDA
API lane (union of its calls).

Each lane also has its events (``lane_events``: for the cursor, the names drawn where they
fit and the details of one event), built on first use; a lane of another kind (e.g. GPU
metrics) may have none. ``describe`` tells what one event is: its name, times, stream, grid
and block, and the CUDA API call that launched it (or the GPU work a call launched).
"""

from __future__ import annotations

from functools import cache, cached_property
from typing import Any

import polars as pl

from kernelscope.timeline.analysis.lane_events import EVENT_SCHEMA, LaneEvents, nvtx_depths
from kernelscope.timeline.analysis.nvtx import nvtx_ranges
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.analysis.timeline_view import EventInfo, Gap, Lane, TimelineView
from kernelscope.timeline.analysis.utilization import idle_gaps
from kernelscope.timeline.model.intervals import Coverage, merge_intervals
from kernelscope.timeline.model.model import TimelineReport


@cache
def _no_events() -> LaneEvents:
    """The events of a lane without any, made on first use (a frame made at import would start
    polars' thread pool in every program that imports this, and a fork after that hangs)."""
    return LaneEvents.empty()


def _by_correlation(
    frame: pl.DataFrame, correlation: Any, global_id: Any, *, pid_of_tid: bool
) -> dict[str, Any] | None:
    """The row of ``frame`` (sorted by correlation_id) with this correlation id in the same
    process as ``global_id`` (a globalPid or globalTid)."""
    if correlation is None or not frame.height:
        return None
    ids = frame["correlation_id"]
    lo = int(ids.search_sorted(correlation, side="left"))
    hi = int(ids.search_sorted(correlation, side="right"))
    pid = None if global_id is None else (int(global_id) >> 24) % (1 << 24)
    for i in range(lo, hi):
        row = frame.row(i, named=True)
        other = row.get("global_tid") if pid_of_tid else row.get("global_pid")
        if pid is None or other is None or (int(other) >> 24) % (1 << 24) == pid:
            return row
    return None


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

    def __init__(
        self, report: TimelineReport, *, large_gap_ns: int = TIMELINE_THRESHOLDS.large_gap_ns
    ) -> None:
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
        self._nvtx = nvtx.with_columns(nvtx_depths(nvtx)).with_row_index("ref")
        nvtx_cov = _coverages(self._nvtx, ["global_tid", "depth"])
        api_cov = _coverages(report.cuda_api.filter(pl.col("global_tid").is_not_null()),
                             ["global_tid"])
        threads = sorted({k[0] for k in nvtx_cov} | {k[0] for k in api_cov})
        for gtid in threads:
            tid = gtid % (1 << 24)
            pid = (gtid >> 24) % (1 << 24)
            name = report.threads.get(gtid, "")
            who = f"{name} [{tid}]" if name else f"thread {tid}"
            for (nv_tid, depth), (cov, n) in sorted(nvtx_cov.items()):
                if nv_tid != gtid:
                    continue
                key = f"nvtx/{tid}" if depth == 0 else f"nvtx/{tid}/{depth}"
                indent = "  " * min(depth, 3)
                label = f"NVTX {who}" if depth == 0 else f"{indent}└ level {depth + 1}"
                self.lanes.append(Lane(key, label, "nvtx", cov, tid=tid, pid=pid, events=n,
                                       depth=depth))
            if (gtid,) in api_cov:
                cov, n = api_cov[(gtid,)]
                self.lanes.append(Lane(f"cuda/{tid}", f"CUDA API {who}", "cuda-api", cov,
                                       tid=tid, pid=pid, events=n))
        self._lane_by_key = {lane.key: lane for lane in self.lanes}
        gaps = idle_gaps(report, large_gap_ns).sort("start_ns", "device")
        self._gaps = gaps
        self._instances: tuple[str, dict[str, Coverage]] | None = None

    @cached_property
    def _ops(self) -> pl.DataFrame:
        """Every GPU operation with its name, sorted by start (built on first use)."""
        return self._ops_frame(self.report)

    @cached_property
    def _max_op_ns(self) -> int:
        return int(self._ops.select((pl.col("end") - pl.col("start")).max()).item() or 0)

    @staticmethod
    def _ops_frame(report: TimelineReport) -> pl.DataFrame:
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

    # -- events ----------------------------------------------------------------------------
    @cached_property
    def _gpu_events(self) -> pl.DataFrame:
        """Every kernel, memcpy and memset with its device, stream and row in its frame."""
        report = self.report
        parts = [
            report.kernels.with_row_index("ref").select(
                "start", "end", pl.col("name").cast(pl.String), pl.lit("kernel").alias("kind"),
                pl.col("ref").cast(pl.Int64), "device_id", "stream_id"),
            report.memcpy.with_row_index("ref").select(
                "start", "end", pl.col("operation").cast(pl.String).alias("name"),
                pl.lit("memcpy").alias("kind"), pl.col("ref").cast(pl.Int64), "device_id",
                "stream_id"),
            report.memset.with_row_index("ref").select(
                "start", "end", pl.col("operation").cast(pl.String).alias("name"),
                pl.lit("memset").alias("kind"), pl.col("ref").cast(pl.Int64), "device_id",
                "stream_id"),
        ]
        return pl.concat(parts, how="vertical_relaxed")

    @cached_property
    def _events(self) -> dict[str, LaneEvents]:
        """Every lane's events (built once, for all lanes at a time)."""
        cols = list(EVENT_SCHEMA)
        out: dict[str, LaneEvents] = {}
        gpu = self._gpu_events
        for (dev,), part in gpu.partition_by(["device_id"], as_dict=True).items():
            out[f"gpu{dev}"] = LaneEvents(part.select(cols))
        for (dev, stream), part in gpu.partition_by(["device_id", "stream_id"],
                                                    as_dict=True).items():
            out[f"gpu{dev}/s{stream}"] = LaneEvents(part.select(cols))
        nvtx = self._nvtx.select(
            "start", "end", pl.col("range").str.strip_prefix(":").alias("name"),
            pl.lit("nvtx").alias("kind"), pl.col("ref").cast(pl.Int64), "global_tid", "depth",
        )
        for (gtid, depth), part in nvtx.partition_by(["global_tid", "depth"],
                                                     as_dict=True).items():
            tid = int(gtid) % (1 << 24)  # type: ignore[call-overload]
            key = f"nvtx/{tid}" if depth == 0 else f"nvtx/{tid}/{depth}"
            out[key] = LaneEvents(part.select(cols))
        api = self.report.cuda_api.with_row_index("ref").filter(
            pl.col("global_tid").is_not_null()
        ).select("start", "end", pl.col("api").cast(pl.String).alias("name"),
                 pl.lit("cuda-api").alias("kind"), pl.col("ref").cast(pl.Int64), "global_tid")
        for (gtid,), part in api.partition_by(["global_tid"], as_dict=True).items():
            out[f"cuda/{int(gtid) % (1 << 24)}"] = LaneEvents(part.select(cols))  # type: ignore[call-overload]
        return out

    def prepare_events(self) -> None:
        """Build every lane's events now (the screen's worker does, before the first draw)."""
        _ = self._events

    def lane_events(self, key: str) -> LaneEvents:
        """The events of lane ``key`` (none for a lane without events)."""
        return self._events.get(key) or _no_events()

    @cached_property
    def _api_by_correlation(self) -> pl.DataFrame:
        api = self.report.cuda_api.with_row_index("ref")
        return api.filter(pl.col("correlation_id").is_not_null()).sort("correlation_id")

    @cached_property
    def _gpu_by_correlation(self) -> pl.DataFrame:
        report = self.report
        return self._gpu_events.with_columns(
            pl.concat([report.kernels["correlation_id"], report.memcpy["correlation_id"],
                       report.memset["correlation_id"]]).alias("correlation_id"),
            pl.concat([report.kernels["global_pid"], report.memcpy["global_pid"],
                       report.memset["global_pid"]]).alias("global_pid"),
        ).filter(pl.col("correlation_id").is_not_null()).sort("correlation_id")

    def describe(self, key: str, index: int) -> EventInfo | None:
        """What event ``index`` of lane ``key`` is (None when there is no such event)."""
        events = self.lane_events(key)
        if not 0 <= index < len(events):
            return None
        event = events.event(index)
        kind, ref = str(event["kind"]), int(event["ref"])  # type: ignore[call-overload]
        info = EventInfo(kind=kind, name=str(event["name"] or ""),
                         start_ns=int(event["start"]), end_ns=int(event["end"]))  # type: ignore[call-overload]
        report = self.report
        if kind in ("kernel", "memcpy", "memset"):
            frame = {"kernel": report.kernels, "memcpy": report.memcpy,
                     "memset": report.memset}[kind]
            row = frame.row(ref, named=True)
            info.device, info.stream = row.get("device_id"), row.get("stream_id")
            if kind == "kernel" and row.get("grid_x") is not None:
                info.grid = (row["grid_x"], row["grid_y"], row["grid_z"])
                info.block = (row["block_x"], row["block_y"], row["block_z"])
            if kind != "kernel":
                info.bytes = row.get("bytes")
            call = _by_correlation(self._api_by_correlation, row.get("correlation_id"),
                                   row.get("global_pid"), pid_of_tid=True)
            if call is not None:
                info.related = (str(call["api"]), int(call["start"]), int(call["end"]),
                                int(call["global_tid"]) % (1 << 24))
        elif kind == "cuda-api":
            row = report.cuda_api.row(ref, named=True)
            info.tid = int(row["global_tid"]) % (1 << 24)
            op = _by_correlation(self._gpu_by_correlation, row.get("correlation_id"),
                                 row.get("global_tid"), pid_of_tid=False)
            if op is not None:
                info.related = (str(op["name"]), int(op["start"]), int(op["end"]), None)
                info.stream = op["stream_id"]
                info.device = op["device_id"]
        elif kind == "nvtx":
            row = self._nvtx.row(ref, named=True)
            info.tid = int(row["global_tid"]) % (1 << 24)
            info.depth = int(row["depth"])
        return info

    def instance_coverage(self, name: str) -> dict[str, Coverage]:
        """Per GPU and stream lane, the time kernel ``name`` (demangled) runs there: what the
        timeline highlights when a kernel is chosen in the Kernels table."""
        cached = self._instances
        if cached is not None and cached[0] == name:
            return cached[1]
        hits = self.report.kernels.filter(pl.col("name").cast(pl.String) == name)
        out: dict[str, Coverage] = {}
        for (dev,), part in hits.partition_by(["device_id"], as_dict=True).items():
            out[f"gpu{dev}"] = Coverage.from_intervals(part)
        for (dev, stream), part in hits.partition_by(["device_id", "stream_id"],
                                                     as_dict=True).items():
            out[f"gpu{dev}/s{stream}"] = Coverage.from_intervals(part)
        self._instances = (name, out)
        return out

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


__all__ = ["EventInfo", "Gap", "Lane", "TimelineIndex", "TimelineView"]
