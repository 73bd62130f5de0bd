"""What-if: replay the graph with some durations divided by a factor, everything else as
measured, and read every step's predicted time and new critical path.

``REGEX=FACTOR`` divides by FACTOR the duration of every GPU operation (kernel, copy) whose
name the regex finds, and the CPU time inside every CPU range (NVTX, ``record_function``,
a Kineto ``cpu_op``) whose name it finds: the calls inside the range and the time between
them. A synchronising call's wait is not its own time: it follows the GPU work.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import polars as pl

from kernelscope.core.errors import ReportError
from kernelscope.timeline.analysis.critical_path.beside import beside_changed
from kernelscope.timeline.analysis.critical_path.graph import Graph
from kernelscope.timeline.analysis.critical_path.ints import ints, lent, writable
from kernelscope.timeline.analysis.critical_path.measured import measured_replay
from kernelscope.timeline.analysis.critical_path.overlap import BESIDE_EVENTS, alongside
from kernelscope.timeline.analysis.critical_path.result import CriticalPath, critical_path
from kernelscope.timeline.analysis.critical_path.schedule import Plan, Replay, plan_of, replay
from kernelscope.timeline.analysis.critical_path.vocabulary import CPU, GPU, RANK_BITS, THREAD
from kernelscope.timeline.model.gpu_metrics import GpuMetrics
from kernelscope.timeline.model.intervals import merge_intervals


@dataclass(frozen=True)
class Faster:
    """One ``--faster REGEX=FACTOR``."""

    pattern: str
    factor: float
    rank: int | None = None
    """In a run of several ranks, only this rank's work (None: every rank's)."""

    @classmethod
    def parse(cls, text: str) -> Faster:
        """``REGEX=FACTOR`` or ``REGEX=FACTOR@RANK`` (ReportError with one sentence when it
        is neither)."""
        head, at, rank = text.rpartition("@")
        if at and "=" in head and rank.isdigit():
            return replace(cls.parse(head), rank=int(rank))
        if at and "=" in head and "=" not in rank:
            raise ReportError(f"--faster {text!r}: the rank after @ must be a whole number "
                              "(REGEX=FACTOR@RANK, e.g. 'data=2@1').")
        pattern, sep, factor = text.rpartition("=")
        if not sep or not pattern:
            raise ReportError(f"--faster takes REGEX=FACTOR (e.g. 'gemm=2'), not {text!r}.")
        try:
            value = float(factor)
        except ValueError:
            value = float("nan")
        if not value > 0 or value == float("inf"):
            raise ReportError(f"--faster {text!r}: the factor must be a number above 0.")
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ReportError(f"--faster {text!r}: {pattern!r} is not a regex ({exc}).") from None
        return cls(pattern, value)


@dataclass(frozen=True)
class Change:
    """What one ``Faster`` matched: GPU operation names and launches, CPU ranges."""

    faster: Faster
    operations: tuple[str, ...]
    launches: int
    ranges: tuple[str, ...]
    range_instances: int
    gpu_nodes: pl.Series = field(default_factory=lambda: pl.Series(dtype=pl.Int64),
                                 compare=False, repr=False)
    """The matched GPU operations' nodes."""


