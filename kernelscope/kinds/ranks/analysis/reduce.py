"""Reduce one trace file to :class:`RankSummary` objects (one per rank process in it).

This is the function the worker processes (or Dask workers) run; it takes a path and plain
options and returns small objects, so only summaries cross process boundaries. A file with
one process using the GPU is one rank; a file holding several (``nsys profile mpirun …``)
gives one rank per process that ran GPU work.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from kernelscope.core.detect import ReportKind, check_readable, detect_kind, is_compressed
from kernelscope.core.errors import ReportError
from kernelscope.kinds.nsys.model.db import ExportDb
from kernelscope.kinds.ranks.analysis.collectives import communication, nccl_op
from kernelscope.kinds.ranks.analysis.measures import (
    LEAD_SCHEMA,
    busy_curve,
    covered_in,
    env_rank_of,
    extent,
    main_tids,
    nvtx_rank_of,
    overlap,
    process_of,
    time_in_thread_ranges,
)
from kernelscope.kinds.ranks.analysis.model import DEFAULT_BUSY_POINTS, RankSummary
from kernelscope.kinds.ranks.analysis.rank_gaps import (
    CAUSE_SCHEMA,
    PENDING,
    gap_causes,
    only_process,
    pending_gaps,
)
from kernelscope.kinds.ranks.analysis.read import (
    CallReader,
    TraceTables,
    read_cpu_calls,
    read_tables,
)
from kernelscope.kinds.ranks.analysis.steps import rank_steps
from kernelscope.timeline.analysis.gpu_breakdown import gpu_ops, ops_breakdown
from kernelscope.timeline.analysis.nvtx import nvtx_ranges
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.model.intervals import Coverage
from kernelscope.timeline.model.model import TimelineReport, pid_of

I64 = pl.Int64
def sqlite_calls(db: ExportDb) -> CallReader:
    """The CPU calls of an nsys export, read when asked for."""
    return lambda windows, correlation_ids: read_cpu_calls(
        db, windows, correlation_ids=correlation_ids)


@dataclass(frozen=True)
class ReduceOptions:
    """What the reduction needs besides the path (plain values: they travel to workers)."""

    cache_dir: str | None = None
    nsys: str | None = None
    min_gap_ns: int = TIMELINE_THRESHOLDS.large_gap_ns
    max_gaps: int = 50
    busy_points: int = DEFAULT_BUSY_POINTS


@contextlib.contextmanager
def sqlite_of(path: Path, options: ReduceOptions) -> Iterator[Path]:
    """The SQLite export to read for ``path``: itself, its decompressed copy in a scratch
    directory (removed afterwards) or the cached ``nsys export`` of an ``.nsys-rep``.
    (The nsys modules are imported here: a Kineto run never needs them.)"""
    from kernelscope.kinds.nsys.model.cache import default_cache_dir, ensure_cache_dir
    from kernelscope.kinds.nsys.model.decompress import decompress_to, scratch_name
    from kernelscope.kinds.nsys.model.opener import exported_sqlite_path

    report = check_readable(path)
    kind = detect_kind(report)
    if kind is ReportKind.NCU:
        raise ReportError(f"{report.name} is an Nsight Compute report, not an Nsight Systems "
                          "trace of a rank.")
    if kind is ReportKind.NSYS:
        yield exported_sqlite_path(report, cache_dir=options.cache_dir, nsys=options.nsys)
        return
    if not is_compressed(report):
        yield report
        return
    base = Path(options.cache_dir) if options.cache_dir else default_cache_dir()
    try:
        ensure_cache_dir(base)
        scratch = tempfile.TemporaryDirectory(prefix=".scratch-", dir=base)
    except (ReportError, OSError):
        if options.cache_dir:
            raise
        scratch = tempfile.TemporaryDirectory(prefix="kernelscope-")
    with scratch as tmp:
        yield decompress_to(report, Path(tmp) / scratch_name(report))


def reduce_trace(path: str, options: ReduceOptions | None = None) -> list[RankSummary]:
    """Read ``path`` (``.sqlite``, ``.nsys-rep``, either compressed) and reduce each rank
    process in it. Raises ReportError with one sentence on bad input."""
    options = options or ReduceOptions()
    source = Path(path)
    try:
        with sqlite_of(source, options) as sqlite, \
                ExportDb(sqlite, display_name=source.name) as db:
            tables = read_tables(db)
            units = _rank_processes(tables)
            return [reduce_unit(sqlite_calls(db), tables, str(path), pid, len(units) > 1,
                                options) for pid in units]
    except (sqlite3.Error, pl.exceptions.PolarsError) as exc:
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ReportError(f"{source.name} could not be read ({detail.rstrip('.')}).") from exc


def _rank_processes(tables: TraceTables) -> list[int | None]:
    """The pids that are ranks: those with GPU work; [None] (the whole file) when one or none
    has GPU work."""
    pids: set[int] = set()
    for frame in (tables.kernels, tables.memcpy, tables.memset):
        pids.update(int(p) for p in frame.select(pid_of(pl.col("global_pid")).unique())
                    ["global_pid"].drop_nulls())
    return sorted(pids) if len(pids) > 1 else [None]  # type: ignore[return-value]


def _partial_report(path: str, tables: TraceTables, pid: int | None) -> TimelineReport:
    """An :class:`TimelineReport` over the rows read so far (no CPU calls yet), for the timeline
    functions that take one (NVTX ranges, gap explanations)."""
    nulls = [pl.lit(None, I64).alias(c) for c in ("context_id", "green_context_id")]
    kernels = only_process(tables.kernels, "global_pid", pid).with_columns(
        nulls[0], pl.lit(None, pl.Categorical).alias("name"),
        pl.lit(None, pl.Categorical).alias("short_name"))
    memcpy = only_process(tables.memcpy, "global_pid", pid).with_columns(*nulls)
    memset = only_process(tables.memset, "global_pid", pid).with_columns(*nulls)
    nvtx = only_process(tables.nvtx, "global_tid", pid)
    last = nvtx.select(pl.max_horizontal(pl.col("start").max(), pl.col("end").max())).item()
    empty_calls = pl.DataFrame(schema={"start": I64, "end": I64, "global_tid": I64,
                                       "correlation_id": I64, "name": pl.String,
                                       "api": pl.String})
    return TimelineReport(
        path=Path(path), sqlite_path=None, start_ns=0, end_ns=0, devices=[], processes=[],
        kernels=kernels, memcpy=memcpy, memset=memset, cuda_api=empty_calls,
        osrt=pl.DataFrame(schema={"start": I64, "end": I64, "global_tid": I64,
                                  "event_class": I64, "name": pl.String}),
        nvtx=nvtx, overhead=pl.DataFrame(schema={"start": I64, "end": I64, "global_tid": I64,
                                                 "name": pl.String}),
        nvtx_last_ns=None if last is None else int(last), tables=tables.tables,
    )


def _families(kernels: pl.DataFrame, names: dict[int, str]) -> pl.DataFrame:
    """Per kernel name (demangled, as ``nsys stats`` groups): instances and durations."""
    stats = (kernels.group_by("name_id").agg(
        pl.len().cast(I64).alias("instances"),
        (pl.col("end") - pl.col("start")).sum().alias("total_ns"),
        (pl.col("end") - pl.col("start")).min().alias("min_ns"),
        (pl.col("end") - pl.col("start")).median().alias("med_ns"),
        (pl.col("end") - pl.col("start")).max().alias("max_ns"),
    ).with_columns(pl.col("name_id").replace_strict(names, default="(unnamed)",
                                                    return_dtype=pl.String).alias("name")))
    return stats.select(
        "name", nccl_op(pl.col("name")).is_not_null().alias("comm"), "instances", "total_ns",
        "min_ns", pl.col("med_ns").cast(pl.Float64), "max_ns",
    ).sort(["total_ns", "name"], descending=[True, False])


def _nccl_launches(read: CallReader, calls: pl.DataFrame, kernels: pl.DataFrame,
                   nccl: pl.DataFrame) -> pl.DataFrame:
    """NCCL collectives with the CPU side of each: the launch call's start/end and thread."""
    corr = kernels.join(nccl.select("start", "end"), on=["start", "end"], how="semi")
    api, _ = read([], corr["correlation_id"].drop_nulls().to_list())
    launches = corr.select("start", "correlation_id").join(
        api.select("correlation_id", pl.col("start").alias("cpu_start"),
                   pl.col("end").alias("cpu_end"), pl.col("global_tid").alias("tid")),
        on="correlation_id", how="left").unique("start", keep="first")
    return calls.drop("cpu_start", "cpu_end").join(
        launches.drop("correlation_id"), on="start", how="left").with_columns(
        pl.coalesce("tid", "global_tid").alias("global_tid")).drop("tid")


