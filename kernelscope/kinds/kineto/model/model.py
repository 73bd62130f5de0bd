"""One Kineto trace read into frames (:class:`KinetoTrace`), and the same trace as the
timeline model every timeline view reads (:func:`as_timeline_report`).

Frames (``ts``/``dur`` float microseconds as written; ``start``/``end`` Int64 ns on the
trace's clock):

- ``gpu``: kind (``kernel``, ``memcpy``, ``memset``, ``sync``), name, ts, dur, device,
  stream (-1 where the event names none), correlation, external_id, grid/block x-y-z,
  bytes, pid, tid, host_pid (the process of the launching call), start, end;
- ``runtime``: CUDA runtime and driver calls: name, ts, dur, pid, tid, correlation,
  external_id, driver, start, end;
- ``cpu``: ``cpu_op``, ``user_annotation`` (``record_function``, ``ProfilerStep#N``),
  ``python_function`` (``with_stack``) and ``gpu_user_annotation`` ranges: cat, name, ts,
  dur, pid, tid, external_id, start, end;
- ``comms``: the events carrying a collective's metadata (``record_param_comms`` and the
  NCCL kernels Kineto copies it onto): cat, name, ts, correlation, external_id, collective,
  group, dtype, in_nelems, out_nelems, seq.

Beside the frames, ``op_shapes``: the ``cpu_op`` shapes (``record_shapes=True``), read in the
same pass (``events.shapes_of``).
"""

from __future__ import annotations

import gc
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import Any

import polars as pl

from kernelscope.core.errors import ReportError, safe_text
from kernelscope.kinds.kineto.model.events import (
    COMMS_SCHEMA,
    Collector,
    Piece,
    ShapeRecord,
    read_piece,
)
from kernelscope.kinds.kineto.model.stream import PIECE_BYTES, TraceHeader, iter_event_pieces
from kernelscope.timeline.model.model import DeviceInfo, ProcessInfo

MAX_PARSE_WORKERS = 4
"""The most threads parsing one trace's pieces."""
PID_SHIFT = 1 << 24
"""A pid and a tid packed as nsys packs them (``pid_of``/``tid_of`` read them back)."""


@dataclass(frozen=True)
class DistributedInfo:
    """``distributedInfo``: who this trace is in a distributed run."""

    backend: str | None
    rank: int
    world_size: int
    groups: tuple[dict[str, Any], ...] = ()


@dataclass(eq=False)
class KinetoTrace:
    """A read Kineto trace (see the module docstring for the frames)."""

    path: Path
    gpu: pl.DataFrame
    runtime: pl.DataFrame
    cpu: pl.DataFrame
    devices: list[DeviceInfo]
    processes: list[ProcessInfo]
    threads: dict[int, str]
    base_time_ns: int | None
    distributed: DistributedInfo | None
    events: int
    members: dict[str, Any] = field(default_factory=dict, repr=False)
    comms: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=COMMS_SCHEMA),
                                repr=False)
    """The events that carry a collective's metadata (``events.COMMS_SCHEMA``)."""
    op_shapes: list[ShapeRecord] = field(default_factory=list, repr=False)
    """Each ``cpu_op``'s recorded shapes, in the events' order (``events.shapes_of``); empty
    when read without them or when none were recorded."""

    @cached_property
    def start_ns(self) -> int:
        return int(min(_first(self.gpu, "start"), _first(self.cpu, "start"),
                       _first(self.runtime, "start")))

    @cached_property
    def end_ns(self) -> int:
        return int(max(_last(self.gpu, "end"), _last(self.cpu, "end"),
                       _last(self.runtime, "end")))

    @cached_property
    def steps(self) -> pl.DataFrame:
        """``ProfilerStep#N`` ranges: step (N), start, end, ts, dur, pid, tid."""
        return (
            self.cpu.filter(pl.col("name").str.starts_with("ProfilerStep#")
                            & (pl.col("cat") != "gpu_user_annotation"))
            .with_columns(pl.col("name").str.slice(13).cast(pl.Int64, strict=False)
                          .alias("step"))
            .filter(pl.col("step").is_not_null())
            .sort("start")
            .select("step", "start", "end", "ts", "dur", "pid", "tid")
        )

    @property
    def median_step_ns(self) -> float | None:
        """The median of the ``ProfilerStep#N`` durations (the middle two's mean for an even
        count, as the ranks' tables take it); None without steps."""
        if not self.steps.height:
            return None
        return float((self.steps["end"] - self.steps["start"]).median())  # type: ignore[arg-type]

    @property
    def rank(self) -> int | None:
        return self.distributed.rank if self.distributed is not None else None


def _first(frame: pl.DataFrame, col: str) -> int:
    value = frame[col].min() if frame.height else None
    return int(value) if isinstance(value, int) else 2**62  # type: ignore[arg-type]


