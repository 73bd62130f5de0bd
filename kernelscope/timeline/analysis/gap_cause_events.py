"""The CPU calls during GPU idle gaps, for ``gap_causes``: the categories of calls (the API
patterns), each gap's feeding thread, the calls of the watched threads that overlap each gap,
how much of the gap each category covers and the calls that covered it most."""

from __future__ import annotations

import polars as pl

from kernelscope.timeline.analysis.critical_path.eager import at_least, take
from kernelscope.timeline.analysis.graphs import GRAPH_LAUNCH_API
from kernelscope.timeline.analysis.nvtx import nvtx_ranges
from kernelscope.timeline.model.intervals import merge_intervals
from kernelscope.timeline.model.model import TimelineReport, pid_of

SYNC_API = r"^(cuda|cu)(Device|Stream|Event|Ctx|Thread)Synchronize"
MEMCPY_API = r"^(cuda|cu)Mem(cpy|set)"
LAUNCH_API = (
    r"^(cuda|cu)(Launch|GraphLaunch|ConfigureCall|PushCallConfiguration|PopCallConfiguration"
    r"|SetupArgument|LibraryGetKernel|KernelGetName|ModuleGetFunction"
    r"|GetFuncBySymbol|FuncGetAttribute)"
)
MODULE_LOAD_API = r"^(cuda|cu)(LibraryLoad|LibraryUnload|ModuleLoad|ModuleUnload)"
"""Module and library loading: one-time (lazy loading does it at a kernel's first launch)."""
ALLOC_API = (
    r"^(cuda|cu)(Malloc|Free|HostAlloc|HostRegister|HostUnregister|MallocHost|FreeHost"
    r"|MallocManaged|MallocPitch|Malloc3D|MallocArray|FreeArray|MemAlloc|MemFree|MemHostAlloc"
    r"|MemHostRegister|MemHostUnregister|MemCreate|MemRelease|MemMap|MemUnmap|MemSetAccess"
    r"|MemAddressReserve|MemAddressFree|MemPoolCreate|MemPoolTrimTo|DeviceSetLimit"
    r"|DeviceReset)"
)
SETUP_API = (
    r"^(cuda|cu)(StreamCreate|StreamDestroy|EventCreate|EventDestroy|GraphCreate"
    r"|GraphInstantiate|GraphExecDestroy|GraphDestroy|GraphUpload|StreamBeginCapture"
    r"|StreamEndCapture|KernelSetAttribute|KernelGetFunction|FuncSetAttribute"
    r"|FuncSetCacheConfig|SetDevice|GetDeviceProperties|DeviceGetAttribute|Init|CtxCreate"
    r"|DevicePrimaryCtxRetain|CtxSetCurrent|CtxGetCurrent|GetProcAddress|GetExportTable"
    r"|DriverGetVersion|RuntimeGetVersion|ProfilerStart|ProfilerStop)"
)
IDLE_OSRT = (
    r"^(poll|ppoll|select|pselect6?|epoll_wait|epoll_pwait2?|sleep|usleep|nanosleep"
    r"|clock_nanosleep|futex|pthread_cond_(timed)?wait|sem_(timed)?wait|sem_clockwait"
    r"|pthread_join|pthread_mutex_(timed)?lock|pthread_rwlock_\w*lock|sched_yield|wait|waitpid"
    r"|waitid|accept4?|recv|recvfrom|recvmsg|msgrcv|sigwait\w*|pause)$"
)


def categorised(frame: pl.LazyFrame, category: pl.Expr) -> pl.LazyFrame:
    """Add a ``category`` column computed once per distinct ``name`` (regexes are costly)."""
    names = frame.select(pl.col("name").unique()).with_columns(category.alias("category"))
    return frame.join(names, on="name", how="left", maintain_order="left")


NEAR_GAPS_ROWS = 2_000
"""Up to this many calls, every call is categorised: finding those near the gaps would cost
more than it saves."""


def near_gaps(frame: pl.DataFrame, gaps: pl.DataFrame | None,
              min_rows: int = NEAR_GAPS_ROWS) -> pl.DataFrame:
    """The rows of ``frame`` (start, end, neither null) that overlap or touch the union of
    ``gaps`` (start_ns, end_ns; None: every row): a superset of the rows overlapping a gap,
    found with one binary search a row, so that the calls of a long trace are categorised
    only where :func:`gap_hits` may keep them. A frame of ``min_rows`` or fewer is kept
    whole."""
    if gaps is None or frame.height <= min_rows:
        return frame
    union = merge_intervals(gaps.select(pl.col("start_ns").alias("start"),
                                        pl.col("end_ns").alias("end")))
    before = union["start"].search_sorted(frame["end"], side="left").cast(pl.Int64) - 1
    reach = take(union["end"], at_least(before, 0))  # no query: series methods
    return frame.filter((before >= 0) & (reach >= frame["start"]))


