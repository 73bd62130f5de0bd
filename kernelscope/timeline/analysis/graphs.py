"""CUDA graphs on the timeline: each graph launch with the work it ran, and the same kernels
launched one by one for comparison.

With ``nsys profile --cuda-graph-trace=node`` every kernel, memset and memcpy a graph runs
carries a ``graphNodeId`` and the ``correlationId`` of the ``cudaGraphLaunch`` (or
``cuGraphLaunch``) call that launched it; matching the two within the process gives each
launch its operations. nsys numbers nodes ``graph << 32 | node``: the high word names the
executable graph (``graph``). Without node tracing (``--cuda-graph-trace=graph``, the
default) a launch shows as one operation and no node ids: the launches are still listed,
the kernels are not.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.model.intervals import merge_intervals
from kernelscope.timeline.model.model import OP_KIND, TimelineReport, pid_of

GRAPH_LAUNCH_API = r"^(cuda|cu)GraphLaunch"
GRAPH_HINT = "profile with `nsys profile --cuda-graph-trace=node` to see each graph's kernels"


LAUNCH_SCHEMA = {
    "launch": pl.Int64, "pid": pl.Int64, "tid": pl.Int64, "correlation_id": pl.Int64,
    "api": pl.String, "api_start": pl.Int64, "api_end": pl.Int64, "launch_ns": pl.Int64,
    "graph": pl.Int64, "device": pl.Int64, "stream": pl.Int64, "kernels": pl.Int64,
    "memops": pl.Int64, "gpu_start": pl.Int64, "gpu_end": pl.Int64, "span_ns": pl.Int64,
    "busy_ns": pl.Int64, "idle_ns": pl.Int64, "latency_ns": pl.Int64,
    "gap_before_ns": pl.Int64,
}


def graph_ops(report: TimelineReport) -> pl.DataFrame:
    """Every GPU operation a graph node ran: kind, start, end, device_id, stream_id, pid,
    correlation_id, graph_node_id, name (kernels only), sorted by start."""
    parts = []
    for kind, frame in (("kernel", report.kernels), ("memcpy", report.memcpy),
                        ("memset", report.memset)):
        if "graph_node_id" not in frame.columns:
            continue
        name = (pl.col("name").cast(pl.String) if kind == "kernel"
                else pl.col("operation"))
        parts.append(frame.filter(pl.col("graph_node_id").is_not_null()).select(
            pl.lit(kind, OP_KIND).alias("kind"), "start", "end", "device_id", "stream_id",
            pid_of(pl.col("global_pid")).alias("pid"), "correlation_id", "graph_node_id",
            name.alias("name"),
        ))
    if not parts:
        return pl.DataFrame(schema={"kind": OP_KIND, "start": pl.Int64, "end": pl.Int64,
                                    "device_id": pl.Int64, "stream_id": pl.Int64,
                                    "pid": pl.Int64, "correlation_id": pl.Int64,
                                    "graph_node_id": pl.Int64, "name": pl.String})
    return pl.concat(parts, how="vertical_relaxed").sort("start", "end")


def graph_launches(report: TimelineReport) -> pl.DataFrame:
    """One row per graph launch call, in time order (columns of ``LAUNCH_SCHEMA``).

    ``launch_ns`` is the CPU time of the launch call, ``latency_ns`` from the call's start to
    the graph's first operation, ``span_ns`` from its first operation's start to its last
    one's end, ``busy_ns`` the time any of its operations ran (merged), ``idle_ns`` the gaps
    inside (span - busy), ``gap_before_ns`` the idle time since the previous launch of the same
    graph on the device ended (null for the first, 0 when they overlap). Computed once per
    report (the comparison of the graphs reads it too).
    """
    return report.memo("graph_launches", lambda: _graph_launches(report))


def _graph_launches(report: TimelineReport) -> pl.DataFrame:
    names = report.cuda_api["api"].unique().drop_nulls()
    launch_names = names.filter(names.str.contains(GRAPH_LAUNCH_API))  # once per distinct name
    if not launch_names.len():
        return pl.DataFrame(schema=LAUNCH_SCHEMA)
    api = report.cuda_api.filter(pl.col("api").is_in(launch_names.implode())).select(
        pl.col("start").alias("api_start"), pl.col("end").alias("api_end"),
        pid_of(pl.col("global_tid")).alias("pid"),
        (pl.col("global_tid") % (1 << 24)).alias("tid"), "correlation_id", "api",
    )
    ops = graph_ops(report)
    per = ops.group_by("pid", "correlation_id").agg(
        (pl.col("graph_node_id").min() // (1 << 32)).alias("graph"),
        pl.col("device_id").first().alias("device"),
        pl.col("stream_id").first().alias("stream"),
        (pl.col("kind") == "kernel").sum().cast(pl.Int64).alias("kernels"),
        (pl.col("kind") != "kernel").sum().cast(pl.Int64).alias("memops"),
        pl.col("start").min().alias("gpu_start"), pl.col("end").max().alias("gpu_end"),
    )
    busy = (
        merge_intervals(ops, ["pid", "correlation_id"])
        .group_by("pid", "correlation_id")
        .agg((pl.col("end") - pl.col("start")).sum().alias("busy_ns"))
    )
    out = (
        api.sort("api_start")
        .join(per, on=["pid", "correlation_id"], how="left", maintain_order="left")
        .join(busy, on=["pid", "correlation_id"], how="left", maintain_order="left")
        .with_row_index("launch")
        .with_columns(
            (pl.col("api_end") - pl.col("api_start")).alias("launch_ns"),
            pl.col("kernels").fill_null(0), pl.col("memops").fill_null(0),
            (pl.col("gpu_end") - pl.col("gpu_start")).alias("span_ns"),
            (pl.col("gpu_start") - pl.col("api_start")).alias("latency_ns"),
        )
        .with_columns((pl.col("span_ns") - pl.col("busy_ns")).alias("idle_ns"))
        .sort("gpu_start", nulls_last=True)
        .with_columns(
            (pl.col("gpu_start") - pl.col("gpu_end").shift(1).cum_max())
            .over("device", "graph")
            .clip(lower_bound=0)
            .alias("gap_before_ns")
        )
        .sort("launch")
    )
    return out.select(list(LAUNCH_SCHEMA)).cast(LAUNCH_SCHEMA)  # type: ignore[arg-type]


def _gaps_between(frame: pl.DataFrame, by: list[str]) -> pl.Series:
    """Idle time before each operation since the previous ones of its group ended (>= 0;
    the first of each group gets none)."""
    gaps = frame.sort([*by, "start"]).select(
        (pl.col("start") - pl.col("end").cum_max().shift(1)).over(by).alias("gap")
    )["gap"]
    return gaps.drop_nulls().clip(lower_bound=0)


@dataclass(frozen=True)
class GraphComparison:
    """One executable graph's replays against the same kernels launched one by one."""

    graph: int
    device: int
    replays: int
    kernels_per_replay: int
    graph_kernels: int
    eager_kernels: int  # launches of the graph's kernel names outside any graph
    replay_span_ns: float  # mean, first operation start to last end
    replay_busy_ns: float  # mean
    inner_gap_ns: float | None  # median idle between consecutive operations inside a replay
    between_gap_ns: float | None  # median idle between consecutive replays
    launch_call_ns: float  # median cudaGraphLaunch call
    graph_kernel_ns: float | None  # mean kernel duration inside replays
    eager_kernel_ns: float | None  # mean duration of the eager launches
    eager_gap_ns: float | None  # median idle between consecutive eager launches (a stream)
    eager_launch_call_ns: float | None  # median launch call of an eager kernel
    graph_busy_pct: float | None  # busy share while replaying (gaps < pause_ns)
    eager_busy_pct: float | None  # busy share while launching eagerly (gaps < pause_ns)

    @property
    def eager_equivalent_ns(self) -> float | None:
        """The eager launches' time for one replay's kernels: k kernels and k - 1 gaps."""
        if self.eager_kernel_ns is None or self.eager_gap_ns is None:
            return None
        k = self.kernels_per_replay
        return k * self.eager_kernel_ns + max(k - 1, 0) * self.eager_gap_ns

    def as_dict(self) -> dict[str, object]:
        return {
            "graph": self.graph, "device": self.device, "replays": self.replays,
            "kernels_per_replay": self.kernels_per_replay,
            "graph_kernels": self.graph_kernels, "eager_kernels": self.eager_kernels,
            "replay_span_ns": self.replay_span_ns, "replay_busy_ns": self.replay_busy_ns,
            "inner_gap_ns": self.inner_gap_ns, "between_gap_ns": self.between_gap_ns,
            "launch_call_ns": self.launch_call_ns, "graph_kernel_ns": self.graph_kernel_ns,
            "eager_kernel_ns": self.eager_kernel_ns, "eager_gap_ns": self.eager_gap_ns,
            "eager_launch_call_ns": self.eager_launch_call_ns,
            "eager_equivalent_ns": self.eager_equivalent_ns,
            "graph_busy_pct": self.graph_busy_pct, "eager_busy_pct": self.eager_busy_pct,
        }


