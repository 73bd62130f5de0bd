"""The kernel report: a cheap list of every kernel's key metrics, and full detail on demand."""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernelscope.parsers.errors import ReportError
from kernelscope.parsers.ncu.container import Layout, ProcessInfo
from kernelscope.parsers.ncu.detail import (
    build_detail,
    read_all_metrics,
    read_source_hotspots,
)
from kernelscope.parsers.ncu.legacy import legacy_note
from kernelscope.parsers.ncu.list_pool import Local, iter_from_workers
from kernelscope.parsers.ncu.list_worker import kernel_handles
from kernelscope.parsers.ncu.metrics import Metric, read_metric
from kernelscope.parsers.ncu.model import DeviceInfo, KernelDetail, KernelSummary, SourceHotspots
from kernelscope.parsers.ncu.opener import load_ncu_context, native_stderr_quiet, remove_temp
from kernelscope.parsers.ncu.panes import KEY_METRICS
from kernelscope.parsers.ncu.source import KernelSource, read_kernel_source
from kernelscope.parsers.ncu.summary_reader import (
    NO_ORIGIN,
    ROW_METRICS,
    Origin,
    action_names,
    read_summary,
    summary_from_detail,
)


def key_schema() -> dict[str, Any]:
    """The kernel-list frame's columns and polars types. (polars is imported here, not at
    module level: the list-pass worker processes import this package and need no polars.)"""
    import polars as pl

    return {
        "id": pl.Int64,
        "name": pl.Utf8,
        "demangled": pl.Utf8,
        "grid": pl.Utf8,
        "block": pl.Utf8,
        "grid_size": pl.Int64,
        "block_size": pl.Int64,
        **{col: pl.Float64 for col, _ in KEY_METRICS},
        "context": pl.Int64,
        "stream": pl.Int64,
        "range_idx": pl.Int64,
        "action_idx": pl.Int64,
        "pid": pl.Int64,
        "process": pl.Utf8,
    }


if TYPE_CHECKING:
    import polars as pl

DEVICE_ATTRIBUTES = (
    "device__attribute_display_name",
    "device__attribute_multiprocessor_count",
    "device__attribute_compute_capability_major",
    "device__attribute_compute_capability_minor",
    "device__attribute_clock_rate",
    "device__attribute_memory_clock_rate",
    "device__attribute_global_memory_bus_width",
    "device__attribute_l2_cache_size",
    "device__attribute_max_shared_memory_per_multiprocessor",
    "device__attribute_max_registers_per_multiprocessor",
    "device__attribute_max_warps_per_multiprocessor",
    "device__attribute_display_name",
)

ProgressFn = Callable[[int, int], None]
MAX_WORKERS = 8


