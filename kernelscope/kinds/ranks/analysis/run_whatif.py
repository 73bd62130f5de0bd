"""The critical path and the what-if of a run: every rank's trace read again as a timeline
(or, for Kineto traces the run read in this process, taken as it read them: ``KEPT``), its
dependency graph built, and the graphs joined at the collectives the ranks analysis
matched (``matching.match_collectives``; ``timeline/analysis/critical_path/ranks.py``).

    model = run_model(run)            # a critical_path.whatif.Model over every rank
    model.whatif([Faster("data", 2)]) # every rank's steps, the collectives moved

The collectives joined are NCCL kernels or CPU calls (gloo's ranges, NVTX or MPI ranges).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from kernelscope.core.errors import ReportError, safe_text
from kernelscope.core.executor import in_threads
from kernelscope.core.options import OpenOptions
from kernelscope.kinds.ranks.analysis.kineto_reduce import KeptTraces
from kernelscope.kinds.ranks.analysis.matching import match_collectives
from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.analysis.run import KEPT
from kernelscope.timeline.analysis.critical_path.graph import Graph, build_graph
from kernelscope.timeline.analysis.critical_path.ranks import CALL_SCHEMA, run_graph
from kernelscope.timeline.analysis.critical_path.whatif import Model
from kernelscope.timeline.model.model import TimelineReport

if TYPE_CHECKING:
    from kernelscope.kinds.kineto.model.model import KinetoTrace

JOINED_SOURCES = ("nccl", "backend", "nvtx", "mpi")
"""Where the collectives are read from: NCCL kernels, or CPU calls of a thread."""


@dataclass(eq=False)
class RunModel(Model):
    """A what-if model over every rank of a run; ``calls``: the collective calls joined
    (rank, match, op, arrive, leave, start, end, after)."""

    calls: pl.DataFrame

    def waits(self, starts: Sequence[int] | None = None) -> pl.DataFrame:
        """Per rank, its summed wait at the collectives (from its arrival to the last
        rank's): measured, and with the nodes' ``starts`` of a replay (rank, calls,
        measured_ns, predicted_ns)."""
        measured = self.plan.start
        starts = measured if starts is None else starts
        arrive = self.calls["arrive"].to_list()
        frame = self.calls.select("rank", "match").with_columns(
            pl.Series("m", [measured[a] for a in arrive], dtype=pl.Int64),
            pl.Series("p", [starts[a] for a in arrive], dtype=pl.Int64))
        last = [pl.col(c).max().over("match") - pl.col(c) for c in ("m", "p")]
        return frame.with_columns(last[0].alias("measured_ns"), last[1].alias("predicted_ns")
                                  ).group_by("rank").agg(
            pl.len().alias("calls"), pl.col("measured_ns").sum(), pl.col("predicted_ns").sum()
        ).sort("rank")


def run_model(run: RunAnalysis, options: OpenOptions | None = None) -> RunModel:
    """The run's graph, replayed (ReportError with one sentence where it cannot be built)."""
    if len(run.ranks) == 1:
        (only,) = run.ranks.values()
        raise ReportError(f"The run holds one rank ({safe_text(Path(only.file).name)}): its "
                          "critical path and what-if are that trace's; name the trace itself.")
    source = run.comm_source
    if source not in JOINED_SOURCES:
        raise ReportError("The run shows no collectives (NCCL kernels, or gloo, NVTX or MPI "
                          "ranges) to join its ranks' critical paths at.")
    files = [summary.file for summary in run.ranks.values()]
    if len(set(files)) < len(files):
        raise ReportError("The critical path of a run needs one trace per rank; this run "
                          "holds several ranks in one trace.")
    kept: KeptTraces = run.extra.get(KEPT, {})
    graphs = dict(zip(run.ranks, in_threads(  # up to four ranks' graphs at once (core.executor)
        lambda s: _rank_graph(Path(s.file), options, kept.get(s.file)),
        list(run.ranks.values())), strict=True))
    offsets = dict(run.clock.offsets_ns)
    graph, calls = run_graph(graphs, offsets, _matched(run, offsets))
    return RunModel(graph, calls)


def _rank_graph(path: Path, options: OpenOptions | None,
                kept: tuple[KinetoTrace, TimelineReport] | None) -> Graph:
    """One rank's trace read whole as a timeline (``kept``: the trace and its timeline the
    run read already), its dependency graph."""
    from kernelscope.kinds.kineto.model.as_timeline import as_timeline_report, cpu_op_ranges
    from kernelscope.kinds.kineto.model.model import check_gpu_activity, read_trace

    if kept is not None:
        trace, report = kept
        check_gpu_activity(path, trace.gpu)
        return build_graph(report, cpu_op_ranges(trace))
    from kernelscope.kinds.kineto.model import is_kineto_file

    if is_kineto_file(path):
        trace = read_trace(path)
        return build_graph(as_timeline_report(trace), cpu_op_ranges(trace))
    from kernelscope.kinds.nsys.model.opener import open_report  # only for an nsys trace

    cache = options.cache_dir if options is not None else None
    return build_graph(open_report(path, cache_dir=cache))


def _matched(run: RunAnalysis, offsets: dict[int, int]) -> pl.DataFrame:
    """Every rank's collective calls on the run's clock, matched (``CALL_SCHEMA``)."""
    parts = [s.collectives.filter(pl.col("collective")).select(
        pl.lit(rank, pl.Int64).alias("rank"), "op", "key", "recorded_seq", "global_tid",
        (pl.col("start") + offsets.get(rank, 0)).alias("start"),
        (pl.col("end") + offsets.get(rank, 0)).alias("end"))
        for rank, s in run.ranks.items() if s.comm_source == run.comm_source]
    if not parts:
        return pl.DataFrame(schema=CALL_SCHEMA)
    found = match_collectives(pl.concat(parts), shared_clock=True)
    return found.calls.filter(pl.col("match").is_not_null()).select(list(CALL_SCHEMA)).cast(
        CALL_SCHEMA)  # type: ignore[arg-type]