@dataclass(eq=False)
class Model:
    """A graph with its plan and measured replay, reused by every question asked of it."""

    graph: Graph
    metrics: GpuMetrics | None = field(default=None, kw_only=True)
    """The trace's sampled GPU metrics, if any: the clock the kept kernels ran at."""
    plan: Plan = field(init=False)
    measured: Replay = field(init=False)

    def __post_init__(self) -> None:
        self.plan = plan_of(self.graph)
        self.measured = measured_replay(self.plan, self.graph)

    @cached_property
    def critical_path(self) -> CriticalPath:
        return critical_path(self.graph, self.plan, self.measured)

    def whatif(self, changes: list[Faster]) -> WhatIf:
        """Every step replayed with ``changes``; ReportError when one matches nothing. The
        measured paths, where not yet made, are made on a thread of their own (their
        backward pass on one more) while the changes are replayed (``overlap.py``)."""
        self.plan.streams()  # made before the passes: both read them (``streams.py``)
        if "critical_path" in self.__dict__:
            found, run, after = self._predicted(changes)
        else:
            with alongside(lambda: critical_path(self.graph, self.plan, self.measured),
                           in_line=len(self.plan.chains.order) < BESIDE_EVENTS) as before:
                found, run, after = self._predicted(changes)
                self.__dict__["critical_path"] = before.result()  # the cached property's
        changed = pl.concat([c.gpu_nodes for c in found])
        return WhatIf(tuple(found), self.critical_path, after, run.start,
                      beside=beside_changed(self.graph, changed, after, self.metrics))

    def _predicted(self, changes: list[Faster]) -> tuple[list[Change], Replay, CriticalPath]:
        """What ``changes`` matched, the replay with them and its paths."""
        dur = writable(self.plan.dur)
        gaps: list[array[int]] = []  # the start edges' gaps, copied where a CPU range changes
        found = [self._apply(change, dur, gaps) for change in changes]
        durs = ints(lent(dur))  # polars reads them as they are
        s_gaps = ints(lent(gaps[0])) if gaps else None
        run = replay(self.plan, durs, s_gaps)
        return found, run, critical_path(self.graph, self.plan, run, durs, s_gaps,
                                         with_slack=False)

    def steps_saved_ns(self, nodes: list[int], factor: float) -> int:
        """The steps' summed time saved with the durations of ``nodes`` divided by
        ``factor`` (0 when none of them is on a path a step's end depends on)."""
        dur = writable(self.plan.dur)
        for node in nodes:
            dur[node] = round(dur[node] / factor)
        run = replay(self.plan, dur)
        marks = self.graph.steps.select("begin", "finish").iter_rows()
        return sum((self.measured.start[f] - self.measured.start[b])
                   - (run.start[f] - run.start[b]) for b, f in marks)

    def _apply(self, faster: Faster, dur: MutableSequence[int], gaps: list[array[int]]
               ) -> Change:
        nodes, ranges = self.graph.nodes, self.graph.ranges
        if faster.rank is not None:
            if "rank" not in nodes.columns:
                raise ReportError(f"--faster ...@{faster.rank}: the trace is one rank's; name "
                                  "a rank only in the what-if of a run.")
            ranks = sorted(set(self.graph.nodes["rank"].to_list()))
            if faster.rank not in ranks:
                raise ReportError(f"--faster ...@{faster.rank}: the run has no rank "
                                  f"{faster.rank} (its ranks: "
                                  f"{', '.join(str(r) for r in ranks)}).")
            nodes = nodes.filter(pl.col("rank") == faster.rank)
            ranges = ranges.filter(pl.col("global_tid") // (1 << RANK_BITS) == faster.rank)
        hit = pl.col("name").cast(pl.String).fill_null("").str.contains(faster.pattern)
        gpu = nodes.select("cls", "node", "name", "dur").filter(pl.col("cls") == GPU)
        try:
            ops = gpu.filter(_found(gpu["name"], faster.pattern))
            ranges = ranges.filter(hit)
        except pl.exceptions.PolarsError:
            raise ReportError(f"--faster {faster.pattern!r}: lookaround and backreferences are "
                              "not supported in the regex.") from None
        scaled = ops.select("node", _divided(pl.col("dur"), faster.factor))
        for node, ns in zip(scaled["node"].to_list(), scaled["dur"].to_list(), strict=True):
            dur[node] = ns
        if ranges.height:
            self._scale_cpu(ranges, faster.factor, dur, gaps)
        if not ops.height and not ranges.height:
            raise ReportError(f"--faster {faster.pattern!r} matches no GPU operation and no CPU "
                              "range of the trace.")
        return Change(faster, tuple(sorted(set(ops["name"].to_list()))), ops.height,
                      tuple(sorted(set(ranges["name"].to_list()))), ranges.height,
                      ops["node"])

    def _scale_cpu(self, ranges: pl.DataFrame, factor: float, dur: MutableSequence[int],
                   gaps: list[array[int]]) -> None:
        """Calls inside ``ranges`` and the time between calls inside them, divided (the
        start edges' gaps copied into ``gaps`` when first changed)."""
        inside = merge_intervals(ranges, by=["global_tid"]).rename(
            {"start": "r_start", "end": "r_end"})
        nodes = self.graph.nodes
        calls = nodes.select("cls", "node", "lane", "start", "end").filter(
            pl.col("cls") == CPU).select(  # the columns read, then the rows: fewer copied
            "node", pl.col("lane").alias("global_tid"),
            ((pl.col("start") + pl.col("end")) // 2).alias("mid"))
        for (node,) in _within(calls, inside).select("node").iter_rows():
            dur[node] = round(dur[node] / factor)
        edges = self.graph.edges.with_row_index("edge").filter(pl.col("etype") == THREAD)
        ends, starts = nodes["end"], nodes["start"]
        between = edges.select(
            pl.col("edge").cast(pl.Int64), nodes["lane"].gather(edges["dst"]).alias("global_tid"),
            ((ends.gather(edges["src"]) + starts.gather(edges["dst"])) // 2).alias("mid"))
        rows = self.plan.columns[3]  # per start edge's position, its row of the edges
        position = pl.repeat(-1, self.graph.edges.height, eager=True, dtype=pl.Int64).scatter(
            rows, pl.int_range(rows.len(), eager=True, dtype=pl.Int64))
        if not gaps:
            gaps.append(writable(self.plan.s_gap))
        changed = gaps[0]
        for at in position.gather(_within(between, inside)["edge"]).to_list():
            changed[at] = round(changed[at] / factor)


def _divided(ns: pl.Expr, factor: float) -> pl.Expr:
    """``ns`` divided by ``factor`` and rounded as Python's ``round`` does (half to even),
    in one column instead of one Python division a row."""
    return (ns / factor).round(0, mode="half_to_even").cast(pl.Int64)


def _found(names: pl.Series, pattern: str) -> pl.Expr:
    """Whether a row's ``name`` (a null as "") holds ``pattern``: the regex run once per
    distinct name (the operations' names repeat)."""
    distinct = names.unique()
    passed = distinct.filter(distinct.cast(pl.String).fill_null("").str.contains(pattern))
    return (pl.col("name").is_in(passed.drop_nulls().implode())
            | (pl.col("name").is_null() & pl.lit(passed.null_count() > 0))).fill_null(False)


def _within(points: pl.DataFrame, inside: pl.DataFrame) -> pl.DataFrame:
    """The rows of ``points`` (global_tid, mid) inside one of the merged ``inside`` ranges."""
    return points.sort("mid").join_asof(
        inside.sort("r_start"), left_on="mid", right_on="r_start", by="global_tid",
        strategy="backward", check_sortedness=False,
    ).filter(pl.col("mid") < pl.col("r_end"))


@dataclass(eq=False)
class WhatIf:
    """The answer: what matched, the measured and predicted steps, both critical paths."""

    changes: tuple[Change, ...]
    before: CriticalPath
    after: CriticalPath
    after_start: Sequence[int] = field(default_factory=list)
    """Every node's start in the replay with the changes."""
    waits: pl.DataFrame | None = None
    """In a run: per rank its summed wait at the collectives, measured and predicted."""
    beside: pl.DataFrame | None = None
    """Families on the predicted paths kept as measured though they ran beside the changed
    work (``beside.beside_changed``)."""

    @cached_property
    def steps(self) -> pl.DataFrame:
        """step, name, measured_ns, predicted_ns."""
        ranked = ["rank"] if "rank" in self.before.steps.columns else []
        return self.before.steps.select(*ranked, "step", "name",
                                        pl.col("step_ns").alias("measured_ns")
                                        ).with_columns(self.after.steps["step_ns"]
                                                       .alias("predicted_ns"))

    @property
    def measured_step_ns(self) -> int | None:
        return self.before.median_step_ns

    @property
    def predicted_step_ns(self) -> int | None:
        return self.after.median_step_ns
