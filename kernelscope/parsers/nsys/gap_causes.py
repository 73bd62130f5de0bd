"""What the CPU was doing during large GPU idle gaps, and the cause of each.

For a gap on a device, the *feeding thread* is the CPU thread whose CUDA API call launched
the operation that ends the gap (found through ``correlationId``); when that is unknown, all
threads of the device's processes that made CUDA API calls are used. The CUDA API calls,
OS runtime calls and NVTX ranges of those threads that overlap the gap are listed, and the
share of the gap each category of call covers decides the cause:

- ``sync``: synchronisation APIs (``cudaDeviceSynchronize``, ``cudaStreamSynchronize``,
  ``cudaEventSynchronize``, ``cuCtxSynchronize``, ...);
- ``memcpy``: synchronous copies/memsets (``cudaMemcpy``, ``cudaMemset``, non-``Async``) or
  ``Async`` copies from/to pageable memory;
- ``in-graph``: the operations before and after the gap belong to the same CUDA graph launch
  (``--cuda-graph-trace=node``): all the work was submitted at once, so the gap is the
  graph's own (a dependency between nodes, an event wait, a host node), not the CPU's;
- ``alloc``: memory allocation and pinning, which block the host and often the device
  (``cudaMalloc``, ``cudaFree``, ``cudaHostAlloc``, ``cudaMallocHost``, ``cudaHostRegister``,
  ``cuMemAlloc``, ``cuMemCreate``/``cuMemMap``, ...);
- ``cuda-setup``: creating streams, events and graphs, setting kernel attributes, looking up
  functions (``cudaStreamCreate``, ``cudaEventCreate``, ``cudaGraphInstantiate``,
  ``cuKernelSetAttribute``, ``cuKernelGetFunction``, ``cudaFuncSetAttribute``, ...);
- ``module-loading``: loading a module or library (``cuLibraryLoadData``,
  ``cuModuleLoadData``, ``cuLibraryLoad*``, ``cuModuleLoad*``): with lazy loading, a kernel's
  first launch loads its module, a one-time cost that is not launch overhead;
- ``launch-overhead``: launch APIs (``cudaLaunchKernel``, ``cuLaunchKernel``, the kernel
  lookups done on first launch: ``cuLibraryGetKernel``, ``cuModuleGetFunction``);
- ``graph-launch``: ``cudaGraphLaunch``/``cuGraphLaunch`` calls (a graph's first launch
  uploads it; a large graph takes long to submit);
- ``cuda-api``: other CUDA API calls;
- ``cpu-idle``: blocking OS runtime calls (poll, select, epoll_wait, sleep, futex,
  pthread_cond_wait, sem_wait, ...);
- ``cpu-busy``: the feeding thread is known, OS runtime calls were traced and all its traced
  calls cover less than half of the gap, so it was running its own code;
- ``unknown``: no cause can be named, and ``reason`` says why (no CPU trace of the thread, or
  no OS runtime trace to tell computing from waiting).

A category covering at least half of the gap is its cause; otherwise, when CUDA calls
together cover half, the largest CUDA category is (a gap spent in ``cudaMalloc`` and a
pageable ``cudaMemcpyAsync`` is named after the longer of the two), and so on for all traced
calls. Each explanation names the calls (``detail``: ``cudaMalloc 176 us, cudaLaunchKernel
22 us``) and, only when the report lacks it, the trace option that would tell more
(``hint``: ``--trace=osrt``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from kernelscope.core.durations import fmt_ns
from kernelscope.core.words import api_name
from kernelscope.parsers.nsys.gap_cause_catalog import EXPLAINED
from kernelscope.parsers.nsys.intervals import merge_intervals
from kernelscope.parsers.nsys.model import NsysReport, pid_of
from kernelscope.parsers.nsys.nvtx import nvtx_ranges
from kernelscope.parsers.nsys.thresholds import TIMELINE_THRESHOLDS
from kernelscope.parsers.nsys.utilization import idle_gaps

CAUSES = EXPLAINED
"""The causes a large gap can be given (their titles and remedies: ``gap_cause_catalog``)."""

SYNC_API = r"^(cuda|cu)(Device|Stream|Event|Ctx|Thread)Synchronize"
MEMCPY_API = r"^(cuda|cu)Mem(cpy|set)"
GRAPH_LAUNCH_API = r"^(cuda|cu)GraphLaunch"
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


@dataclass(frozen=True)
class CpuActivity:
    """One CPU-side call or range overlapping a gap."""

    source: str  # "cuda", "osrt" or "nvtx"
    name: str
    tid: int
    start_ns: int
    end_ns: int
    overlap_ns: int

    def as_dict(self) -> dict[str, object]:
        return {
            "source": self.source, "name": self.name, "tid": self.tid,
            "start_ns": self.start_ns, "end_ns": self.end_ns, "overlap_ns": self.overlap_ns,
        }


@dataclass(frozen=True)
class GapExplanation:
    """A large idle gap on one device and what the CPU did meanwhile."""

    device: int
    start_ns: int
    end_ns: int
    cause: str
    thread: int | None  # OS thread id of the feeding thread, when known
    coverage: dict[str, float] = field(default_factory=dict)  # category -> share of the gap
    cpu: list[CpuActivity] = field(default_factory=list)
    next_op: str | None = None
    detail: str = ""
    """The calls behind the cause, longest first: ``cudaMalloc 176.0 us, ioctl 41.0 us``."""
    reason: str = ""
    """Why no cause can be named (``unknown`` only)."""
    hint: str = ""
    """A trace option the report was made without that would tell more, if any."""
    graph: str | None = None
    """"inside" a CUDA graph launch (an ``in-graph`` gap), "launch" (the gap ends at a graph
    launch's first operation), or None."""

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns


def _categorised(frame: pl.DataFrame, category: pl.Expr) -> pl.DataFrame:
    """Add a ``category`` column computed once per distinct ``name`` (regexes are costly)."""
    names = frame.select(pl.col("name").unique()).with_columns(category.alias("category"))
    return frame.join(names, on="name", how="left", maintain_order="left")


def _cpu_events(report: NsysReport, threads: pl.Series, t0: int, t1: int) -> pl.DataFrame:
    """CUDA API calls, OS runtime calls and NVTX ranges of ``threads`` overlapping [t0, t1).

    Columns: start, end, global_tid, name, source, category.
    """
    window = (pl.col("start") < t1) & (pl.col("end") > t0) & pl.col("global_tid").is_in(
        threads.implode()
    )
    api = report.cuda_api.filter(window)
    pageable = report.memcpy.filter(
        (pl.col("src_kind_name") == "Pageable") | (pl.col("dst_kind_name") == "Pageable")
    ).select("correlation_id", pl.lit(True).alias("pageable"))
    api = api.join(pageable, on="correlation_id", how="left").select(
        "start", "end", "global_tid", pl.col("api").alias("name"),
        pl.col("name").str.contains("(?i)async").alias("is_async"),
        pl.col("pageable").fill_null(False),
    )
    api = _categorised(
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
    osrt = _categorised(
        report.osrt.filter(window).select("start", "end", "global_tid", "name"),
        pl.when(pl.col("name").str.contains(IDLE_OSRT)).then(pl.lit("idle"))
        .otherwise(pl.lit("os")),
    ).with_columns(pl.lit("osrt").alias("source"))
    nvtx = (
        nvtx_ranges(report)
        .filter(window)
        .select(
            "start", "end", "global_tid",
            pl.col("range").str.strip_prefix(":").alias("name"),
            pl.lit("nvtx").alias("source"), pl.lit("nvtx").alias("category"),
        )
    )
    cols = ["start", "end", "global_tid", "name", "source", "category"]
    return pl.concat([api.select(cols), osrt.select(cols), nvtx.select(cols)],
                     how="vertical_relaxed")


def _feeding_threads(report: NsysReport, gaps: pl.DataFrame) -> pl.DataFrame:
    """Per gap: ``feeder``, the global tid whose API call launched the operation that ends
    the gap (null when unknown), ``pid`` of that operation's process, ``kind``, and
    ``graph``: "inside" when that operation and one ending the gap's start came from the same
    graph launch, "launch" when only the first did, else null."""
    ops = report.gpu_ops.join(
        gaps.select(pl.col("device").alias("device_id"), pl.col("end_ns").alias("start")),
        on=["device_id", "start"], how="semi",
    ).select(
        pl.col("device_id").alias("device"), pl.col("start").alias("end_ns"),
        "correlation_id", pid_of(pl.col("global_pid")).alias("pid"), "kind",
        pl.col("graph_node_id").is_not_null().alias("_in_graph"),
    )
    before = report.gpu_ops.filter(pl.col("graph_node_id").is_not_null()).join(
        gaps.select(pl.col("device").alias("device_id"), pl.col("start_ns").alias("end")),
        on=["device_id", "end"], how="semi",
    ).select(
        pl.col("device_id").alias("device"), pl.col("end").alias("start_ns"),
        "correlation_id", pid_of(pl.col("global_pid")).alias("pid"),
        pl.lit(True).alias("_same"),
    ).unique()
    inside = (
        gaps.select("gap", "device", "start_ns", "end_ns")
        .join(ops.filter("_in_graph").select("device", "end_ns", "correlation_id", "pid"),
              on=["device", "end_ns"])
        .join(before, on=["device", "start_ns", "correlation_id", "pid"])
        .select("gap", "_same").unique("gap")
    )
    launches = report.cuda_api.join(ops.select("correlation_id"), on="correlation_id",
                                    how="semi").select(
        "correlation_id", pl.col("global_tid").alias("feeder"),
        pid_of(pl.col("global_tid")).alias("pid"),
    )
    # Correlation ids are per process: keep the launch only if it is in the op's process.
    ops = ops.join(launches, on=["correlation_id", "pid"], how="left")
    fed = gaps.join(ops, on=["device", "end_ns"], how="left").unique(
        subset=["gap"], keep="first", maintain_order=True
    )
    return fed.join(inside, on="gap", how="left", maintain_order="left").with_columns(
        pl.when(pl.col("_same").fill_null(False)).then(pl.lit("inside"))
        .when(pl.col("_in_graph").fill_null(False)).then(pl.lit("launch"))
        .otherwise(pl.lit(None, pl.String)).alias("graph")
    ).drop("_same", "_in_graph")


def explain_gaps(
    report: NsysReport,
    *,
    min_gap_ns: int = TIMELINE_THRESHOLDS.large_gap_ns,
    limit: int | None = 50,
    max_cpu: int = 10,
) -> list[GapExplanation]:
    """Explain the ``limit`` longest idle gaps of at least ``min_gap_ns``, in time order."""
    key = ("explain_gaps", min_gap_ns, limit, max_cpu)
    return list(report.memo(key, lambda: _explain(report, min_gap_ns, limit, max_cpu)))


def _explain(
    report: NsysReport, min_gap_ns: int, limit: int | None, max_cpu: int
) -> list[GapExplanation]:
    gaps = idle_gaps(report, min_gap_ns)
    if limit is not None:
        gaps = gaps.sort("duration_ns", descending=True).head(limit)
    gaps = gaps.sort("start_ns", "device").with_row_index("gap")
    if not gaps.height:
        return []
    fed = _feeding_threads(report, gaps)
    # Threads to look at: the feeders, and for gaps without one every CUDA-calling thread
    # of the processes using the device.
    cuda_threads = report.cuda_api.select(pl.col("global_tid").unique()).with_columns(
        pid_of(pl.col("global_tid")).alias("ev_pid")
    )
    gap_pids = fed.filter(pl.col("feeder").is_null()).select("gap", "pid", "device")
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
    watch = pl.concat([
        fed.filter(pl.col("feeder").is_not_null()).select("gap",
                                                           pl.col("feeder").alias("global_tid")),
        fallback,
    ])
    t0 = int(gaps["start_ns"].min())  # type: ignore[arg-type]
    t1 = int(gaps["end_ns"].max())  # type: ignore[arg-type]
    events = _cpu_events(report, watch["global_tid"].unique(), t0, t1)
    hits = (
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
    calls = hits.filter(pl.col("category") != "nvtx")
    covered = (
        merge_intervals(calls, ["gap", "category"])
        .group_by("gap", "category")
        .agg((pl.col("end") - pl.col("start")).sum().alias("ns"))
    )
    any_call = (
        merge_intervals(calls, ["gap"])
        .group_by("gap")
        .agg((pl.col("end") - pl.col("start")).sum().alias("ns"))
    )
    cuda_call = (
        merge_intervals(calls.filter(pl.col("source") == "cuda"), ["gap"])
        .group_by("gap")
        .agg((pl.col("end") - pl.col("start")).sum().alias("ns"))
    )
    cov: dict[int, dict[str, int]] = {}
    for g, cat, ns in covered.iter_rows():
        cov.setdefault(g, {})[cat] = ns
    any_cov = dict(any_call.iter_rows())
    cuda_cov = dict(cuda_call.iter_rows())
    named: dict[tuple[int, str], list[tuple[str, int]]] = {}
    per_name = (
        hits.with_columns((pl.col("end") - pl.col("start")).alias("overlap"))
        .group_by("gap", "category", "name")
        .agg(pl.col("overlap").sum())
        .sort(["gap", "category", "overlap", "name"], descending=[False, False, True, False])
    )
    for g, cat, name, ns in per_name.iter_rows():
        named.setdefault((g, cat), []).append((str(name), int(ns)))
    watched = dict(watch.group_by("gap").len().iter_rows())
    traced = _traced(report)
    listed: dict[int, list[CpuActivity]] = {}
    top = (
        hits.with_columns((pl.col("end") - pl.col("start")).alias("overlap"))
        .sort(["gap", "overlap", "call_start"], descending=[False, True, False])
        .group_by("gap", maintain_order=True)
        .head(max_cpu)
    )
    for row in top.iter_rows(named=True):
        listed.setdefault(row["gap"], []).append(
            CpuActivity(
                source=row["source"], name=row["name"] or "",
                tid=int(row["global_tid"]) % (1 << 24),
                start_ns=row["call_start"], end_ns=row["call_end"], overlap_ns=row["overlap"],
            )
        )
    out = []
    for row in fed.iter_rows(named=True):
        g = row["gap"]
        dur = row["end_ns"] - row["start_ns"]
        shares = {k: v / dur for k, v in cov.get(g, {}).items()}
        feeder = row["feeder"]
        verdict = IN_GRAPH if row["graph"] == "inside" else _cause(
            shares, any_cov.get(g, 0) / dur, cuda_cov.get(g, 0) / dur, feeder is not None,
            watched.get(g, 0), traced,
        )
        detail = _detail(g, verdict, named, dur)
        out.append(
            GapExplanation(
                device=row["device"], start_ns=row["start_ns"], end_ns=row["end_ns"],
                cause=verdict.cause,
                thread=int(feeder) % (1 << 24) if feeder is not None else None,
                coverage={k: round(v, 4) for k, v in sorted(shares.items())},
                cpu=listed.get(g, []), next_op=row["kind"],
                detail=detail, reason=verdict.reason, hint=verdict.hint, graph=row["graph"],
            )
        )
    return out


CATEGORY_CAUSES = {
    "sync": "sync", "memcpy": "memcpy", "alloc": "alloc", "setup": "cuda-setup",
    "module-load": "module-loading", "launch": "launch-overhead",
    "graph-launch": "graph-launch", "api": "cuda-api",
    "idle": "cpu-idle",
}
"""Call category → the cause it names."""
CUDA_CATEGORIES = ("sync", "memcpy", "alloc", "setup", "module-load", "launch", "graph-launch",
                   "api")
OS_BUSY = "os"


@dataclass(frozen=True)
class _Verdict:
    cause: str
    category: str | None = None
    reason: str = ""
    hint: str = ""


IN_GRAPH = _Verdict("in-graph")


@dataclass(frozen=True)
class Traced:
    """What the capture traced (read from the export's tables)."""

    cuda: bool
    osrt: bool
    sampling: bool


def _traced(report: NsysReport) -> Traced:
    tables = report.tables
    return Traced(
        cuda="CUPTI_ACTIVITY_KIND_RUNTIME" in tables,
        osrt="OSRT_API" in tables,
        sampling=bool({"SAMPLING_CALLCHAINS", "COMPOSITE_EVENTS"} & tables),
    )


def _cause(
    shares: dict[str, float],
    any_share: float,
    cuda_share: float,
    feeder_known: bool,
    watched: int,
    traced: Traced,
) -> _Verdict:
    """The cause: a category covering half the gap; else the largest CUDA category when CUDA
    calls together do; else the largest category when all traced calls do (OS calls that are
    not waits do not name a cause: the thread was busy in the OS, which is ``cpu-busy``);
    else ``cpu-busy`` when the thread is known and the OS runtime was traced; else why not."""
    named = {c: v for c, v in shares.items() if c in CATEGORY_CAUSES}
    best = max(named, key=lambda c: named[c], default=None)
    majority = TIMELINE_THRESHOLDS.cause_majority
    if best is not None and named[best] >= majority:
        return _Verdict(CATEGORY_CAUSES[best], best)
    cuda = {c: v for c, v in named.items() if c in CUDA_CATEGORIES}
    if cuda and cuda_share >= majority:
        top = max(cuda, key=lambda c: cuda[c])
        return _Verdict(CATEGORY_CAUSES[top], top)
    if best is not None and any_share >= majority and shares.get(OS_BUSY, 0.0) < named[best] * 2:
        return _Verdict(CATEGORY_CAUSES[best], best)
    sample = "" if traced.sampling else "--sample=process-tree (CPU sampling shows which code ran)"
    if feeder_known and traced.osrt:
        return _Verdict("cpu-busy", OS_BUSY if any_share >= majority else None, hint=sample)
    if not traced.cuda:
        return _Verdict("unknown", reason="The report has no CUDA API trace, so the thread "
                        "that fed the GPU and its calls are unknown.",
                        hint="--trace=cuda")
    if not watched:
        return _Verdict("unknown", reason="No thread of the process using the GPU made a "
                        "traced CUDA call, so none can be held responsible.")
    if not traced.osrt:
        return _Verdict("unknown", reason="Traced CUDA calls cover less than half of the "
                        "gap, and without OS runtime tracing a thread computing cannot be told "
                        "from one sleeping, reading or waiting for a lock.",
                        hint="--trace=osrt")
    return _Verdict("unknown", reason="The operation that ends the gap has no launching call "
                    "in the trace (no correlation), and its process's threads made too few "
                    "traced calls to name one.")


def _detail(
    gap: int, verdict: _Verdict, named: dict[tuple[int, str], list[tuple[str, int]]], dur: int
) -> str:
    """The calls that make the cause (those of its category first, then other calls that
    cover a tenth of the gap), or for a busy thread the NVTX ranges it was in."""
    if verdict.cause == "cpu-busy":
        ranges = [name for name, _ in named.get((gap, "nvtx"), [])[:2]]
        return f"inside NVTX {', '.join(ranges)}" if ranges else ""
    if verdict.category is None:
        return ""
    chosen = named.get((gap, verdict.category), [])[:2]
    others = sorted(
        (item for (g, cat), items in named.items()
         if g == gap and cat not in (verdict.category, "nvtx", OS_BUSY) for item in items[:1]),
        key=lambda item: -item[1],
    )
    picked = chosen + [item for item in others if item[1] >= dur / 10][:2]
    return ", ".join(f"{api_name(n)} {fmt_ns(ns)}" for n, ns in picked)


__all__ = ["CAUSES", "CpuActivity", "GapExplanation", "Traced", "explain_gaps"]
