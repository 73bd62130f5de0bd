"""Analyse a run: reduce every trace (in workers), number and align the ranks, compare them.

    run = analyse_run(["traces/"], progress=print_progress, cancel=event)
    run.straggler.rank        # render.ranks.straggler_verdict: "rank 2 arrives last at …"

Two passes over the traces, both through the same executor: every trace is reduced to
:class:`RankSummary` objects; then, once the straggler is known, the CPU calls (OS runtime
and CUDA API) of its calling thread during its lead-ins to the collectives it was latest at
are read from its trace, and the same for the rank that arrived earliest, to compare (from
the trace already read, for a Kineto run reduced in this process with ``keep_traces``).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl

from kernelscope.core.durations import fmt_duration
from kernelscope.core.errors import ReportError
from kernelscope.core.executor import Executor, make_executor
from kernelscope.core.findings import Evidence, Finding
from kernelscope.core.hooks import CancelHook, ProgressHook, report_progress
from kernelscope.core.severity import Severity
from kernelscope.kinds.kineto.model.as_timeline import as_timeline_report
from kernelscope.kinds.kineto.model.model import read_trace
from kernelscope.kinds.nsys.model.db import ExportDb
from kernelscope.kinds.ranks.analysis.clocks import (
    captures_differ,
    captures_line_up,
    different_steps,
    left_out,
    shared_clock,
    with_matched_clocks,
)
from kernelscope.kinds.ranks.analysis.collectives import SOURCES
from kernelscope.kinds.ranks.analysis.discover import KINETO, kind_of_file, run_files
from kernelscope.kinds.ranks.analysis.families import family_table, per_rank_families, slow_ranks
from kernelscope.kinds.ranks.analysis.kineto_reduce import (
    KeptTraces,
    reduce_kineto,
    runtime_calls,
    settle_hta,
)
from kernelscope.kinds.ranks.analysis.model import RankSummary, RunAnalysis
from kernelscope.kinds.ranks.analysis.numbering import align_clocks, check_one_run, number_ranks
from kernelscope.kinds.ranks.analysis.rank_gaps import settle_gaps
from kernelscope.kinds.ranks.analysis.read import read_cpu_calls
from kernelscope.kinds.ranks.analysis.reduce import ReduceOptions, reduce_trace, sqlite_of
from kernelscope.kinds.ranks.analysis.straggler import (
    STEP,
    collective_waits,
    exit_spread,
    find_straggler,
    step_waits,
)
from kernelscope.timeline.model.model import TimelineReport

I64 = pl.Int64
KEPT = "kept_traces"
"""The ``run.extra`` member holding the Kineto traces read in this process (KeptTraces)."""
DETAIL_WINDOWS = 20
TOP_CALLS = 10


def analyse(summaries: list[RankSummary]) -> RunAnalysis:
    """Compare reduced ranks (no file access: everything comes from the summaries)."""
    if not summaries:
        raise ReportError("The traces hold no process to analyse.")
    settle_hta(summaries)
    settle_gaps(summaries)
    check_one_run(summaries)
    ranks, rank_source = number_ranks(summaries)
    clock = align_clocks(ranks)
    notes: list[Finding] = []
    counts = Counter(s.comm_source for s in ranks.values() if s.comm_source)
    source = (max(counts, key=lambda k: (counts[k], -SOURCES.index(k))) if counts else None)
    odd = [r for r, s in ranks.items() if s.comm_source != source]
    if source and odd:
        notes.append(Finding(
            "missing-communication", Severity.INFO, "Ranks left out of the collective comparison",
            (Evidence(STEP, "ranks without communication", len(odd), note=source),),
            subject=", ".join(map(str, odd))))
    calls, matching = collective_waits(ranks, clock, source, shared_clock(ranks, clock))
    clock = with_matched_clocks(clock, matching)
    partial = calls.filter(pl.col("ranks") < len(ranks) - len(odd))
    unpaired = matching.calls.filter(pl.col("match").is_null()).height
    if partial.height or unpaired:
        notes.append(Finding(
            "partial-collectives", Severity.INFO, "Collectives not seen on every rank",
            (Evidence(STEP, "collective calls", partial.select("match").unique().height),
             Evidence(STEP, "calls no other rank made", unpaired))))
    spread = exit_spread(calls)
    clock = replace(clock, exit_spread_ns=spread)
    per_step = step_waits(calls)
    straggler, verdict = find_straggler(ranks, calls, per_step, clock)
    steps_note = different_steps(ranks)
    if steps_note is not None:
        notes.append(steps_note)
    if straggler is not None and not captures_line_up(matching, steps_note):
        straggler, verdict = None, captures_differ(matching, steps_note)
    if straggler is not None and spread is not None and spread > straggler.late_ns_per_step / 2:
        clock = replace(clock, safe=False, note=clock.note + (
            f" The ranks leave the collectives a median {fmt_duration(spread)} apart, as much "
            "as half the lateness: treat the lateness as uncertain."))
    per = per_rank_families(ranks)
    return RunAnalysis(
        ranks=ranks, rank_source=rank_source, clock=clock, comm_source=source,
        collectives=calls, step_waits=per_step, straggler=straggler,
        verdict=verdict, families=family_table(per), slow_ranks=slow_ranks(per),
        notes=notes, extra={"per_rank_families": per, "paired_by": matching.paired_by},
    )


def lead_in_windows(summary: RankSummary, calls: pl.DataFrame, rank: int,
                    keys: pl.DataFrame) -> list[tuple[int, int]]:
    """The CPU lead-in windows (local clock) of ``rank`` before the collectives ``keys``
    (``match``)."""
    own = calls.filter(pl.col("rank") == rank).join(keys, on="match", how="semi")
    mine = summary.collectives.join(own.select("op", "seq"), on=["op", "seq"],
                                    how="semi").filter(
        pl.col("cpu_start") > pl.col("cpu_lead_from"))
    return [(int(a), int(b)) for a, b in mine.select("cpu_lead_from", "cpu_start").iter_rows()]


def cpu_calls_in(path: str, windows: list[tuple[int, int]], threads: list[int],
                 options: ReduceOptions, report: TimelineReport | None = None) -> pl.DataFrame:
    """OS runtime and CUDA API calls of ``threads`` inside ``windows`` (disjoint, local
    clock), summed per call name: source, name, calls, ns (time inside the windows).
    ``report``: a Kineto trace's timeline model already read (else it is read again)."""
    schema = {"source": pl.String, "name": pl.String, "calls": I64, "ns": I64}
    if not windows:
        return pl.DataFrame(schema=schema)
    windows = sorted(windows)
    if report is None and kind_of_file(Path(path)) == KINETO:
        report = as_timeline_report(read_trace(Path(path), need_gpu=False, shapes=False))
    if report is not None:
        api, osrt = runtime_calls(report.cuda_api)(windows, [])
        if threads:
            api = api.filter(pl.col("global_tid").is_in(threads))
    else:
        with sqlite_of(Path(path), options) as sqlite, ExportDb(sqlite) as db:
            api, osrt = read_cpu_calls(db, windows, threads=threads or None)
    frame = pl.concat([
        api.select("start", "end", pl.lit("cuda").alias("source"), pl.col("api").alias("name")),
        osrt.select("start", "end", pl.lit("osrt").alias("source"), "name"),
    ])
    w = pl.DataFrame({"w0": [a for a, _ in windows], "w1": [b for _, b in windows]},
                     schema={"w0": I64, "w1": I64})
    inside = frame.join_where(w, pl.col("start") < pl.col("w1"),
                              pl.col("end") > pl.col("w0")).with_columns(
        (pl.min_horizontal("end", "w1") - pl.max_horizontal("start", "w0")).alias("in_first"))
    return (inside.filter(pl.col("in_first") > 0).group_by("source", "name")
            .agg(pl.len().cast(I64).alias("calls"), pl.col("in_first").sum().alias("ns"))
            .sort(["ns", "name"], descending=[True, False]).head(TOP_CALLS)
            .cast(schema))  # type: ignore[arg-type]


