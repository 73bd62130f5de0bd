"""The in-memory model of an Nsight Systems report: plain dataclasses and polars frames.

All times are integer nanoseconds on the report's own clock (the clock of the SQLite export;
not shifted to zero). Frames hold one row per event; their columns are listed on
:class:`NsysReport`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import polars as pl


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
class NsysReport:
    """One opened Nsight Systems report.

    Frames (all times ``Int64`` ns):

    - ``kernels``: start, end, device_id, context_id, stream_id, correlation_id, global_pid,
      name (demangled, as ``nsys stats`` prints), short_name.
    - ``memcpy``: start, end, device_id, context_id, green_context_id, stream_id,
      correlation_id, global_pid, bytes, copy_kind, src_kind, dst_kind, operation
      (``[CUDA memcpy Host-to-Device]``), src_kind_name, dst_kind_name.
    - ``memset``: start, end, device_id, context_id, green_context_id, stream_id,
      correlation_id, global_pid, bytes, mem_kind, operation (``[CUDA memset]``).
    - ``cuda_api``: start, end, global_tid, correlation_id, name (as recorded, e.g.
      ``cudaMemcpy_v3020``), api (version suffix removed, e.g. ``cudaMemcpy``).
    - ``osrt``: start, end, global_tid, name.
    - ``nvtx``: start, end (null for unclosed ranges and for marks), event_type, global_tid,
      name (text, with a ``domain:`` prefix outside the default domain), domain.
    """

    path: Path
    sqlite_path: Path
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
    threads: dict[int, str] = field(default_factory=dict)
    tables: frozenset[str] = frozenset()
    nsys_version: str | None = None

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns

    @property
    def has_nvtx(self) -> bool:
        return "NVTX_EVENTS" in self.tables

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

        Columns: kind (``kernel``/``memcpy``/``memset``), start, end, device_id, context_id,
        stream_id, global_pid.
        """
        cols = ["start", "end", "device_id", "context_id", "stream_id", "global_pid"]
        parts = [
            frame.select(pl.lit(kind).alias("kind"), *cols)
            for kind, frame in (("kernel", self.kernels), ("memcpy", self.memcpy),
                                ("memset", self.memset))
        ]
        return pl.concat(parts, how="vertical_relaxed").sort("start", "end")