def cpu_events(report: TimelineReport, threads: pl.Series, t0: int, t1: int,
               gaps: pl.DataFrame | None = None) -> pl.DataFrame:
    """CUDA API calls, OS runtime calls and NVTX ranges of ``threads`` overlapping [t0, t1)
    (and, given ``gaps``, near one of them: :func:`near_gaps`).

    Columns: start, end, global_tid, name, source, category. After the searches near the
    gaps, one in-memory query: on these few rows each query's fixed cost is what counts.
    """
    window = (pl.col("start") < t1) & (pl.col("end") > t0) & pl.col("global_tid").is_in(
        threads.implode()
    )
    api = near_gaps(report.cuda_api.filter(window), gaps).lazy()
    pageable = report.memcpy.lazy().filter(
        (pl.col("src_kind_name") == "Pageable") | (pl.col("dst_kind_name") == "Pageable")
    ).select("correlation_id", pl.lit(True).alias("pageable"))
    api = api.join(pageable, on="correlation_id", how="left").select(
        "start", "end", "global_tid", pl.col("api").alias("name"),
        pl.col("name").str.contains("(?i)async").alias("is_async"),
        pl.col("pageable").fill_null(False),
    )
    api = categorised(
        api,
        pl.when(pl.col("name").str.contains(SYNC_API)).then(pl.lit("sync"))
        .when(pl.col("name").str.contains(MEMCPY_API)).then(pl.lit("memcpy"))
        .when(pl.col("name").str.contains(GRAPH_LAUNCH_API)).then(pl.lit("graph-launch"))
        .when(pl.col("name").str.contains(ALLOC_API)).then(pl.lit("alloc"))
        .when(pl.col("name").str.contains(MODULE_LOAD_API)).then(pl.lit("module-load"))
        .when(pl.col("name").str.contains(SETUP_API)).then(pl.lit("setup"))
        .when(pl.col("name").str.contains(LAUNCH_API)).then(pl.lit("launch"))
        .otherwise(pl.lit("api")),
    ).with_columns(
        # An async copy only blocks the host when it touches pageable memory.
        pl.when((pl.col("category") == "memcpy") & pl.col("is_async") & ~pl.col("pageable"))
        .then(pl.lit("api")).otherwise(pl.col("category")).alias("category"),
        pl.lit("cuda").alias("source"),
    ).select("start", "end", "global_tid", "name", "source", "category")
    osrt = categorised(
        near_gaps(report.osrt.filter(window), gaps).lazy().select("start", "end", "global_tid",
                                                                   "name"),
        pl.when(pl.col("name").str.contains(IDLE_OSRT)).then(pl.lit("idle"))
        .otherwise(pl.lit("os")),
    ).with_columns(pl.lit("osrt").alias("source"))
    nvtx = (
        nvtx_ranges(report).lazy()
        .filter(window)
        .select(
            "start", "end", "global_tid",
            pl.col("range").str.strip_prefix(":").alias("name"),
            pl.lit("nvtx").alias("source"), pl.lit("nvtx").alias("category"),
        )
    )
    cols = ["start", "end", "global_tid", "name", "source", "category"]
    return pl.concat([api.select(cols), osrt.select(cols), nvtx.select(cols)],
                     how="vertical_relaxed").collect(engine="in-memory")


def feeding_threads(report: TimelineReport, gaps: pl.DataFrame) -> pl.DataFrame:
    """Per gap: ``feeder``, the global tid whose API call launched the operation that ends
    the gap (null when unknown), ``pid`` of that operation's process, ``kind``, and
    ``graph``: "inside" when that operation and one ending the gap's start came from the same
    graph launch, "launch" when only the first did, else null."""
    ops = report.gpu_ops.filter(  # first the few starting at a gap's end: one column
        pl.col("start").is_in(gaps["end_ns"].implode())).join(
        gaps.select(pl.col("device").alias("device_id"), pl.col("end_ns").alias("start")),
        on=["device_id", "start"], how="semi",
    ).select(
        pl.col("device_id").alias("device"), pl.col("start").alias("end_ns"),
        "correlation_id", pid_of(pl.col("global_pid")).alias("pid"), "kind",
        pl.col("graph_node_id").is_not_null().alias("_in_graph"),
    )
    inside = _inside_graphs(report, gaps, ops)
    launches = report.cuda_api.lazy().filter(  # the same rows as a semi join, quicker
        pl.col("correlation_id").is_in(ops["correlation_id"].implode())).select(
        "correlation_id", pl.col("global_tid").alias("feeder"),
        pid_of(pl.col("global_tid")).alias("pid"),
    )
    # Correlation ids are per process: keep the launch only if it is in the op's process.
    fed = gaps.lazy().join(
        ops.lazy().join(launches, on=["correlation_id", "pid"], how="left"),
        on=["device", "end_ns"], how="left",
    ).unique(subset=["gap"], keep="first", maintain_order=True)
    return fed.join(inside.lazy(), on="gap", how="left", maintain_order="left").with_columns(
        pl.when(pl.col("_same").fill_null(False)).then(pl.lit("inside"))
        .when(pl.col("_in_graph").fill_null(False)).then(pl.lit("launch"))
        .otherwise(pl.lit(None, pl.String)).alias("graph")
    ).drop("_same", "_in_graph").collect(engine="in-memory")


