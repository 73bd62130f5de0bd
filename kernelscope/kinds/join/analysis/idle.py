"""Time no kernel can save: GPU idle gaps by what caused them, and copies.

Every idle gap of every device (between two of its operations) is counted once, in this
order:

1. ``start-up``: the gap begins before the end of the program's first step, when the trace
   has steps (an NVTX range whose name differs only in its numbers, e.g. ``step N``, at least
   three times on one thread) and the first one lasts more than twice the median of the
   others: one-time costs (set-up, module loading, autotuning, allocation) that a longer run
   amortises;
2. ``launch-overhead``: the gap lies in a launch-bound stretch of tiny kernels
   (``nsys.findings.tiny_kernel_stretches``): the GPU waits for the CPU to launch the next
   kernel; CUDA Graphs or fusion remove it;
3. ``sync``: the host returned from a synchronisation call (``cudaStreamSynchronize``,
   ``cudaDeviceSynchronize``, …) during the gap: the GPU drained and waits for the CPU to
   launch again;
4. the cause ``gap_causes`` gives a large gap (``memcpy``, ``alloc``, ``cpu-busy``, …: any
   of ``gap_cause_catalog.EXPLAINED``);
5. ``short-gaps``: the other gaps between launches (each shorter than a large gap).

Copies and memsets are GPU time too (``copies``); unified-memory migrations, which no call
launches (a page fault does), are their own item (``unified-memory``) with the managed-memory
remedy. Each item's saving is its whole time: an
upper bound (the GPU never waiting, no copy left). Titles and remedies come from
``nsys.gap_cause_catalog``, the one home of every gap cause.
"""

from __future__ import annotations

import bisect
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import polars as pl

from kernelscope.kinds.join.analysis.evidence import (
    CopyTime,
    IdleGaps,
    JoinEvidence,
    SlowFirstStep,
    TinyStretches,
    UnifiedMigrations,
)
from kernelscope.kinds.join.analysis.thresholds import JOIN_THRESHOLDS
from kernelscope.timeline.analysis.findings import tiny_kernel_stretches
from kernelscope.timeline.analysis.gap_cause_catalog import gap_cause
from kernelscope.timeline.analysis.gap_cause_events import SYNC_API
from kernelscope.timeline.analysis.nvtx import nvtx_ranges
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.analysis.unified_memory import (
    UNIFIED_COPY_KINDS,
    is_unified,
    unified_migrations,
)
from kernelscope.timeline.model.model import TimelineReport, pid_of
from kernelscope.timeline.model.profilers import NSYS, in_own_words

ONE_TIME = ("start-up", "module-loading")
"""Causes a longer run amortises: ranked after the per-step items."""
_DIGITS = re.compile(r"\d+")

@dataclass(frozen=True)
class IdleItem:
    """One row of non-kernel time in the ranking."""

    cause: str
    total_ns: int
    count: int
    """Gaps (or copies) it sums."""
    longest: tuple[int, int, int] | None
    """(device, start, end) of its longest gap, for the timeline."""
    one_time: bool = False
    range: str | None = None
    """The NVTX range most of its time lies in (of the kernel that ends each gap)."""
    evidence: tuple[JoinEvidence, ...] = field(default=())
    profiler: str = NSYS
    """What wrote the timeline: its remedy names that profiler's options."""

    @property
    def title(self) -> str:
        return gap_cause(self.cause).title

    @property
    def remedy(self) -> str:
        return in_own_words(self.profiler, gap_cause(self.cause).remedy)


def warmup_window(report: TimelineReport) -> tuple[int, int, str] | None:
    """(start, end, name) of the first step when the trace has a slow first step."""
    ranges = nvtx_ranges(report).filter(pl.col("style") == "PushPop")
    if not ranges.height:
        return None
    ranges = ranges.with_columns(
        pl.col("range").str.replace_all(r"\d+", "#").alias("kind")
    ).sort("start")
    best: tuple[int, int, str] | None = None
    for (_, kind), part in ranges.group_by(["global_tid", "kind"], maintain_order=True):
        if part.height < JOIN_THRESHOLDS.step_min_instances or "#" not in str(kind):
            continue
        durations = (part["end"] - part["start"]).to_list()
        first, rest = durations[0], durations[1:]
        if first > JOIN_THRESHOLDS.warmup_factor * statistics.median(rest):
            start, end = int(part["start"][0]), int(part["end"][0])
            if best is None or end - start > best[1] - best[0]:
                best = (start, end, str(part["range"][0]).lstrip(":"))
    return best


def _sync_ends(report: TimelineReport) -> dict[int, list[int]]:
    """Per process id, the sorted end times of its synchronisation calls."""
    api = report.cuda_api
    if not api.height:
        return {}
    calls = api.filter(pl.col("name").cast(pl.String).str.contains(SYNC_API)).select(
        pid_of(pl.col("global_tid")).alias("pid"), "end"
    )
    out: dict[int, list[int]] = {}
    for (pid,), part in calls.group_by(["pid"]):
        out[int(pid)] = sorted(int(e) for e in part["end"].to_list() if e is not None)
    return out


