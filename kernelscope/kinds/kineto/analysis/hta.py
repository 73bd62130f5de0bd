"""HTA's numbers (Holistic Trace Analysis 0.5.0), computed as HTA computes them.

Definitions read from HTA 0.5.0's code (``hta/common/trace_parser.py``,
``hta/common/trace.py``, ``hta/analyzers/breakdown_analysis.py``,
``hta/analyzers/communication_analysis.py``, ``hta/utils/utils.py``); docs/kineto.md cites
each. In short:

- times: each event is rounded inward to whole microseconds (``ts`` up, ``ts + dur`` down);
- iterations: when the run's events carry at least two distinct ``ProfilerStep`` names, the
  last step is dropped: only CPU events starting before the last step's start are kept, and
  only GPU events whose ``correlation`` one of them carries;
- GPU events: those whose ``stream`` arg is set (kernels, copies, memsets, stream syncs);
- kernel type by name: ``^nccl.*Kernel`` communication; ``^(Memcpy|Memset|dma)`` memory;
  computation unless the name matches ``^nccl.*Kernel``, ``.*Memcpy``, ``^Memset`` or
  ``.*Sync``; else other;
- temporal breakdown: kernel time = last end - first start of the merged GPU events; idle =
  kernel time - merged busy time; compute = merged computation time; non-compute = the rest;
  shares of kernel time rounded to 2 decimals;
- communication/computation overlap: time both run (merged) over the merged communication
  time (none when there is no communication);
- idle time per stream: each kernel, copy or memset's gap after the previous one on its
  stream (sorted by start) is ``host wait`` when its launching call started after the
  previous one ended, else ``kernel wait`` when shorter than 30 us, else ``other``;
- kernel-type breakdown: the time each combination of computation and communication runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from kernelscope.kinds.kineto.model.model import KinetoTrace
from kernelscope.timeline.analysis.gpu_breakdown import (
    TemporalBreakdown,
    comm_comp_overlap_pct,
    kernel_type,
    kernel_type_breakdown,
    kind_runs,
    temporal_breakdown,
)

CONSECUTIVE_KERNEL_DELAY_US = 30
SYNC_NAMES = ("Event Sync", "Context Sync")
KERNEL_KINDS = ("kernel", "memcpy", "memset")


@dataclass(frozen=True)
class HtaNumbers:
    """One trace's (one rank's) HTA numbers."""

    temporal: TemporalBreakdown | None
    overlap_pct: float | None
    idle_by_stream: pl.DataFrame
    """stream, idle_category (host_wait, kernel_wait, other), idle_time (us), ratio."""
    kernel_types: pl.DataFrame
    """kernel_type (``COMPUTATION``, ``COMMUNICATION``, ``COMPUTATION overlapping
    COMMUNICATION``), sum (us), percentage (1 decimal)."""

    def stream_and_type_members(self) -> dict[str, list[dict[str, object]]]:
        """The JSON members ``idle_time_by_stream`` and ``kernel_types`` (times in ns)."""
        return {
            "idle_time_by_stream": [
                {"stream": s, "category": c, "idle_ns": int(t) * 1000, "ratio": r}
                for s, c, t, r in self.idle_by_stream.rows()],
            "kernel_types": [{"kernel_type": k, "time_ns": int(t) * 1000, "pct": p}
                             for k, t, p in self.kernel_types.rows()],
        }


def _rounded(frame: pl.DataFrame) -> pl.DataFrame:
    """HTA's ``round_down_time_stamps``: ``ts`` up, ``ts + dur`` down, to whole us."""
    end = (pl.col("ts") + pl.col("dur")).floor().cast(pl.Int64)
    return frame.with_columns(pl.col("ts").ceil().cast(pl.Int64).alias("hts"),
                              end.alias("hend"))