def _lead_windows(calls: pl.DataFrame, steps: pl.DataFrame, first_ns: int) -> pl.DataFrame:
    """Each collective with the start of its lead-in on the GPU/call timeline (``lead_from``)
    and on the CPU (``cpu_lead_from``).

    The lead-in to a collective runs from the end of the rank's previous communication call
    (or, for its first one, the start of its step or of its trace) to its arrival. For NCCL
    kernels the CPU side is the launch calls: from the previous NCCL launch to this one.
    """
    calls = calls.sort("start").with_columns(
        pl.col("end").shift(1).alias("prev_end"), pl.col("cpu_end").shift(1).alias("prev_cpu"))
    calls = calls.join_asof(steps.select(pl.col("start").alias("s0"),
                                         pl.col("start").alias("step_start")).sort("s0"),
                            left_on="start", right_on="s0", strategy="backward")
    step_start = pl.col("step_start").fill_null(first_ns)
    return calls.with_columns(
        pl.min_horizontal(pl.max_horizontal(pl.col("prev_end").fill_null(step_start),
                                            pl.lit(first_ns)), "start").alias("lead_from"),
        pl.min_horizontal(pl.max_horizontal(pl.col("prev_cpu").fill_null(step_start),
                                            pl.lit(first_ns)), "cpu_start")
        .alias("cpu_lead_from"),
    ).drop("prev_end", "prev_cpu", "s0", "step_start")


