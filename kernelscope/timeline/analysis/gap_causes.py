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
  no OS runtime trace to tell computing from waiting; a gap that ends at a unified-memory
  migration says so: a page fault, not a call, started that operation).

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
from kernelscope.timeline.analysis.gap_cause_catalog import EXPLAINED
from kernelscope.timeline.analysis.gap_cause_events import (
    covered_ns,
    cpu_events,
    feeding_threads,
    gap_hits,
    named_calls,
    watched_threads,
)
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.analysis.unified_memory import unified_migrations
from kernelscope.timeline.analysis.utilization import idle_gaps
from kernelscope.timeline.model.model import TimelineReport

CAUSES = EXPLAINED
"""The causes a large gap can be given (their titles and remedies: ``gap_cause_catalog``)."""



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


def explain_gaps(
    report: TimelineReport,
    *,
    min_gap_ns: int = TIMELINE_THRESHOLDS.large_gap_ns,
    limit: int | None = 50,
    max_cpu: int = 10,
) -> list[GapExplanation]:
    """Explain the ``limit`` longest idle gaps of at least ``min_gap_ns``, in time order."""
    key = ("explain_gaps", min_gap_ns, limit, max_cpu)
    return list(report.memo(key, lambda: _explain(report, min_gap_ns, limit, max_cpu)))


def largest_gaps(report: TimelineReport, min_gap_ns: int, limit: int | None) -> pl.DataFrame:
    """The ``limit`` longest idle gaps of at least ``min_gap_ns`` (``idle_gaps``' columns):
    the gaps :func:`explain_gaps` explains."""
    gaps = idle_gaps(report, min_gap_ns)
    if limit is not None:
        gaps = gaps.sort("duration_ns", descending=True).head(limit)
    return gaps


def _explain(
    report: TimelineReport, min_gap_ns: int, limit: int | None, max_cpu: int
) -> list[GapExplanation]:
    return explain_selected(report, largest_gaps(report, min_gap_ns, limit), max_cpu)


def explain_selected(report: TimelineReport, gaps: pl.DataFrame, max_cpu: int = 10, *,
                     details: bool = True) -> list[GapExplanation]:
    """Explain ``gaps`` (device, start_ns, end_ns, duration_ns: :func:`largest_gaps`, or the
    gaps of several ranks' reports joined into one), in time order; without ``details``, only
    their causes (no ``detail`` text and no ``cpu`` calls listed)."""
    gaps = gaps.sort("start_ns", "device").with_row_index("gap")
    if not gaps.height:
        return []
    fed = feeding_threads(report, gaps)
    watch = watched_threads(report, fed)
    t0 = int(gaps["start_ns"].min())  # type: ignore[arg-type]
    t1 = int(gaps["end_ns"].max())  # type: ignore[arg-type]
    hits = gap_hits(fed, cpu_events(report, watch["global_tid"].unique(), t0, t1, gaps), watch)
    cov, any_cov, cuda_cov = covered_ns(hits)
    named = named_calls(hits) if details else {}
    watched = dict(watch.group_by("gap").len().iter_rows())
    traced = _traced(report)
    listed = _top_calls(hits, max_cpu) if details else {}
    migrations = unified_migrations(report)
    migration_starts = set(zip(migrations["device_id"].to_list(), migrations["start"].to_list(),
                               strict=True))
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
        if verdict.reason == NO_LAUNCHING_CALL and (row["device"],
                                                    row["end_ns"]) in migration_starts:
            verdict = _Verdict("unknown", reason=ENDS_IN_MIGRATION)
        detail = _detail(g, verdict, named, dur) if details else ""
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


def _top_calls(hits: pl.DataFrame, max_cpu: int) -> dict[int, list[CpuActivity]]:
    """Per gap, the ``max_cpu`` calls that overlap it most."""
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
    return listed


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


def _traced(report: TimelineReport) -> Traced:
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
    return _Verdict("unknown", reason=NO_LAUNCHING_CALL)


NO_LAUNCHING_CALL = ("The operation that ends the gap has no launching call in the trace (no "
                     "correlation), and its process's threads made too few traced calls to "
                     "name one.")
ENDS_IN_MIGRATION = ("The operation that ends the gap is a unified-memory migration ([CUDA "
                     "memcpy Unified …]), which a page fault starts, not a call, and its "
                     "process's threads made too few traced calls to name what the CPU did.")


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


__all__ = ["CAUSES", "CpuActivity", "GapExplanation", "Traced", "explain_gaps", "explain_selected",
           "largest_gaps"]
