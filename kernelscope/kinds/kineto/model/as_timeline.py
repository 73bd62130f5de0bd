"""A Kineto trace as the timeline model (:class:`TimelineReport`), so the nsys timeline's
analyses, views and exports read it unchanged.

- kernels, copies and memsets become the GPU operation tables (a copy's kind and memory
  kinds are read from its name, ``Memcpy HtoD (Pageable -> Device)``);
- CUDA runtime and driver calls become the CUDA API table (linked by ``correlation``);
- ``user_annotation`` ranges (``record_function``, ``ProfilerStep#N``) become push/pop NVTX
  ranges of their thread;
- a pid and tid are packed as nsys packs them; a GPU operation belongs to the process of
  its launching call.

``cpu_op`` and ``python_function`` events are not part of that model; the gap causes read
them from the trace itself (``gaps.py``).
"""

from __future__ import annotations

import re

import polars as pl

from kernelscope.kinds.kineto.model.model import PID_SHIFT, KinetoTrace
from kernelscope.timeline.model.api_names import strip_api_version
from kernelscope.timeline.model.model import TimelineReport
from kernelscope.timeline.model.profilers import KINETO
from kernelscope.timeline.model.schema import (
    KERNEL_TABLE,
    MEM_KIND_LABELS,
    MEMCPY_LABELS,
    MEMCPY_TABLE,
    MEMSET_TABLE,
    NVTX_PUSHPOP,
    NVTX_TABLE,
    RUNTIME_TABLE,
    SYNC_SCHEMA,
)

COPY_KINDS = {"HtoD": 1, "DtoH": 2, "DtoD": 8, "HtoH": 9, "PtoP": 10}
MEM_KINDS = {label: kind for kind, label in MEM_KIND_LABELS.items()}
_COPY = re.compile(r"Memcpy (\w+)(?: \((\w+) -> (\w+)\))?")


def _global(pid: pl.Expr, tid: pl.Expr | None = None) -> pl.Expr:
    packed = (pid % PID_SHIFT) * PID_SHIFT
    return packed if tid is None else packed + tid % PID_SHIFT


def as_timeline_report(trace: KinetoTrace) -> TimelineReport:
    """The timeline model of ``trace`` (see the module docstring)."""
    main_pid = trace.processes[0].pid if trace.processes else 0
    gpu = trace.gpu.with_columns(
        _global(pl.col("host_pid").fill_null(main_pid)).alias("global_pid"),
        pl.lit(0, pl.Int64).alias("context_id"), pl.col("device").alias("device_id"),
        pl.col("stream").alias("stream_id"), pl.col("correlation").alias("correlation_id"),
        pl.lit(None, pl.Int64).alias("graph_node_id"),
        pl.lit(None, pl.Int64).alias("green_context_id"),
    )
    nvtx = _nvtx(trace)
    return TimelineReport(
        path=trace.path, sqlite_path=None, start_ns=trace.start_ns, end_ns=trace.end_ns,
        devices=list(trace.devices), processes=list(trace.processes),
        kernels=_kernels(gpu), memcpy=_memcpy(gpu), memset=_memset(gpu),
        cuda_api=_api(trace), osrt=_empty_osrt(), nvtx=nvtx,
        nvtx_last_ns=int(nvtx["end"].max()) if nvtx.height else None,  # type: ignore[arg-type]
        overhead=pl.DataFrame(schema={"start": pl.Int64, "end": pl.Int64,
                                      "global_tid": pl.Int64, "name": pl.String}),
        threads=dict(trace.threads),
        tables=frozenset({KERNEL_TABLE, MEMCPY_TABLE, MEMSET_TABLE, RUNTIME_TABLE, NVTX_TABLE}),
        nsys_version=None, profiler=KINETO,
        sync=_sync(gpu),
    )


_OP_COLS = ["start", "end", "device_id", "context_id", "stream_id", "correlation_id",
            "global_pid"]


def _kernels(gpu: pl.DataFrame) -> pl.DataFrame:
    name = pl.col("name").cast(pl.Categorical)
    return gpu.filter(pl.col("kind") == "kernel").select(
        *_OP_COLS, name.alias("name"), name.alias("short_name"), name.alias("mangled_name"),
        "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "graph_node_id",
    ).sort("start")