def _device_pids(report: TimelineReport) -> dict[int, set[int]]:
    ops = report.gpu_ops.select("device_id", pid_of(pl.col("global_pid")).alias("pid")).unique()
    out: dict[int, set[int]] = {}
    for dev, pid in ops.iter_rows():
        out.setdefault(int(dev), set()).add(int(pid))
    return out


def idle_items(data: TimelineData, kernel_nvtx: dict[tuple[int, int], str | None]
               ) -> list[IdleItem]:
    """The non-kernel rows (see the module docstring); ``kernel_nvtx`` maps (device, start)
    of a kernel to its NVTX range."""
    report = data.report
    gaps = data.gaps
    warmup = warmup_window(report)
    stretches = tiny_kernel_stretches(report)
    by_dev: dict[int, list[tuple[int, int]]] = {}
    for dev, s, e in stretches.select("device_id", "start_ns", "end_ns").iter_rows():
        by_dev.setdefault(int(dev), []).append((int(s), int(e)))
    for v in by_dev.values():
        v.sort()
    sync_ends = _sync_ends(report)
    pids = _device_pids(report)
    sums: dict[str, list[int]] = {}
    longest: dict[str, tuple[int, int, int, int]] = {}
    in_range: dict[str, dict[str | None, int]] = {}
    for dev, start, end, dur, cause in gaps.select(
        "device", "start_ns", "end_ns", "duration_ns", "cause"
    ).iter_rows():
        dev, start, end, dur = int(dev), int(start), int(end), int(dur)
        if warmup is not None and start < warmup[1]:
            item = "start-up"
        elif _inside(by_dev.get(dev, []), start, end):
            item = "launch-overhead"
        elif any(_any_between(sync_ends.get(p, []), start, end) for p in pids.get(dev, ())):
            item = "sync"
        elif cause is not None:
            item = str(cause)
        else:
            item = "short-gaps"
        entry = sums.setdefault(item, [0, 0])
        entry[0] += dur
        entry[1] += 1
        if item not in longest or dur > longest[item][3]:
            longest[item] = (dev, start, end, dur)
        ranges = in_range.setdefault(item, {})
        name = kernel_nvtx.get((dev, end))
        ranges[name] = ranges.get(name, 0) + dur
    items = []
    for cause, (total, count) in sums.items():
        dev, start, end, _ = longest[cause]
        main = max(in_range[cause].items(), key=lambda kv: kv[1])[0]
        evidence: list[JoinEvidence] = [IdleGaps(count, total)]
        if cause == "launch-overhead":
            evidence.append(_stretch_evidence(stretches))
        if cause == "start-up" and warmup is not None:
            evidence.append(SlowFirstStep(warmup[2], warmup[1] - warmup[0]))
        items.append(IdleItem(cause, total, count, (dev, start, end), cause in ONE_TIME,
                              main, tuple(evidence)))
    items.extend(_copies(report))
    return [replace(item, profiler=report.profiler) for item in items]


def _stretch_evidence(stretches: pl.DataFrame) -> TinyStretches:
    kernels = int(stretches["kernels"].sum() or 0)
    gap = float(stretches["median_gap_ns"].median() or 0.0)  # type: ignore[arg-type]
    dur = float(stretches["median_kernel_ns"].median() or 0.0)  # type: ignore[arg-type]
    return TinyStretches(kernels, stretches.height, TIMELINE_THRESHOLDS.tiny_kernel_ns, dur, gap)


def _copies(report: TimelineReport) -> list[IdleItem]:
    """The copies and memsets, and apart from them the unified-memory migrations (a cause of
    their own, with the managed-memory remedy)."""
    migrations = unified_migrations(report)
    copies = report.memcpy.filter(~is_unified()) if migrations.height else report.memcpy
    items = []
    frames = [f.select("device_id", "start", "end") for f in (copies, report.memset)
              if f.height]
    if frames:
        ops = _with_durations(pl.concat(frames))
        total = int(ops["dur"].sum() or 0)
        items.append(IdleItem("copies", total, ops.height, _longest(ops),
                              evidence=(CopyTime(copies.height, report.memset.height, total),)))
    if migrations.height:
        ops = _with_durations(migrations)
        total = int(ops["dur"].sum() or 0)
        kinds = ops["copy_kind"].to_list()
        evidence = UnifiedMigrations(ops.height, kinds.count(UNIFIED_COPY_KINDS[0]),
                                     kinds.count(UNIFIED_COPY_KINDS[1]),
                                     int(ops["bytes"].sum() or 0), total)
        items.append(IdleItem("unified-memory", total, ops.height, _longest(ops),
                              evidence=(evidence,)))
    return items


def _with_durations(ops: pl.DataFrame) -> pl.DataFrame:
    return ops.with_columns((pl.col("end") - pl.col("start")).alias("dur"))


def _longest(ops: pl.DataFrame) -> tuple[int, int, int]:
    """(device, start, end) of the longest operation of ``ops``."""
    top = ops.sort("dur", descending=True).row(0, named=True)
    return int(top["device_id"]), int(top["start"]), int(top["end"])


def _inside(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    i = bisect.bisect_right(spans, (start, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= start and end <= spans[i][1]


def _any_between(times: Sequence[int], start: int, end: int) -> bool:
    i = bisect.bisect_right(times, start)
    return i < len(times) and times[i] < end