def _inside_graphs(report: TimelineReport, gaps: pl.DataFrame,
                   ops: pl.DataFrame) -> pl.DataFrame:
    """(gap, _same) of the gaps whose ending operation (``ops``) and an operation ending at
    the gap's start came from the same graph launch (none without graph operations)."""
    if not ops["_in_graph"].any():
        return pl.DataFrame(schema={"gap": gaps.schema["gap"], "_same": pl.Boolean})
    before = report.gpu_ops.filter(pl.col("graph_node_id").is_not_null()).join(
        gaps.select(pl.col("device").alias("device_id"), pl.col("start_ns").alias("end")),
        on=["device_id", "end"], how="semi",
    ).select(
        pl.col("device_id").alias("device"), pl.col("end").alias("start_ns"),
        "correlation_id", pid_of(pl.col("global_pid")).alias("pid"),
        pl.lit(True).alias("_same"),
    ).unique()
    return (
        gaps.select("gap", "device", "start_ns", "end_ns")
        .join(ops.filter("_in_graph").select("device", "end_ns", "correlation_id", "pid"),
              on=["device", "end_ns"])
        .join(before, on=["device", "start_ns", "correlation_id", "pid"])
        .select("gap", "_same").unique("gap")
    )


def watched_threads(report: TimelineReport, fed: pl.DataFrame) -> pl.DataFrame:
    """(gap, global_tid) of the threads to look at: the feeders, and for gaps without one
    every CUDA-calling thread of the processes using the device."""
    feeders = fed.filter(pl.col("feeder").is_not_null()).select(
        "gap", pl.col("feeder").alias("global_tid"))
    gap_pids = fed.filter(pl.col("feeder").is_null()).select("gap", "pid", "device")
    if not gap_pids.height:  # every gap has its feeder: no thread list to build
        return feeders
    cuda_threads = report.cuda_api.select(pl.col("global_tid").unique()).with_columns(
        pid_of(pl.col("global_tid")).alias("ev_pid")
    )
    device_pids = (
        report.gpu_ops.select(pl.col("device_id").alias("device"), "global_pid")
        .unique()
        .select("device", pid_of(pl.col("global_pid")).alias("ev_pid"))
        .unique()
    )
    fallback = (
        gap_pids.join(device_pids, on="device")
        .filter(pl.col("pid").is_null() | (pl.col("pid") == pl.col("ev_pid")))
        .join(cuda_threads, on="ev_pid")
        .select("gap", "global_tid")
    )
    return pl.concat([feeders, fallback])


def gap_hits(fed: pl.DataFrame, events: pl.DataFrame, watch: pl.DataFrame) -> pl.DataFrame:
    """The watched threads' calls that overlap each gap, cut to the gap (``start``, ``end``;
    the whole call in ``call_start``, ``call_end``)."""
    return (
        fed.select("gap", "start_ns", "end_ns")
        .join_where(events, pl.col("start") < pl.col("end_ns"),
                    pl.col("end") > pl.col("start_ns"))
        .join(watch, on=["gap", "global_tid"], how="semi")
        .with_columns(
            pl.col("start").alias("call_start"),
            pl.col("end").alias("call_end"),
            pl.max_horizontal("start", "start_ns").alias("start"),
            pl.min_horizontal("end", "end_ns").alias("end"),
        )
    )


def _covered(calls: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    return (
        merge_intervals(calls, by)
        .group_by(*by)
        .agg((pl.col("end") - pl.col("start")).sum().alias("ns"))
    )


def covered_ns(
    hits: pl.DataFrame,
) -> tuple[dict[int, dict[str, int]], dict[int, int], dict[int, int]]:
    """Per gap, the nanoseconds its calls cover: by category, by any call, by CUDA calls
    (NVTX ranges are not calls)."""
    calls = hits.filter(pl.col("category") != "nvtx")
    cov: dict[int, dict[str, int]] = {}
    for g, cat, ns in _covered(calls, ["gap", "category"]).iter_rows():
        cov.setdefault(g, {})[cat] = ns
    any_cov = dict(_covered(calls, ["gap"]).iter_rows())
    cuda_cov = dict(_covered(calls.filter(pl.col("source") == "cuda"), ["gap"]).iter_rows())
    return cov, any_cov, cuda_cov


def named_calls(hits: pl.DataFrame) -> dict[tuple[int, str], list[tuple[str, int]]]:
    """Per (gap, category), the calls' names with their overlap, longest first."""
    named: dict[tuple[int, str], list[tuple[str, int]]] = {}
    per_name = (
        hits.with_columns((pl.col("end") - pl.col("start")).alias("overlap"))
        .group_by("gap", "category", "name")
        .agg(pl.col("overlap").sum())
        .sort(["gap", "category", "overlap", "name"], descending=[False, False, True, False])
    )
    for g, cat, name, ns in per_name.iter_rows():
        named.setdefault((g, cat), []).append((str(name), int(ns)))
    return named