def _lead_in(calls: pl.DataFrame, ranges: pl.DataFrame, busy: Coverage,
             steps: pl.DataFrame) -> pl.DataFrame:
    """What the rank did before arriving at each collective (``calls`` from
    :func:`_lead_windows`).

    Rows: the lead-in's length (``window``), the GPU busy time in it (``gpu``), and the time
    inside each NVTX range of the calling thread during its CPU lead-in (``nvtx``; the step
    ranges and the ranges that enclose the whole lead-in are left out).
    """
    schema = LEAD_SCHEMA
    lead = calls.filter(pl.col("collective"))
    if not lead.height:
        return pl.DataFrame(schema=schema)
    window = lead.select("op", "seq", pl.lit("window").alias("what"), pl.lit("").alias("name"),
                         (pl.col("start") - pl.col("lead_from")).alias("ns"))
    gpu_busy = covered_in(busy, lead["lead_from"], lead["start"])
    gpu = lead.select("op", "seq", pl.lit("gpu").alias("what"), pl.lit("busy").alias("name"),
                      gpu_busy.alias("ns"))
    parts = [window, gpu]
    step_names = steps["name"].drop_nulls().unique().implode()
    ranges = ranges.filter(~pl.col("range").str.strip_prefix(":").is_in(step_names))
    cpu = lead.select("op", "seq", "global_tid", pl.col("cpu_lead_from").alias("w0"),
                      pl.col("cpu_start").alias("w1")).filter(pl.col("w1") > pl.col("w0"))
    parts.append(time_in_thread_ranges(cpu, ranges))
    return pl.concat(parts, how="vertical_relaxed").cast(schema)  # type: ignore[arg-type]


def _nccl_kernels(kernels: pl.DataFrame, names: dict[int, str]
                  ) -> tuple[list[int], pl.DataFrame]:
    """The NCCL kernels' name ids, and the NCCL kernels with their names."""
    ids = [i for i, n in names.items() if re.search(r"(?:^|\s)nccl(?:Dev)?Kernel_", n)]
    # (a mapping with no entry would leave the ids' type: a trace without kernels has none)
    return ids, kernels.filter(pl.col("name_id").is_in(ids)).with_columns(
        pl.col("name_id").replace_strict(names, return_dtype=pl.String).alias("name")
        if ids else pl.lit(None, pl.String).alias("name"))


def _in_steps(calls: pl.DataFrame, steps: pl.DataFrame) -> pl.DataFrame:
    """``calls`` with the step each starts in (null outside every step)."""
    return calls.sort("start").join_asof(
        steps.select(pl.col("start").alias("s0"), pl.col("end").alias("s1"), "step").sort("s0"),
        left_on="start", right_on="s0", strategy="backward",
    ).with_columns(pl.when(pl.col("start") < pl.col("s1")).then(pl.col("step")).alias("step")
                   ).drop("s0", "s1")


@dataclass(frozen=True)
class Extras:
    """What a trace kind adds to the reduction: its own collective calls (with their
    identity), its own steps, and members for the rank's JSON. ``own_breakdown``: the kind
    sets the rank's temporal breakdown and overlap itself (Kineto: HTA's, chosen by
    ``kineto_reduce.settle_hta``), so the reduction leaves them out."""

    comm: tuple[str, pl.DataFrame] | None = None
    steps: pl.DataFrame | None = None
    members: dict[str, object] | None = None
    own_breakdown: bool = False


