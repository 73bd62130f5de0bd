"""The kernels a what-if keeps as measured although they ran beside the work it changes.

The replay keeps every unchanged duration as measured. A kernel that shared the GPU with the
changed work was measured with less of the GPU than it would have with that work shorter:
fewer free SMs, less memory bandwidth, and, on a GPU at its power limit, a lower clock for
every kernel. When such a kernel is on the predicted path, the prediction may be too long
(too short, for work made slower), and the trace cannot say by how much. These are the
kernels the what-if names, so its reader knows where the model's assumption is tested.
"""

from __future__ import annotations

import polars as pl

from kernelscope.timeline.analysis.critical_path.graph import Graph
from kernelscope.timeline.analysis.critical_path.result import CriticalPath
from kernelscope.timeline.analysis.critical_path.vocabulary import LANES_PER_DEVICE
from kernelscope.timeline.model.gpu_metrics import GpuMetrics
from kernelscope.timeline.model.intervals import Coverage

BESIDE_SHARE = 0.10
"""A family counts when at least this share of its GPU time ran beside the changed work."""
ALONE_SHARE = 0.10
"""A launch ran away from the changed work when at most this share of its time was beside
it, and beside it when at least all but this share was."""
PATH_SHARE = 0.01
"""... and when its time on the predicted paths is at least this share of the steps' time."""
MIN_LAUNCHES = 3
"""The fewest launches on each side for their medians to be compared."""
BESIDE_SCHEMA = {"name": pl.String, "kind": pl.String, "path_ns": pl.Int64,
                 "gpu_ns": pl.Int64, "beside_ns": pl.Int64, "away_launches": pl.Int64,
                 "away_median_ns": pl.Int64, "beside_launches": pl.Int64,
                 "beside_median_ns": pl.Int64, "away_clock_mhz": pl.Float64,
                 "beside_clock_mhz": pl.Float64, "top_clock_mhz": pl.Float64}
CLOCK = "gpc_clock"
"""The GPU metric (``timeline/model/gpu_metrics.py``) a kernel's clock is read from."""
TOP_QUANTILE = 0.95
"""The GPU's top clock in a trace: this quantile of its clock's samples (the highest sample
can be an odd one: 2,070 MHz on an H100 whose top is 1,980)."""


def beside_changed(graph: Graph, changed: pl.Series, after: CriticalPath,
                   metrics: GpuMetrics | None = None) -> pl.DataFrame:
    """The families the what-if keeps as measured that matter to its answer and may be
    wrong in it: at least ``PATH_SHARE`` of the steps' time on ``after``'s paths (the
    predicted replay), and at least ``BESIDE_SHARE`` of their GPU time beside the
    operations ``changed`` (node numbers) on the same GPU in the measured steps.

    Columns: name, kind, path_ns (on the predicted paths), gpu_ns and beside_ns (measured);
    the launches away from the changed work and beside it with their median times (null
    under ``MIN_LAUNCHES``) and, where ``metrics`` sampled the GPU's GPC clock, its
    time-weighted mean over them and its top on their GPU (``TOP_QUANTILE``; MHz; else
    null); the most on the path first."""
    least = max(1, round(PATH_SHARE * int(after.steps["step_ns"].sum())))
    on_path = after.families.filter(pl.col("path_ns") >= least).select(
        "name", "kind", "path_ns")
    found = changed.len() and on_path.height
    launches = _launches(graph, changed, on_path, metrics) if found else None
    if launches is None or not launches.height:
        return pl.DataFrame(schema=BESIDE_SCHEMA)
    away = pl.col("beside_ns") <= ALONE_SHARE * pl.col("gpu_ns")
    beside = pl.col("beside_ns") >= (1 - ALONE_SHARE) * pl.col("gpu_ns")
    families = launches.group_by("name", "kind").agg(
        pl.col("gpu_ns").sum(), pl.col("beside_ns").sum(),
        *_side(away, "away"), *_side(beside, "beside"), pl.col("top_clock_mhz").max())
    families = families.with_columns(  # a median of too few launches is not compared
        *(pl.when(pl.col(f"{side}_launches") >= MIN_LAUNCHES).then(f"{side}_median_ns")
          .alias(f"{side}_median_ns") for side in ("away", "beside")))
    return families.filter(pl.col("beside_ns") >= BESIDE_SHARE * pl.col("gpu_ns")).join(
        on_path, on=["name", "kind"]).select(*BESIDE_SCHEMA).sort(
        ["path_ns", "name"], descending=[True, False])


def _launches(graph: Graph, changed: pl.Series, on_path: pl.DataFrame,
              metrics: GpuMetrics | None) -> pl.DataFrame | None:
    """The launches of the families ``on_path`` not changed, in the steps: name, kind,
    gpu_ns, beside_ns (their time beside the changed operations on their GPU) and the GPC
    clock's integral and covered time over each (0 without a clock), its top on the GPU."""
    nodes, wanted = graph.nodes, changed.implode()
    ops = graph.step_ops.filter(~pl.col("node").is_in(wanted))
    named = nodes["name"].gather(ops["node"]).is_in(  # the names first: few rows are cast
        on_path["name"].cast(pl.Categorical).implode())
    ops = ops.filter(named)
    node = ops["node"]
    ops = pl.DataFrame([
        nodes["name"].gather(node).cast(pl.String), nodes["kind"].gather(node).cast(pl.String),
        (nodes["lane"].gather(node) // LANES_PER_DEVICE).alias("device"),
        nodes["start"].gather(node), nodes["end"].gather(node), ops["gpu_ns"]])
    ops = ops.join(on_path.select("name", "kind"), on=["name", "kind"], how="semi")
    work = nodes.select("node", "lane", "start", "end").filter(
        pl.col("node").is_in(wanted)).with_columns(
        (pl.col("lane") // LANES_PER_DEVICE).alias("device"))
    parts = []
    for device in ops["device"].unique().to_list():
        mine = ops.filter(pl.col("device") == device)
        cover = Coverage.from_intervals(work.filter(pl.col("device") == device))
        clock = metrics.get(device, CLOCK) if metrics is not None else None
        area, sampled = (clock.integrals(mine["start"], mine["end"]) if clock is not None
                         else (pl.zeros(mine.height, pl.Float64, eager=True),) * 2)
        parts.append(mine.with_columns(
            (cover.covered_until(mine["end"]) - cover.covered_until(mine["start"]))
            .alias("beside_ns"), area.alias("clock_area"), sampled.alias("clock_ns"),
            pl.lit(clock.values.quantile(TOP_QUANTILE) if clock is not None else None,
                   pl.Float64)
            .alias("top_clock_mhz")))
    return pl.concat(parts) if parts else None


def _side(launches: pl.Expr, side: str) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """How many of a family's launches ``launches`` selects, their median time (ns) and the
    GPC clock's mean over them (MHz; null where no sample covers them)."""
    sampled = pl.col("clock_ns").filter(launches).sum()
    return (launches.sum().cast(pl.Int64).alias(f"{side}_launches"),
            pl.col("gpu_ns").filter(launches).median().round().cast(pl.Int64)
            .alias(f"{side}_median_ns"),
            pl.when(sampled > 0).then(pl.col("clock_area").filter(launches).sum() / sampled)
            .alias(f"{side}_clock_mhz"))