def _straggler_detail(run: RunAnalysis, executor: Executor, options: ReduceOptions,
                      cancel: CancelHook | None) -> RunAnalysis:
    straggler = run.straggler
    if straggler is None:
        return run
    calls = run.collectives
    latest = (calls.filter((pl.col("rank") == straggler.rank) & pl.col("last"))
              .sort("late_ns", descending=True).head(DETAIL_WINDOWS).select("match"))
    first = (calls.filter(pl.col("rank") != straggler.rank).join(latest, on="match",
                                                                  how="semi")
             .group_by("rank").agg(pl.col("wait_ns").sum()).sort(["wait_ns", "rank"],
                                                                  descending=[True, False]))
    who = [straggler.rank] + ([int(first["rank"][0])] if first.height else [])
    kept: KeptTraces = run.extra.get(KEPT, {})
    tasks = []
    for rank in who:
        s = run.ranks[rank]
        read = kept.get(s.file)
        tasks.append((cpu_calls_in, (s.file, lead_in_windows(s, calls, rank, latest),
                                     s.main_tids, options, read[1] if read else None)))
    found = dict(executor.run(tasks, cancel))
    mine = found[0]
    if len(who) > 1:
        others = found[1].select("source", "name", pl.col("ns").alias("others_ns"))
        mine = mine.join(others, on=["source", "name"], how="left").with_columns(
            pl.col("others_ns").fill_null(0))
    else:
        mine = mine.with_columns(pl.lit(None, I64).alias("others_ns"))
    detail = replace(straggler, cpu_calls=mine)
    run.extra["compared_with"] = who[1] if len(who) > 1 else None
    run.extra["detail_collectives"] = latest.height
    return replace(run, straggler=detail)