def reduce_unit(read: CallReader, tables: TraceTables, path: str, pid: int | None,
                several: bool, options: ReduceOptions, extras: Extras | None = None,
                defer_gaps: bool = False) -> RankSummary:
    """One rank (the process ``pid`` of the trace, or all of it) reduced from its tables;
    ``read`` reads its CPU calls when the lead-ins and gaps need them. ``defer_gaps``: its gap
    causes are left to ``rank_gaps.settle_gaps`` (extras ``PENDING``), which explains the
    gaps of every rank read in this process at once."""
    extras = extras or Extras()
    report = _partial_report(path, tables, pid)
    kernels = report.kernels.select("start", "end", "device_id", "stream_id", "correlation_id",
                                    "global_pid", "name_id").sort("start")
    names = tables.names
    nccl_ids, nccl = _nccl_kernels(kernels, names)
    ranges = nvtx_ranges(report)
    mpi = only_process(tables.mpi, "global_tid", pid)
    source, calls = communication(nccl, mpi, ranges, extras.comm)
    first, last = extent([report.gpu_ops, ranges, mpi])
    per_device = report.device_busy
    busy = (next(iter(per_device.values())) if len(per_device) == 1
            else Coverage.from_intervals(report.gpu_ops))
    steps, step_source, anchor = rank_steps(ranges, kernels, names, extras.steps, busy.total)
    calls = calls.with_columns(pl.col("start").alias("cpu_start"), pl.col("end").alias("cpu_end"))
    if source == "nccl":
        calls = _nccl_launches(read, calls, kernels, nccl)
    calls = _lead_windows(_in_steps(calls, steps), steps, first)
    compute = Coverage.from_intervals(kernels.filter(~pl.col("name_id").is_in(nccl_ids)))
    comm = Coverage.from_intervals(calls)
    cpu_comm = comm if source != "nccl" else Coverage.from_intervals(calls.clear())
    gpu_start, gpu_end, edges, cum = busy_curve(busy, options.busy_points)
    env_rank, env_var = env_rank_of(tables.environment) if not several else (None, None)
    used = sorted(set(report.gpu_ops["device_id"].drop_nulls().to_list()))
    tids = main_tids(calls, ranges)
    process_pid = pid if pid is not None else process_of(kernels)
    label = Path(path).name + (f" [pid {pid}]" if several else "")
    temporal, comm_comp = (None, None) if extras.own_breakdown else ops_breakdown(gpu_ops(
        kernels, report.memcpy, report.memset,
        pl.col("name_id").replace_strict(names, default=None, return_dtype=pl.String)))
    gaps = pending_gaps(read, report, busy, cpu_comm, options.min_gap_ns, options.max_gaps, pid)
    return RankSummary(
        file=path, label=label, pid=process_pid,
        process=tables.process_names.get(process_pid or -1, ""),
        host=tables.host, session_start_utc_ns=tables.session_start_utc_ns,
        env_rank=env_rank, env_rank_variable=env_var,
        nvtx_rank=nvtx_rank_of(report.nvtx), nsys_version=tables.nsys_version,
        devices=[f"{tables.devices.get(d, f'GPU {d}')} ({d})" for d in used],
        kernels=kernels.height, first_ns=first, last_ns=last,
        gpu_start_ns=gpu_start, gpu_end_ns=gpu_end, gpu_busy_ns=busy.total,
        compute_ns=compute.total, comm_ns=comm.total, overlap_ns=overlap(compute, comm),
        comm_source=source, steps=steps, step_source=step_source, step_anchor=anchor,
        collectives=calls.select("op", "seq", "start", "end", "global_tid", "collective",
                                 "key", "recorded_seq", "step", "lead_from", "cpu_start",
                                 "cpu_lead_from"),
        lead_in=_lead_in(calls, ranges, busy, steps),
        gaps=pl.DataFrame(schema=CAUSE_SCHEMA) if defer_gaps else gap_causes(gaps),
        families=_families(kernels, names),
        busy_edges=edges, busy_cum=cum, main_tids=tids,
        temporal=temporal, comm_comp_overlap_pct=comm_comp,
        extras={**(extras.members or {}), **({PENDING: gaps} if defer_gaps else {})},
    )


__all__ = ["CallReader", "Extras", "ReduceOptions", "reduce_trace", "reduce_unit",
           "sqlite_of"]