def _last(frame: pl.DataFrame, col: str) -> int:
    value = frame[col].max() if frame.height else None
    return int(value) if isinstance(value, int) else -(2**62)


def _ns(frame: pl.DataFrame) -> pl.DataFrame:
    start = (pl.col("ts") * 1000).round().cast(pl.Int64)
    return frame.with_columns(start.alias("start"),
                              (start + (pl.col("dur") * 1000).round().cast(pl.Int64))
                              .alias("end"))


def read_trace(path: Path, progress: Callable[[str, float | None], None] | None = None,
               workers: int | None = None, *, need_gpu: bool = True, shapes: bool = True
               ) -> KinetoTrace:
    """Read the Kineto trace at ``path`` (its pieces parsed by ``workers`` threads, one per
    core by default), with its operators' shapes unless ``shapes`` is false. Raises
    ReportError (one sentence) for a file that is not a whole trace or (with ``need_gpu``)
    holds no GPU activity."""
    header = TraceHeader()
    on_piece = (None if progress is None
                else lambda read: progress("Reading the trace's events", None))
    with _collection_paused():
        try:
            collector = _collect(path, header, on_piece, workers or parse_workers(), shapes)
        except _MovedCut:
            collector = _collect(path, header, on_piece, 1, shapes)
    frames = collector.frames()
    gpu = _with_correlation(frames["gpu"], frames["flows"])
    if need_gpu:
        check_gpu_activity(path, gpu)
    runtime = _ns(frames["runtime"])
    gpu = _ns(gpu).join(
        runtime.filter(pl.col("correlation") >= 0).unique("correlation", keep="first")
        .select("correlation", pl.col("pid").alias("host_pid")),
        on="correlation", how="left", maintain_order="left",
    )
    cpu = _ns(frames["cpu"])
    members = header.members
    return KinetoTrace(
        path=path, gpu=gpu, runtime=runtime, cpu=cpu,
        devices=_devices(members, gpu), processes=_processes(frames["names"], cpu, runtime),
        threads=_threads(frames["names"]),
        base_time_ns=_opt_int(members.get("baseTimeNanoseconds")),
        distributed=_distributed(members.get("distributedInfo")), events=collector.events,
        members={k: v for k, v in members.items() if k != "deviceProperties"},
        comms=frames["comms"], op_shapes=collector.shapes,
    )


def check_gpu_activity(path: Path, gpu: pl.DataFrame) -> None:
    """ReportError (one sentence) when ``gpu`` (a trace's GPU events) holds no kernel, copy
    or memset: a trace read without ``need_gpu`` checked as a read with it would be."""
    if not gpu.filter(pl.col("kind") != "sync").height:
        raise ReportError(
            f"{safe_text(path)} holds no GPU activity (kernels, copies or memsets): profile "
            "with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]."
        )


