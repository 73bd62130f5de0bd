"""What the CPU did during a GPU idle gap of a Kineto trace.

The nsys gap causes (``timeline/analysis/gap_causes.py``) read the CUDA runtime calls; where they
cover less than half of a gap, an nsys trace needs OS runtime tracing to go on. A Kineto
trace records instead every operator (``cpu_op``), ``record_function`` range and, with
``with_stack=True``, every Python frame of the thread that launched the next GPU operation.
Those name the cause of the gaps left ``unknown``:

- ``data-loading``: frames or ranges of data loading (``DataLoader``, ``_next_data``,
  ``__getitem__``, ``collate``, ``enumerate(DataLoader)``) cover half of the gap;
- ``cpu-busy``: the thread's operators and Python frames cover half of the gap: host-side
  work (``detail`` names the longest operators);
- otherwise the gap stays ``unknown``: the thread ran nothing the profiler records (it
  waited, or ran code outside any operator).

The coverage of a gap is read from each thread's merged intervals (two binary searches a
gap, :class:`HostIndex`), so refining every gap costs one pass over the host events.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import polars as pl

from kernelscope.core.durations import fmt_ns
from kernelscope.kinds.kineto.model.model import KinetoTrace
from kernelscope.timeline.analysis.gap_causes import GapExplanation
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.model.intervals import Coverage
from kernelscope.timeline.model.profilers import KINETO, hint

DATA_LOADING = r"(?i)dataloader|_next_data|__getitem__|collate|fetch\b|enumerate\(DataLoader"
HOST_CATS = ("cpu_op", "python_function", "user_annotation")
NO_HOST_WORK = (
    "The launching thread ran no recorded operator or Python frame for most of the gap: it "
    "waited (a lock, I/O, another thread) or ran code the profiler does not record.")


@dataclass
class _Thread:
    busy: Coverage
    loading: Coverage
    ops: pl.DataFrame  # cpu_op rows sorted by start
    loaders: pl.DataFrame  # data-loading rows sorted by start
    longest_op: int
    longest_loader: int


class HostIndex:
    """Per thread, the merged host work and data loading, and the operators by start."""

    def __init__(self, trace: KinetoTrace) -> None:
        self._host = trace.cpu.filter(pl.col("cat").is_in(HOST_CATS)
                                      & ~pl.col("name").str.starts_with("ProfilerStep#"))
        self._threads: dict[int, _Thread] = {}

    def thread(self, tid: int) -> _Thread:
        if tid not in self._threads:
            host = self._host.filter(pl.col("tid") == tid)
            loaders = host.filter(pl.col("name").str.contains(DATA_LOADING)).sort("start")
            ops = host.filter(pl.col("cat") == "cpu_op").sort("start")
            work = host.filter(pl.col("cat") != "user_annotation").select("start", "end")
            self._threads[tid] = _Thread(
                Coverage.from_intervals(work),
                Coverage.from_intervals(loaders.select("start", "end")),
                ops, loaders, _longest_duration(ops), _longest_duration(loaders))
        return self._threads[tid]


def _longest_duration(frame: pl.DataFrame) -> int:
    value = frame.select((pl.col("end") - pl.col("start")).max()).item() if frame.height else 0
    return int(value or 0)


def _covered(coverage: Coverage, t0: int, t1: int) -> int:
    return coverage.covered_at(t1) - coverage.covered_at(t0)


def _overlapping(frame: pl.DataFrame, longest: int, t0: int, t1: int) -> pl.DataFrame:
    """The rows of ``frame`` (sorted by start) overlapping [t0, t1)."""
    starts = frame["start"]
    lo = int(starts.search_sorted(t0 - longest, side="left"))
    hi = int(starts.search_sorted(t1, side="left"))
    return frame.slice(lo, hi - lo).filter(pl.col("end") > t0)


def refine_all(trace: KinetoTrace, explanations: list[GapExplanation]
               ) -> list[GapExplanation]:
    """``explanations`` with the causes the host events name where the CUDA calls named
    none, and the torch.profiler option that would tell more where nsys's was named."""
    index = HostIndex(trace)
    return [_own_hint(refine(index, e)) for e in explanations]


def _own_hint(explanation: GapExplanation) -> GapExplanation:
    return replace(explanation, hint=hint(KINETO, explanation.hint))


def refine(index: HostIndex, explanation: GapExplanation) -> GapExplanation:
    """``explanation`` with the cause the host events name, where the CUDA calls named none."""
    if explanation.cause != "unknown" or explanation.thread is None:
        return explanation
    thread = index.thread(explanation.thread)
    t0, t1 = explanation.start_ns, explanation.end_ns
    half = TIMELINE_THRESHOLDS.cause_majority * max(t1 - t0, 1)
    if _covered(thread.loading, t0, t1) >= half:
        loading = _overlapping(thread.loaders, thread.longest_loader, t0, t1)
        return replace(explanation, cause="data-loading", reason="",
                       detail=_longest(loading, t0, t1))
    if _covered(thread.busy, t0, t1) >= half:
        ops = _overlapping(thread.ops, thread.longest_op, t0, t1)
        return replace(explanation, cause="cpu-busy", reason="", hint="",
                       detail=_longest(ops, t0, t1))
    return replace(explanation, hint="", reason=NO_HOST_WORK)


def _longest(frame: pl.DataFrame, t0: int, t1: int) -> str:
    """The two events of ``frame`` overlapping [t0, t1) the longest, with that overlap."""
    overlap = (pl.min_horizontal(pl.col("end"), pl.lit(t1))
               - pl.max_horizontal(pl.col("start"), pl.lit(t0)))
    top = frame.with_columns(overlap.alias("_o")).sort("_o", descending=True).head(2)
    return ", ".join(f"{name} {fmt_ns(ns)}" for name, ns in top.select("name", "_o").rows())
