"""A replay's critical paths, put together: per step its time and path, the breakdown by
kind and name, and the kernel families with their time on the path and their slack."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import polars as pl

from kernelscope.timeline.analysis.critical_path.graph import Graph
from kernelscope.timeline.analysis.critical_path.overlap import BESIDE_EVENTS, alongside
from kernelscope.timeline.analysis.critical_path.path import (
    PathWalker,
    breakdown,
    family_slack,
    segments_of,
)
from kernelscope.timeline.analysis.critical_path.schedule import Plan, Replay, latest_ends

KIND_ORDER = ("kernel", "communication", "copy", "launch", "api", "sync", "cpu",
              "stream wait", "thread wait", "gpu gap", "untraced")


@dataclass(eq=False)
class CriticalPath:
    """One replay's critical paths.

    - ``steps``: step, name, start, end (measured), step_ns (this replay's), path_ns;
    - ``segments``: step, kind, name, ns, node, edge (the path, newest first; named when
      first read: the breakdown is summed without naming every segment);
    - ``breakdown``: kind, name, ns, count, pct (over every step's path);
    - ``kinds``: kind, ns, pct;
    - ``families``: name, kind, launches, gpu_ns, path_ns, slack_ns;
    - ``slack_known``: whether the slack was computed (a what-if's predicted replay leaves
      it out: its ``slack_ns`` is null on every family, on the path or not).
    """

    steps: pl.DataFrame
    breakdown: pl.DataFrame
    kinds: pl.DataFrame
    families: pl.DataFrame
    slack_known: bool
    named_segments: Callable[[], pl.DataFrame]

    @cached_property
    def segments(self) -> pl.DataFrame:
        return self.named_segments()

    @property
    def median_step_ns(self) -> int | None:
        value = self.steps["step_ns"].median() if self.steps.height else None
        return int(value) if value is not None else None  # type: ignore[arg-type]


def critical_path(graph: Graph, plan: Plan, run: Replay, dur: Sequence[int] | None = None,
                  s_gap: Sequence[int] | None = None, *, with_slack: bool = True) -> CriticalPath:
    """The critical paths of ``run`` (a replay of ``plan`` with ``dur``/``s_gap``); the
    backward pass for the slack runs beside the paths' sums (``overlap.py``)."""
    if not with_slack:
        return _paths(graph, plan, run, dur, None)
    with alongside(lambda: latest_ends(plan, run, dur, s_gap, graph.step_ops["node"]),
                   in_line=len(plan.chains.order) < BESIDE_EVENTS) as late:
        return _paths(graph, plan, run, dur, late.result)


def _paths(graph: Graph, plan: Plan, run: Replay, dur: Sequence[int] | None,
           late: Callable[[], pl.Series] | None) -> CriticalPath:
    """``critical_path`` with ``late()``: the latest ends of ``Graph.step_ops`` (None: no
    slack)."""
    walker = PathWalker(graph, plan, run, plan.dur if dur is None else dur)
    for step, begin, finish in graph.steps.select("step", "begin", "finish").iter_rows():
        walker.walk(step, begin, finish)
    sums, step_sums = walker.sums()
    step_ns = [run.start[finish] - run.start[begin] for begin, finish in
               graph.steps.select("begin", "finish").iter_rows()]
    path_ns = step_sums.group_by("step").agg(pl.col("ns").sum().alias("path_ns"))
    ranked = ["rank"] if "rank" in graph.steps.columns else []
    steps = graph.steps.lazy().select(*ranked, "step", "name", "start", "end").with_columns(
        pl.Series("step_ns", step_ns, dtype=pl.Int64)
    ).join(path_ns.lazy(), on="step", how="left").with_columns(
        pl.col("path_ns").fill_null(0)).collect(engine="in-memory")  # one query
    table = breakdown(sums, graph.names)
    kinds = table.lazy().group_by("kind").agg(pl.col("ns").sum(), pl.col("pct").sum()
                                              ).with_columns(
        pl.col("kind").replace_strict({k: i for i, k in enumerate(KIND_ORDER)}, default=99,
                                      return_dtype=pl.Int64).alias("_o")
    ).sort(["ns", "_o"], descending=[True, False]).drop("_o").collect(engine="in-memory")
    families = family_slack(graph, plan, run, None if late is None else late(),
                            walker.own_time())
    return CriticalPath(steps, table, kinds, families, late is not None,
                        lambda: segments_of(walker.coded(), graph.names))