def analyse_run(
    inputs: Sequence[str | os.PathLike[str]],
    *,
    options: ReduceOptions | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: ProgressHook | None = None,
    cancel: CancelHook | None = None,
    keep_traces: bool = False,
) -> RunAnalysis:
    """Reduce the traces of ``inputs`` (directories and files) and compare their ranks.

    ``workers``: worker processes (0: in this process; default: chosen by size and cores);
    ``scheduler``: a Dask scheduler address to run the reductions on instead;
    ``keep_traces``: Kineto traces reduced in this process stay in ``run.extra[KEPT]`` (for
    the straggler detail and the run's critical path, which would read them again). Raises
    ReportError (OpenCancelled when cancelled) with one sentence.
    """
    options = options or ReduceOptions()
    files = run_files(inputs)
    paths = files.paths
    executor = make_executor(paths, workers=workers, scheduler=scheduler)
    kept: KeptTraces | None = None
    in_process = type(executor) is Executor  # the ranks' gaps are then explained together
    if files.kind == KINETO and keep_traces and in_process:
        kept = {}
    try:
        report_progress(progress, f"Reading {len(paths)} traces ({executor.name})", 0.0)
        results: dict[int, list[RankSummary]] = {}
        tasks: list[tuple[Callable[..., list[RankSummary]], tuple[Any, ...]]] = [
            (reduce_kineto, (str(p), options, kept, in_process)) if files.kind == KINETO
            else (reduce_trace, (str(p), options)) for p in paths]
        for done, (index, summaries) in enumerate(executor.run(tasks, cancel), start=1):
            results[index] = summaries
            report_progress(progress, f"Read {done} of {len(paths)} traces "
                            f"({paths[index].name})", done / len(paths))
        summaries = [s for i in sorted(results) for s in results[i]]
        report_progress(progress, "Comparing the ranks", None)
        run = analyse(summaries)
        run.extra["executor"] = executor.name
        if kept is not None:
            run.extra[KEPT] = kept
        run.extra["trace_kind"] = files.kind
        if files.left_out:
            run.notes.append(left_out(files.left_out))
        return _straggler_detail(run, executor, options, cancel)
    finally:
        executor.close()