def _memcpy(gpu: pl.DataFrame) -> pl.DataFrame:
    parts = pl.col("name").str.extract_groups(_COPY.pattern)
    copies = gpu.filter(pl.col("kind") == "memcpy").with_columns(parts.alias("_p")).with_columns(
        pl.col("_p").struct.field("1").replace_strict(COPY_KINDS, default=0, return_dtype=pl.Int64)
        .alias("copy_kind"),
        pl.col("_p").struct.field("2").replace_strict(MEM_KINDS, default=7, return_dtype=pl.Int64)
        .alias("src_kind"),
        pl.col("_p").struct.field("3").replace_strict(MEM_KINDS, default=7, return_dtype=pl.Int64)
        .alias("dst_kind"),
    )
    return copies.select(
        *_OP_COLS, "green_context_id", pl.col("bytes").fill_null(0), "copy_kind", "src_kind",
        "dst_kind", pl.col("device_id").alias("src_device_id"),
        pl.col("device_id").alias("dst_device_id"), "graph_node_id",
        ("[CUDA memcpy " + pl.col("copy_kind").replace_strict(MEMCPY_LABELS, default="Unknown",
                                                              return_dtype=pl.String) + "]")
        .alias("operation"),
        pl.col("src_kind").replace_strict(MEM_KIND_LABELS, default="Unknown",
                                          return_dtype=pl.String).alias("src_kind_name"),
        pl.col("dst_kind").replace_strict(MEM_KIND_LABELS, default="Unknown",
                                          return_dtype=pl.String).alias("dst_kind_name"),
    ).sort("start")


def _memset(gpu: pl.DataFrame) -> pl.DataFrame:
    return gpu.filter(pl.col("kind") == "memset").select(
        *_OP_COLS, "green_context_id", pl.col("bytes").fill_null(0),
        pl.lit(2, pl.Int64).alias("mem_kind"), "graph_node_id",
        pl.lit("[CUDA memset]").alias("operation"),
    ).sort("start")


def _api(trace: KinetoTrace) -> pl.DataFrame:
    return trace.runtime.select(
        "start", "end", _global(pl.col("pid"), pl.col("tid")).alias("global_tid"),
        pl.col("correlation").alias("correlation_id"), "name",
        strip_api_version(pl.col("name")).alias("api"),
    ).sort("start")


def _nvtx(trace: KinetoTrace) -> pl.DataFrame:
    return trace.cpu.filter(pl.col("cat") == "user_annotation").select(
        "start", "end", pl.lit(NVTX_PUSHPOP, pl.Int64).alias("event_type"),
        _global(pl.col("pid"), pl.col("tid")).alias("global_tid"),
        pl.lit(None, pl.Int64).alias("domain_id"), "name",
        pl.lit(None, pl.String).alias("domain"),
    ).sort("start")


SYNC_KINDS = {"Event Sync": 1, "Stream Wait Event": 2, "Stream Sync": 3, "Context Sync": 4}
"""Kineto's ``cuda_sync`` names as ENUM_CUPTI_SYNC_TYPE."""


def _sync(gpu: pl.DataFrame) -> pl.DataFrame:
    return gpu.filter(pl.col("kind") == "sync").select(
        "start", "end", "device_id", "stream_id", "correlation_id", "global_pid",
        pl.col("name").replace_strict(SYNC_KINDS, default=0, return_dtype=pl.Int64)
        .alias("sync_type"),
    ).cast(SYNC_SCHEMA).sort("start")  # type: ignore[arg-type]


def cpu_op_ranges(trace: KinetoTrace) -> pl.DataFrame:
    """The ``cpu_op`` ranges (PyTorch operators) as CPU ranges: start, end, global_tid, name."""
    return trace.cpu.filter(pl.col("cat") == "cpu_op").select(
        "start", "end", _global(pl.col("pid"), pl.col("tid")).alias("global_tid"), "name")


def _empty_osrt() -> pl.DataFrame:
    return pl.DataFrame(schema={"start": pl.Int64, "end": pl.Int64, "global_tid": pl.Int64,
                                "event_class": pl.Int64, "name": pl.String})