def worker_count() -> int:
    """How many children read a pass over many kernels at a time: one per core this process
    may run on, at most MAX_WORKERS (each may grow to the worker memory budget)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))

ACTION_CACHE = 4
IN_PROCESS_LIMIT = 64
DETAIL_CACHE = 64


class NcuReport:
    """An opened .ncu-rep. Thread-safe: every ncu_report call happens under one lock."""

    def __init__(self, path: str | os.PathLike[str], *, extra_metrics: Iterable[str] = ()):
        self.path = Path(path)
        self._ctx, self._temp, self.layout = load_ncu_context(self.path)
        self._lock = threading.RLock()
        self._extra = tuple(extra_metrics)
        wanted = dict.fromkeys(ROW_METRICS)
        wanted.update(dict.fromkeys(self._extra))
        self._summary_metrics = tuple(wanted)
        self._details: OrderedDict[int, KernelDetail] = OrderedDict()
        self._actions: OrderedDict[int, Any] = OrderedDict()
        with native_stderr_quiet():
            self.handles: list[tuple[int, int]] = kernel_handles(self._ctx)
        self.origins: list[Origin] = self._origins(self.layout)
        self._notes: list[str] | None = None
        self._device: DeviceInfo | None = None
        self.version = ""
        try:
            self.version = str(self._ctx.get_version())
        except Exception:  # older ncu_report builds lack it
            self.version = ""

    def _origins(self, layout: Layout) -> list[Origin]:
        """Each kernel's (process id, process name), from the results of the file walk (in
        the order ncu_report lists them); unknown when the two disagree in number."""
        if len(layout.results) != len(self.handles):
            return [NO_ORIGIN] * len(self.handles)
        return [(r.pid, r.process.short_name) for r in layout.results]

    @property
    def processes(self) -> list[ProcessInfo]:
        """The processes whose kernels the report holds (several with
        ``--target-processes all``), in order of their first kernel."""
        if len(self.layout.results) != len(self.handles):
            return []
        return list(self.layout.processes)

    @property
    def ncu_version(self) -> str | None:
        """The Nsight Compute version that took the report (None in pre-2020 reports)."""
        return self.layout.ncu_version

    @property
    def cuda_version(self) -> str | None:
        """The CUDA version of the driver the report was taken with, if recorded."""
        return self.layout.versions.get("CUDA Version")

    @property
    def notes(self) -> list[str]:
        """Sentences about the report as a whole (a pre-2020 report's renamed metrics)."""
        if self._notes is None:
            with self._lock, native_stderr_quiet():
                action = self._action(0, keep=True)
                names = action.metric_names() if action is not None else ()
            note = legacy_note(names)
            self._notes = [note] if note else []
        return list(self._notes)

    # -- lifetime -------------------------------------------------------------------------
    def close(self) -> None:
        """Release the report and remove a temporary decompressed copy."""
        with self._lock:
            self._details.clear()
            self._actions.clear()
            self._ctx = None
            remove_temp(self._temp)
            self._temp = None

    def __enter__(self) -> NcuReport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        remove_temp(getattr(self, "_temp", None))

    # -- kernels --------------------------------------------------------------------------
    @property
    def kernel_count(self) -> int:
        return len(self.handles)

    def _action(self, kernel_id: int, keep: bool = False) -> Any:
        """Open a kernel (2 ms to 0.2 s in ncu_report); ``keep`` holds it in a small LRU."""
        action = self._actions.get(kernel_id)
        if action is not None:
            self._actions.move_to_end(kernel_id)
            return action
        r, a = self.handles[kernel_id]
        with native_stderr_quiet():
            action = self._ctx.range_by_idx(r).action_by_idx(a)
        if action is None:
            raise ReportError(
                f"Kernel {kernel_id} of {self.path} cannot be read: the report is damaged."
            )
        if keep:
            self._actions[kernel_id] = action
            while len(self._actions) > ACTION_CACHE:
                self._actions.popitem(last=False)
        return action

    def summary(self, kernel_id: int) -> KernelSummary:
        """The kernel list's view of one kernel: its row (names, launch shape, key metrics)
        and the key and ``extra_metrics`` metrics, rules and collected sections."""
        with self._lock:
            action = self._action(kernel_id)
            with native_stderr_quiet():
                return read_summary(
                    action,
                    kernel_id,
                    self.handles[kernel_id],
                    self._summary_metrics,
                    bool(self._extra),
                    self.origins[kernel_id],
                )

    def key_row(self, kernel_id: int) -> dict[str, Any]:
        """The kernel list's row for one kernel."""
        return self.summary(kernel_id).row

    def iter_summaries(
        self,
        *,
        batch_seconds: float = 0.1,
        cancelled: Callable[[], bool] | None = None,
        processes: int | None = None,
        analyse: Callable[[KernelSummary], Any] | None = None,
    ) -> Iterator[list[Any]]:
        """Yield every kernel's summary in time-based batches (for progressive loading);
        with ``analyse`` (a picklable module-level function), each item is ``(summary,
        analyse(summary))``, computed where the summary is read.

        Reports of more than ``IN_PROCESS_LIMIT`` kernels are read by ``processes`` child
        processes (default: ``worker_count()``), because ncu_report never frees a
        kernel it has opened; batches then arrive roughly, not strictly, in ID order."""
        if processes is None:
            small = self.kernel_count <= IN_PROCESS_LIMIT
            processes = 0 if small else worker_count()
        if processes <= 0:
            for batch in self._iter_in_process(batch_seconds, cancelled):
                yield batch if analyse is None else [(s, analyse(s)) for s in batch]
            return
        job = {
            "path": str(self._temp or self.path),
            "mode": "summary",
            "diagnose": analyse,
            "ids": list(range(self.kernel_count)),
            "metrics": self._summary_metrics,
            "rules": bool(self._extra),
            "batch_seconds": batch_seconds,
            "origins": self.origins,
        }

        def head(kernel_id: int) -> Any:
            # (this process has often opened it already: the device is read from it)
            summary = self.summary(kernel_id)
            return summary if analyse is None else (summary, analyse(summary))

        yield from iter_from_workers(
            job, min(processes, self.kernel_count), cancelled, local=self._local(), head=head
        )

    def iter_details(
        self,
        kernel_ids: list[int],
        *,
        source: bool = True,
        curves: bool = True,
        breakdowns: bool = True,
        analyse: Callable[[KernelDetail], Any] | None = None,
        slim: bool = False,
        tables: bool | None = None,
        all_metrics: bool = False,
        processes: int | None = None,
        cancelled: Callable[[], bool] | None = None,
        meanwhile: Callable[[], object] | None = None,
    ) -> Iterator[list[Any]]:
        """Yield the details of ``kernel_ids`` in batches (with source hot spots when
        ``source``), from child processes when there are many; order is not kept. With
        ``analyse`` (a picklable module-level function), each item is ``(detail,
        analyse(detail))``, computed in the children; with ``slim`` as well, the detail is
        replaced by its metric-free list summary (less to send back). ``tables`` (default:
        not ``slim``) reads NCU's section header tables; ``all_metrics`` every metric the
        kernel holds into ``detail.all_metrics``. ``meanwhile`` runs here while the children
        start (e.g. reading the device of an export's header)."""
        tables = not slim if tables is None else tables
        if processes is None:
            small = len(kernel_ids) <= IN_PROCESS_LIMIT
            processes = 0 if small else worker_count()
        if processes <= 0:
            if meanwhile is not None:
                meanwhile()
            for kernel_id in kernel_ids:
                if cancelled is not None and cancelled():
                    return
                if source:
                    self.source_hotspots(kernel_id)
                detail = self.detail(kernel_id)
                if all_metrics and detail.all_metrics is None:
                    detail.all_metrics = self.all_metrics(kernel_id)
                if analyse is None:
                    yield [detail]
                else:
                    head = summary_from_detail(detail, metrics=False) if slim else detail
                    yield [(head, analyse(detail))]
            return
        job = {
            "path": str(self._temp or self.path),
            "mode": "detail",
            "ids": list(kernel_ids),
            "extra": self._extra,
            "source": source,
            "curves": curves,
            "breakdowns": breakdowns,
            "diagnose": analyse,
            "slim": slim,
            "tables": tables,
            "all_metrics": all_metrics,
            "origins": self.origins,
        }
        yield from iter_from_workers(
            job,
            min(processes, len(kernel_ids)),
            cancelled,
            meanwhile=meanwhile,
            local=self._local(),
        )

    def _local(self) -> Local:
        """This report, open here, for forking the pass's children from this process."""
        return (self._ctx, self.handles)

    def _iter_in_process(
        self, batch_seconds: float, cancelled: Callable[[], bool] | None
    ) -> Iterator[list[KernelSummary]]:
        batch: list[KernelSummary] = []
        started = time.perf_counter()
        for kernel_id in range(self.kernel_count):
            if cancelled is not None and cancelled():
                return
            batch.append(self.summary(kernel_id))
            now = time.perf_counter()
            if now - started >= batch_seconds:
                yield batch
                batch, started = [], now
        if batch:
            yield batch

    def key_frame(self, progress: ProgressFn | None = None) -> pl.DataFrame:
        """Every kernel's key metrics as one polars frame."""
        rows: list[dict[str, Any]] = []
        for batch in self.iter_summaries():
            rows.extend(s.row for s in batch)
            if progress is not None:
                progress(len(rows), self.kernel_count)
        rows.sort(key=lambda r: r["id"])
        return rows_to_frame(rows)

    # -- detail ---------------------------------------------------------------------------
    @property
    def device(self) -> DeviceInfo:
        """The GPU the report was taken on, read from the first kernel's device attributes."""
        if self._device is None:
            with self._lock:
                action = self._action(0, keep=True)  # the notes read it too
                attrs: dict[str, Any] = {}
                for name in DEVICE_ATTRIBUTES:
                    m = read_metric(action, name)
                    if m is not None:
                        attrs[name] = m.value
            major = attrs.get("device__attribute_compute_capability_major")
            minor = attrs.get("device__attribute_compute_capability_minor")
            cc = f"{major}.{minor}" if major is not None else ""
            sms = attrs.get("device__attribute_multiprocessor_count")
            self._device = DeviceInfo(
                name=str(attrs.get("device__attribute_display_name", "unknown GPU")),
                compute_capability=cc,
                sm_count=int(sms) if isinstance(sms, (int, float)) else None,
                attributes=attrs,
            )
        return self._device

    def detail(self, kernel_id: int) -> KernelDetail:
        """The full detail of one kernel (cached, the most recent DETAIL_CACHE kept)."""
        with self._lock:
            cached = self._details.get(kernel_id)
            if cached is not None:
                self._details.move_to_end(kernel_id)
                return cached
            action = self._action(kernel_id, keep=True)
            r, a = self.handles[kernel_id]
            with native_stderr_quiet():
                detail = build_detail(
                    action,
                    kernel_id,
                    r,
                    a,
                    action_names(action, kernel_id),
                    self._extra,
                    origin=self.origins[kernel_id],
                )
            self._details[kernel_id] = detail
            while len(self._details) > DETAIL_CACHE:
                self._details.popitem(last=False)
            return detail

    def prefetch(self, kernel_ids: Iterable[int]) -> None:
        """Build the details of ``kernel_ids`` ahead of time (call from a worker thread)."""
        for kernel_id in kernel_ids:
            if 0 <= kernel_id < self.kernel_count and kernel_id not in self._details:
                self.detail(kernel_id)

    def cached_detail(self, kernel_id: int) -> KernelDetail | None:
        """The detail if it is already built, without touching the report."""
        return self._details.get(kernel_id)

    def source_hotspots(self, kernel_id: int, top: int = 20) -> SourceHotspots | None:
        """The kernel's hottest source lines and SASS, or None when source counters are absent."""
        detail = self.detail(kernel_id)
        if detail.source is None and detail.has_section("SourceCounters"):
            with self._lock:
                detail.source = read_source_hotspots(self._action(kernel_id, keep=True), top)
        return detail.source

    def kernel_source(self, kernel_id: int) -> KernelSource | None:
        """The kernel's whole source and SASS with per-instruction metrics (cached with its
        detail), or None when the report has no source counters for it. Slow on big
        kernels (~1 s for a cuBLAS GEMM): call from a worker."""
        detail = self.detail(kernel_id)
        if detail.listing is None and detail.has_section("SourceCounters"):
            with self._lock:
                detail.listing = read_kernel_source(self._action(kernel_id, keep=True))
        return detail.listing

    def all_metrics(self, kernel_id: int) -> dict[str, Metric]:
        """Every metric stored for the kernel (slow: ~0.1 s a kernel)."""
        with self._lock:
            return read_all_metrics(self._action(kernel_id))


def rows_to_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Build the kernel-list frame from key rows with a fixed schema."""
    import polars as pl

    return pl.DataFrame(rows, schema=key_schema())


def open_ncu_report(path: str | os.PathLike[str], **kwargs: Any) -> NcuReport:
    """Open a kernel report; raises ReportError with one sentence when it cannot."""
    return NcuReport(path, **kwargs)
