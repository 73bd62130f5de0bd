"""What the CPU did during a GPU idle gap of a Kineto trace.

The nsys gap causes (``parsers/nsys/gap_causes.py``) read the CUDA runtime calls; where they
cover less than half of a gap, an nsys trace needs OS runtime tracing to go on. A Kineto
trace records instead every operator (``cpu_op``), ``record_function`` range and, with
``with_stack=True``, every Python frame of the thread that launched the next GPU operation.
Those name the cause of the gaps left ``unknown``:

- ``data-loading``: frames or ranges of data loading (``DataLoader``, ``_next_data``,
  ``__getitem__``, ``collate``, ``enumerate(DataLoader)``) cover half of the gap;
- ``cpu-busy``: the thread's operators and Python frames cover half of the gap: host-side
  work (``detail`` names the longest);
- otherwise the gap stays ``unknown``: the thread ran nothing the profiler records (it
  waited, or ran code outside any operator).
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from kernelscope.parsers.kineto.model import KinetoTrace
from kernelscope.parsers.nsys.gap_causes import GapExplanation
from kernelscope.parsers.nsys.intervals import merge_intervals

DATA_LOADING = r"(?i)dataloader|_next_data|__getitem__|collate|fetch\b|enumerate\(DataLoader"
HOST_CATS = ("cpu_op", "python_function", "user_annotation")
_HALF = 0.5


def _covered(frame: pl.DataFrame, t0: int, t1: int) -> int:
    if not frame.height:
        return 0
    clipped = frame.select(pl.col("start").clip(t0, t1), pl.col("end").clip(t0, t1))
    merged = merge_intervals(clipped)
    return int((merged["end"] - merged["start"]).sum())


def refine(trace: KinetoTrace, explanation: GapExplanation) -> GapExplanation:
    """``explanation`` with the cause the host events name, where the CUDA calls named none."""
    if explanation.cause != "unknown" or explanation.thread is None:
        return explanation
    t0, t1 = explanation.start_ns, explanation.end_ns
    host = trace.cpu.filter(
        pl.col("cat").is_in(HOST_CATS) & (pl.col("start") < t1) & (pl.col("end") > t0)
        & (pl.col("tid") == explanation.thread)
        & ~pl.col("name").str.starts_with("ProfilerStep#")
    )
    duration = max(t1 - t0, 1)
    loading = host.filter(pl.col("name").str.contains(DATA_LOADING))
    busy = host.filter(pl.col("cat") != "user_annotation")
    if _covered(loading, t0, t1) >= _HALF * duration:
        return replace(explanation, cause="data-loading", reason="",
                       detail=_longest(loading, t0, t1))
    if _covered(busy, t0, t1) >= _HALF * duration:
        return replace(explanation, cause="cpu-busy", reason="", hint="",
                       detail=_longest(busy.filter(pl.col("cat") == "cpu_op"), t0, t1)
                       or _longest(busy, t0, t1))
    return replace(explanation, hint="", reason=(
        "The launching thread ran no recorded operator or Python frame for most of the gap: "
        "it waited (a lock, I/O, another thread) or ran code the profiler does not record."))


def _longest(frame: pl.DataFrame, t0: int, t1: int) -> str:
    overlap = (pl.min_horizontal(pl.col("end"), pl.lit(t1))
               - pl.max_horizontal(pl.col("start"), pl.lit(t0)))
    top = frame.with_columns(overlap.alias("_o")).sort("_o", descending=True).head(2)
    return ", ".join(f"{name} {ns / 1e6:.1f} ms" if ns >= 1_000_000 else f"{name} {ns / 1e3:.1f} us"
                     for name, ns in top.select("name", "_o").rows())
