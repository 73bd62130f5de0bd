"""The in-memory model of an Nsight Systems report: plain dataclasses and polars frames.

All times are integer nanoseconds on the report's own clock (the clock of the SQLite export;
not shifted to zero). Frames hold one row per event; their columns are listed on
:class:`TimelineReport`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TypeVar

import polars as pl

from kernelscope.timeline.model.gpu_metrics import GpuMetrics
from kernelscope.timeline.model.intervals import Coverage
from kernelscope.timeline.model.schema import SYNC_SCHEMA

T = TypeVar("T")
OP_KIND = pl.Enum(["kernel", "memcpy", "memset"])
CUDA_TABLES = frozenset(
    {
        "CUPTI_ACTIVITY_KIND_KERNEL",
        "CUPTI_ACTIVITY_KIND_MEMCPY",
        "CUPTI_ACTIVITY_KIND_MEMSET",
        "CUPTI_ACTIVITY_KIND_RUNTIME",
    }
)


def pid_of(global_id: pl.Expr) -> pl.Expr:
    """The OS process id inside an nsys serialized ``globalPid``/``globalTid``."""
    return (global_id // (1 << 24)) % (1 << 24)


def tid_of(global_tid: pl.Expr) -> pl.Expr:
    """The OS thread id inside an nsys serialized ``globalTid``."""
    return global_tid % (1 << 24)


@dataclass(frozen=True)
class DeviceInfo:
    """A GPU seen in the report."""

    id: int
    name: str
    sm_count: int | None = None


@dataclass(frozen=True)
class ProcessInfo:
    """A traced process (one that has CUDA, NVTX or OS runtime events)."""

    pid: int
    name: str


@dataclass(eq=False)
class TimelineReport:
    """One opened timeline, whichever profiler wrote it (Nsight Systems, or a PyTorch profiler
    trace mapped onto it by the Kineto kind; ``profiler`` says which).

    Frames (all times ``Int64`` ns):

    - ``kernels``: start, end, device_id, context_id, stream_id, correlation_id, global_pid,
      name (demangled, as ``nsys stats`` prints), short_name, mangled_name (the demangled name
      where the export has no mangled one), grid_x/y/z and block_x/y/z (Int32; null where the
      export lacks them), graph_node_id (null unless a CUDA graph launched it,
      ``--cuda-graph-trace=node``). A timeline opened for a headless command (the nsys
      kind's ``open``) has no short_name, mangled_name, grid or block columns: only the
      screen's kernel details and a join read them (``load.KERNEL_DETAILS``). One opened for
      the critical path's graph alone (``OpenOptions.graph_only``: the what-if) has no
      context_id or graph_node_id either, its ``cuda_api`` no name (``api`` a Categorical),
      and its ``osrt`` and ``overhead`` are empty.
    - ``memcpy``: start, end, device_id, context_id, green_context_id, stream_id,
      correlation_id, global_pid, bytes, copy_kind, src_kind, dst_kind, src_device_id,
      dst_device_id, graph_node_id, operation (``[CUDA memcpy Host-to-Device]``), src_kind_name,
      dst_kind_name.
    - ``memset``: start, end, device_id, context_id, green_context_id, stream_id,
      correlation_id, global_pid, bytes, mem_kind, graph_node_id, operation (``[CUDA memset]``).
    - ``cuda_api``: start, end, global_tid, correlation_id, name (as recorded, e.g.
      ``cudaMemcpy_v3020``), api (as ``nsys stats`` prints it: ``cudaMemcpy``).
    - ``osrt``: start, end, global_tid, event_class (27 for calls), name.
    - ``nvtx``: start, end (null for unclosed ranges and for marks), event_type (59/70
      push-pop, 60/71 start-end, 34 mark), global_tid, domain_id, name (the message, through
      ``textId`` or inline), domain (null for the default domain).
    - ``overhead``: start, end, global_tid, name (``PROFILER_OVERHEAD``: time nsys itself
      spent, e.g. ``CUDA profiling data flush on process exit``).

    - ``sync``: CUDA synchronisation records (nsys ``CUPTI_ACTIVITY_KIND_SYNCHRONIZATION``,
      Kineto ``cuda_sync`` events): start, end, device_id, stream_id (the stream that waits or
      is synchronised), correlation_id (of the API call), global_pid, sync_type (1 event
      synchronise, 2 stream wait event, 3 stream synchronise, 4 context synchronise); empty
      where the trace has none.

    ``gpu_metrics`` holds the sampled GPU metrics (``--gpu-metrics-devices``), if any.
    """

    path: Path
    sqlite_path: Path | None  # the export read, when it outlives the call (None for scratch)
    start_ns: int
    end_ns: int
    devices: list[DeviceInfo]
    processes: list[ProcessInfo]
    kernels: pl.DataFrame
    memcpy: pl.DataFrame
    memset: pl.DataFrame
    cuda_api: pl.DataFrame
    osrt: pl.DataFrame
    nvtx: pl.DataFrame
    overhead: pl.DataFrame
    nvtx_last_ns: int | None = None  # latest timestamp in NVTX_EVENTS (ends unclosed ranges)
    threads: dict[int, str] = field(default_factory=dict)
    tables: frozenset[str] = frozenset()
    nsys_version: str | None = None
    profiler: str = "nsys"
    """What wrote it: ``profilers.NSYS`` or ``profilers.KINETO`` (a PyTorch profiler trace)."""
    gpu_metrics: GpuMetrics = field(default_factory=GpuMetrics)
    sync: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=SYNC_SCHEMA))
    _memo: dict[object, object] = field(default_factory=dict, repr=False, compare=False)

    def memo(self, key: object, compute: Callable[[], T]) -> T:
        """``compute()`` once per key for this report (analyses share costly intermediates)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]  # type: ignore[return-value]

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns

    @property
    def has_cuda_trace(self) -> bool:
        """False for a capture without CUDA tracing (CPU only, OpenMP on the host): the
        export then has none of the CUDA activity tables."""
        return bool(self.tables & CUDA_TABLES)

    @property
    def has_osrt(self) -> bool:
        return "OSRT_API" in self.tables

    def device_name(self, device_id: int) -> str:
        for dev in self.devices:
            if dev.id == device_id:
                return dev.name
        return f"GPU {device_id}"

    @cached_property
    def gpu_ops(self) -> pl.DataFrame:
        """Kernels, memcpys and memsets in one frame sorted by start.

        Columns: kind (Enum ``kernel``/``memcpy``/``memset``), start, end, device_id, context_id,
        stream_id, global_pid, correlation_id, graph_node_id (null outside CUDA graphs; it and
        context_id null where the read left them out: ``OpenOptions.graph_only``).
        """
        cols = ["start", "end", "device_id", "context_id", "stream_id", "global_pid",
                "correlation_id", "graph_node_id"]
        parts = [
            frame.with_columns(
                pl.col(name) if name in frame.columns else pl.lit(None, pl.Int64).alias(name)
                for name in ("context_id", "graph_node_id")
            ).select(pl.lit(kind, OP_KIND).alias("kind"), *cols)
            for kind, frame in (("kernel", self.kernels), ("memcpy", self.memcpy),
                                ("memset", self.memset))
        ]
        return pl.concat(parts, how="vertical_relaxed").sort("start", "end")

    @cached_property
    def device_busy(self) -> dict[int, Coverage]:
        """Per device, the union of its kernels, memcpys and memsets across all streams."""
        # the three columns the merge reads split by device, not the operations' nine
        ops = self.gpu_ops.select("device_id", "start", "end")
        out: dict[int, Coverage] = {}
        for (dev,), part in ops.group_by(["device_id"], maintain_order=True):
            out[int(dev)] = Coverage.from_intervals(part)  # type: ignore[arg-type]
        return dict(sorted(out.items()))