def _median(s: pl.Series) -> float | None:
    return None if not s.len() else float(s.median())  # type: ignore[arg-type]


def _mean(s: pl.Series) -> float | None:
    return None if not s.len() else float(s.mean())  # type: ignore[arg-type]


def _busy_pct(frame: pl.DataFrame, pause_ns: int) -> float | None:
    """Busy share of the stretches where these operations ran back to back: their merged
    time over itself plus the idle gaps between them shorter than ``pause_ns`` (a longer
    pause is another phase of the program, not a launch gap)."""
    if not frame.height:
        return None
    merged = merge_intervals(frame)
    busy = int((merged["end"] - merged["start"]).sum())
    gaps = (merged["start"].slice(1) - merged["end"].slice(0, merged.height - 1))
    idle = int(gaps.filter(gaps < pause_ns).sum())
    return 100.0 * busy / (busy + idle) if busy + idle > 0 else None


def compare_graphs(
    report: TimelineReport, pause_ns: int = TIMELINE_THRESHOLDS.large_gap_ns
) -> list[GraphComparison]:
    """Per executable graph and device: its replays against the eager launches of the same
    kernel names (kernels without a graph node id) on that device. The busy shares count
    idle gaps shorter than ``pause_ns`` only."""
    launches = graph_launches(report).filter(pl.col("graph").is_not_null())
    if not launches.height:
        return []
    ops = graph_ops(report).with_columns((pl.col("graph_node_id") // (1 << 32)).alias("graph"))
    eager_all = report.kernels.filter(pl.col("graph_node_id").is_null()).select(
        "start", "end", pl.col("device_id").alias("device"), pl.col("stream_id").alias("stream"),
        pl.col("name").cast(pl.String), "correlation_id",
        pid_of(pl.col("global_pid")).alias("pid"),
    )
    calls = report.cuda_api.select(
        "correlation_id", pid_of(pl.col("global_tid")).alias("pid"),
        (pl.col("end") - pl.col("start")).alias("call_ns"),
    )
    out = []
    for (graph, device), runs in launches.group_by(["graph", "device"], maintain_order=True):
        mine = ops.filter((pl.col("graph") == graph) & (pl.col("device_id") == device))
        kernels = mine.filter(pl.col("kind") == "kernel")
        names = kernels["name"].unique()
        eager = eager_all.filter((pl.col("device") == device)
                                 & pl.col("name").is_in(names.implode()))
        inner = _gaps_between(mine, ["pid", "correlation_id"])
        between = runs["gap_before_ns"].drop_nulls()
        eager_calls = calls.join(eager.select("pid", "correlation_id"),
                                 on=["pid", "correlation_id"], how="semi")["call_ns"]
        out.append(GraphComparison(
            graph=int(graph), device=int(device),  # type: ignore[call-overload]
            replays=runs.height,
            kernels_per_replay=int(runs["kernels"].median() or 0),  # type: ignore[arg-type]
            graph_kernels=kernels.height, eager_kernels=eager.height,
            replay_span_ns=float(runs["span_ns"].mean() or 0.0),  # type: ignore[arg-type]
            replay_busy_ns=float(runs["busy_ns"].mean() or 0.0),  # type: ignore[arg-type]
            inner_gap_ns=_median(inner), between_gap_ns=_median(between),
            launch_call_ns=float(runs["launch_ns"].median() or 0.0),  # type: ignore[arg-type]
            graph_kernel_ns=_mean(kernels["end"] - kernels["start"]),
            eager_kernel_ns=_mean(eager["end"] - eager["start"]),
            eager_gap_ns=_median(_gaps_between(eager, ["device", "stream"])),
            eager_launch_call_ns=_median(eager_calls),
            graph_busy_pct=_busy_pct(mine, pause_ns), eager_busy_pct=_busy_pct(eager, pause_ns),
        ))
    return out


__all__ = [
    "GRAPH_HINT",
    "GRAPH_LAUNCH_API",
    "GraphComparison",
    "compare_graphs",
    "graph_launches",
    "graph_ops",
]