def step_names(traces: Sequence[KinetoTrace]) -> set[str]:
    """The distinct names holding ``ProfilerStep`` across the run (HTA's symbol table is
    shared by all ranks)."""
    names: set[str] = set()
    for trace in traces:
        names |= set(trace.cpu.filter(pl.col("name").str.contains("ProfilerStep", literal=True))
                     ["name"].unique().to_list())
        names |= set(trace.runtime.filter(pl.col("name").str.contains("ProfilerStep",
                                                                      literal=True))
                     ["name"].unique().to_list())
    return names


def hta_gpu_events(trace: KinetoTrace, steps: set[str]) -> pl.DataFrame:
    """The GPU events HTA's analyses read (rounded: ``hts``, ``hend``), with ``ts_runtime``
    (the launching call's rounded start) and ``kernel_type``."""
    gpu = _rounded(trace.gpu)
    runtime = _rounded(trace.runtime)
    launch = runtime.filter(pl.col("correlation") >= 0).unique("correlation", keep="first")
    is_gpu = ((pl.col("stream") >= 0) & (pl.col("correlation") >= 0)) | pl.col("name").is_in(
        SYNC_NAMES)
    if len(steps) >= 2:
        cpu = _rounded(trace.cpu)
        in_steps = pl.concat([cpu.select("name", "hts"), runtime.select("name", "hts")])
        last_start = in_steps.filter(pl.col("name").is_in(list(steps)))["hts"].max()
        # A rank without any step keeps nothing (HTA compares with NaN).
        kept = (launch.filter(pl.col("hts") < last_start)["correlation"]
                if last_start is not None else launch.clear()["correlation"])
        gpu = gpu.filter(is_gpu & pl.col("correlation").is_in(kept.implode()))
    gpu = gpu.filter(pl.col("stream") != -1)
    types = {n: kernel_type(n) for n in gpu["name"].unique().to_list()}
    return gpu.join(launch.select("correlation", pl.col("hts").alias("ts_runtime")),
                    on="correlation", how="left", maintain_order="left").with_columns(
        pl.col("name").replace_strict(types, return_dtype=pl.String).alias("kernel_type"))


def idle_by_stream(gpu: pl.DataFrame) -> pl.DataFrame:
    """HTA's ``get_idle_time_breakdown`` for every stream."""
    ops = gpu.filter(pl.col("kind").is_in(KERNEL_KINDS)).sort("stream", "hts")
    prev_end = pl.col("hend").shift(1).over("stream")
    gaps = ops.with_columns((pl.col("hts") - prev_end).alias("idle"),
                            (pl.col("ts_runtime") > prev_end).fill_null(False).alias("_host"))
    category = (pl.when("_host").then(pl.lit("host_wait"))
                .when(pl.col("idle") < CONSECUTIVE_KERNEL_DELAY_US).then(pl.lit("kernel_wait"))
                .otherwise(pl.lit("other")))
    out = gaps.with_columns(category.alias("idle_category")).group_by(
        "stream", "idle_category").agg(pl.col("idle").sum().fill_null(0).alias("idle_time"))
    return out.with_columns(
        (pl.col("idle_time") / pl.col("idle_time").sum().over("stream")).alias("idle_time_ratio")
    ).sort("stream", "idle_category")


def hta_numbers(trace: KinetoTrace, steps: set[str] | None = None) -> HtaNumbers:
    """HTA's numbers for one trace; ``steps``: the run's ProfilerStep names (default: this
    trace's own)."""
    gpu = hta_gpu_events(trace, step_names([trace]) if steps is None else steps)
    runs = kind_runs(gpu)  # each kernel type's merged intervals, for the three breakdowns
    return HtaNumbers(temporal_breakdown(gpu, runs=runs), comm_comp_overlap_pct(gpu, runs),
                      idle_by_stream(gpu), kernel_type_breakdown(gpu, runs))


__all__ = ["HtaNumbers", "TemporalBreakdown", "hta_numbers", "kernel_type"]