def parse_workers() -> int:
    """Threads parsing a trace's pieces: one per core this process may use, no more than
    polars' own threads (a run's worker process gets its share of the cores) nor four."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, pl.thread_pool_size(), MAX_PARSE_WORKERS))


class _MovedCut(Exception):
    """A piece cut without a check did not parse (its cut fell inside an event)."""


def _collect(path: Path, header: TraceHeader, on_piece: Callable[[int], None] | None,
             workers: int, shapes: bool) -> Collector:
    """Every piece of ``path`` read into a :class:`Collector`. With one worker each cut is
    checked by parsing the piece before the next is cut (``stream.py``); with more, pieces
    are cut at the last event boundary without that check and parsed by a thread pool
    (polars parses without the GIL), at most one per thread ahead of the reading; a piece
    that fails to parse raises :class:`_MovedCut`, and the caller reads again with one."""
    collector = Collector()
    read = partial(read_piece, shapes=shapes, seen={}, columns=False)
    if workers <= 1:
        for piece in iter_event_pieces(path, header, PIECE_BYTES, on_piece, parse=read):
            collector.add(piece)
        return collector
    pool = _parse_pool(workers)
    pending: deque[Future[Piece]] = deque()

    def submit(text: bytes) -> Future[Piece]:
        return pool.submit(read, text)

    try:
        for future in iter_event_pieces(path, header, PIECE_BYTES, on_piece, parse=submit):
            pending.append(future)
            while len(pending) > workers:
                collector.add(_result(pending.popleft()))
        while pending:
            collector.add(_result(pending.popleft()))
    finally:
        for future in pending:
            future.cancel()
        wait(pending)  # the pieces already being parsed (the pool stays for the next trace)
    return collector


_POOLS: dict[int, ThreadPoolExecutor] = {}


def _parse_pool(workers: int) -> ThreadPoolExecutor:
    """The threads parsing pieces, kept for the process's next trace: a run reads its ranks
    one after another, and fresh threads each time took fresh allocator arenas, whose pages
    were faulted in again (8 gzipped ranks: ~10,000 page faults more, measured)."""
    pool = _POOLS.get(workers)
    if pool is None:
        pool = _POOLS[workers] = ThreadPoolExecutor(workers, thread_name_prefix="kineto-parse")
    return pool


def _result(future: Future[Piece]) -> Piece:
    try:
        return future.result()
    except ValueError as exc:
        raise _MovedCut from exc


class _Pause:
    """The traces being parsed now (several threads of a run may each parse one), and
    whether cyclic collection was on when the first of them began: the last to end turns it
    back on, not the first (which would let the others parse with it on)."""

    lock = threading.Lock()
    parsing = 0
    was_enabled = False


@contextmanager
def _collection_paused() -> Iterator[None]:
    """No cyclic garbage collection while the pieces are parsed: their millions of dicts
    and lists hold no cycles and die with their piece, but each allocation batch would
    start a collection over them (three times slower parsing, measured)."""
    with _Pause.lock:
        if _Pause.parsing == 0:
            _Pause.was_enabled = gc.isenabled()
            gc.disable()
        _Pause.parsing += 1
    try:
        yield
    finally:
        with _Pause.lock:
            _Pause.parsing -= 1
            if _Pause.parsing == 0 and _Pause.was_enabled:
                gc.enable()


def _with_correlation(gpu: pl.DataFrame, flows: pl.DataFrame) -> pl.DataFrame:
    """GPU events without a ``correlation`` arg take the id of the ``ac2g`` flow that ends
    on them (same pid, tid and ts)."""
    if not flows.height or not gpu.filter(pl.col("correlation") < 0).height:
        return gpu
    ends = flows.filter(pl.col("phase") == "f").unique(["pid", "tid", "ts"]).select(
        "pid", "tid", "ts", pl.col("id").alias("_flow"))
    return gpu.join(ends, on=["pid", "tid", "ts"], how="left", maintain_order="left").with_columns(
        pl.when(pl.col("correlation") < 0).then(pl.col("_flow").fill_null(-1))
        .otherwise(pl.col("correlation")).alias("correlation")
    ).drop("_flow")


def _opt_int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _devices(members: dict[str, Any], gpu: pl.DataFrame) -> list[DeviceInfo]:
    devices: dict[int, DeviceInfo] = {}
    for prop in members.get("deviceProperties") or []:
        if isinstance(prop, dict) and _opt_int(prop.get("id")) is not None:
            dev = int(prop["id"])
            devices[dev] = DeviceInfo(dev, str(prop.get("name", f"GPU {dev}")),
                                      _opt_int(prop.get("numSms")))
    used = gpu.filter(pl.col("kind") != "sync")["device"].drop_nulls().unique().to_list()
    for dev in used:
        devices.setdefault(int(dev), DeviceInfo(int(dev), f"GPU {dev}"))
    return [devices[d] for d in sorted(devices) if d in used]


def _processes(names: pl.DataFrame, cpu: pl.DataFrame, runtime: pl.DataFrame
               ) -> list[ProcessInfo]:
    host = cpu.filter(pl.col("cat") != "gpu_user_annotation")
    pids = (set(host["pid"].drop_nulls().unique().to_list())
            | set(runtime["pid"].drop_nulls().unique().to_list()))
    labels = {int(r["pid"]): r["name"] for r in names.filter(
        (pl.col("what") == "process_name") & pl.col("pid").is_not_null()).iter_rows(named=True)}
    return [ProcessInfo(int(pid), labels.get(int(pid), "python")) for pid in sorted(pids)]


def _threads(names: pl.DataFrame) -> dict[int, str]:
    rows = names.filter((pl.col("what") == "thread_name") & pl.col("pid").is_not_null()
                        & pl.col("tid").is_not_null())
    return {global_id(int(r["pid"]), int(r["tid"])): r["name"] for r in rows.iter_rows(named=True)}


def global_id(pid: int, tid: int = 0) -> int:
    """``pid`` and ``tid`` packed as an nsys ``globalTid``."""
    return (pid % PID_SHIFT) * PID_SHIFT + tid % PID_SHIFT


def _distributed(info: Any) -> DistributedInfo | None:
    if not isinstance(info, dict):
        return None
    rank, world = _opt_int(info.get("rank")), _opt_int(info.get("world_size"))
    if rank is None or world is None:
        return None
    groups = tuple(g for g in info.get("pg_config") or [] if isinstance(g, dict))
    backend = info.get("backend")
    return DistributedInfo(str(backend) if backend is not None else None, rank, world, groups)
