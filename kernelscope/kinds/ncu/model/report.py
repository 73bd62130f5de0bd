"""The kernel report: a cheap list of every kernel's key metrics, and full detail on demand."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from kernelscope.core.recent import RecentCache
from kernelscope.kinds.ncu.model.container import ProcessInfo
from kernelscope.kinds.ncu.model.detail import build_detail, read_all_metrics
from kernelscope.kinds.ncu.model.file_format.names_table import Names
from kernelscope.kinds.ncu.model.file_format.result import Result
from kernelscope.kinds.ncu.model.key_frame import rows_to_frame
from kernelscope.kinds.ncu.model.legacy import is_legacy, legacy_note
from kernelscope.kinds.ncu.model.metrics import Metric, read_metric, read_metrics
from kernelscope.kinds.ncu.model.model import (
    DEVICE_ATTRIBUTES,
    DeviceInfo,
    KernelDetail,
    KernelSummary,
    SourceHotspots,
)
from kernelscope.kinds.ncu.model.modules import Modules
from kernelscope.kinds.ncu.model.one_kernel import write_one_result
from kernelscope.kinds.ncu.model.opener import open_report_file, remove_temp
from kernelscope.kinds.ncu.model.summary_reader import (
    ROW_METRICS,
    Origin,
    action_names,
    origins_of,
    paired,
    read_summary,
)

if TYPE_CHECKING:
    import polars as pl

    from kernelscope.kinds.ncu.model.sass import Disassembly, Instruction
    from kernelscope.kinds.ncu.model.source import KernelSource

ProgressFn = Callable[[int, int], None]
_pread: Callable[[int, int, int], bytes] | None = getattr(os, "pread", None)  # not on Windows
RESULT_CACHE = 4
DETAIL_CACHE = 64
ANALYSED_TOGETHER = 32
"""Details ``iter_details`` reads before it analyses them (``summary_reader.paired``)."""


class NcuReport:
    """An opened kernel report, read with kernelscope's own reader (``file_format``): the
    block walk indexes every result, and a result is decoded when it is needed. Thread-safe:
    reads of the file happen under one lock."""

    def __init__(self, path: str | os.PathLike[str], *, extra_metrics: Iterable[str] = ()):
        self.path = Path(path)
        self._of_path = f" of {self.path}"  # the end of what a result's sentences call it
        self._file, self._temp, self.layout = open_report_file(self.path)
        self._fd: int | None = self._file.fileno() if _pread is not None else None
        """The report file's descriptor, where results are read with ``os.pread``."""
        self._lock = threading.RLock()
        self.decoded = 0
        """How many results were decoded from the file so far (each read of a kernel that is
        not among the few kept): what a pass over the report costs."""
        self._extra = tuple(extra_metrics)
        wanted = dict.fromkeys(ROW_METRICS)
        wanted.update(dict.fromkeys(self._extra))
        self._summary_metrics = tuple(wanted)
        self._details: RecentCache[int, KernelDetail] = RecentCache(DETAIL_CACHE)
        self._results: RecentCache[int, Result] = RecentCache(RESULT_CACHE)
        self._modules = Modules(self._file, self._lock, self.layout.sources)
        self.origins: list[Origin] = origins_of(self.layout.results)
        self._notes: list[str] | None = None
        self._device: DeviceInfo | None = None
        self._version_numbers: tuple[tuple[int, ...] | None] | None = None
        self._names = Names(self.layout.strings)
        self._sass: Disassembly | None = None  # made for the first SASS asked (sass.py)
        self.version = f"kernelscope's reader, report file format {self.layout.format_version}"

    @property
    def plain_path(self) -> str:
        """The report as a plain file (its decompressed copy when it is compressed)."""
        return str(self._temp or self.path)

    def _ncu_numbers(self, first: Result) -> tuple[int, ...] | None:
        """The version of the ncu that took the report, for units: the recorded one, else
        ``(2019,)`` when the first result holds pre-2020 metric names, else None (newest)."""
        if self._version_numbers is None:
            recorded = self.layout.ncu_version_numbers
            legacy = recorded is None and is_legacy(first.present())
            self._version_numbers = (recorded or ((2019,) if legacy else None),)
        return self._version_numbers[0]

    @staticmethod
    def handle(kernel_id: int) -> tuple[int, int]:
        """The (range, action) ncu_report addressed a kernel by: every result is action
        ``kernel_id`` of one range in file order."""
        return 0, kernel_id

    @property
    def processes(self) -> list[ProcessInfo]:
        """The processes whose kernels it holds, by first kernel (``--target-processes all``)."""
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
            note = legacy_note(self._result(0).metric_names())
            self._notes = [note] if note else []
        return list(self._notes)

    # -- lifetime -------------------------------------------------------------------------
    def close(self) -> None:
        """Release the report and remove a temporary decompressed copy."""
        with self._lock:
            self._details.clear()
            self._results.clear()
            if self._sass is not None:
                self._sass.close()
            self._file.close()
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
        return len(self.layout.results)

    def _result(self, kernel_id: int) -> Result:
        """Decode one result (the most recent RESULT_CACHE kept)."""
        with self._lock:
            found = self._results.get(kernel_id)
            if found is None:
                kind, offset, size, process = self.layout.results[kernel_id]
                data = self._read_at(offset, size)
                where = f"Kernel {kernel_id}{self._of_path}"
                found = Result(kind, data, self._names, process, where)
                known = self._version_numbers
                found.ncu_version = known[0] if known is not None else self._ncu_numbers(found)
                self._results.put(kernel_id, found)
                self.decoded += 1
            return found

    def _read_at(self, offset: int, size: int) -> bytes:
        """``size`` bytes from ``offset``, as the file's ``seek`` and ``read`` give them: with
        ``os.pread`` where there is one (half their cost, once a result)."""
        if self._fd is not None and _pread is not None and not self._file.closed:
            data = _pread(self._fd, size, offset)
            if len(data) == size:
                return data
        self._file.seek(offset)
        return self._file.read(size)

    def summary(self, kernel_id: int, *, rules: bool = True) -> KernelSummary:
        """The kernel list's view of one kernel: its row (names, launch shape, key metrics)
        and the key and ``extra_metrics`` metrics, rules (unless ``rules`` is False) and
        collected sections."""
        return read_summary(
            self._result(kernel_id),
            kernel_id,
            self.handle(kernel_id),
            self._summary_metrics,
            rules and bool(self._extra),
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
        analyse: Callable[[KernelSummary], Any] | None = None,
        rules: bool = True,
        first: int | None = None,
    ) -> Iterator[list[Any]]:
        """Yield every kernel's summary in ID order, in time-based batches (for progressive
        loading); with ``analyse``, each item is ``(summary, analyse(summary))``; without
        ``rules``, the summaries leave out NCU's rule results. ``first``: the first batch
        goes as soon as it holds that many (a screenful of rows), whatever the time. A
        batch's time is this reading's: ``analyse`` runs once the batch is read (``paired``),
        and the next one's starts when the consumer asks for it (the kernel list's first
        rows are drawn and diagnosed meanwhile, and would otherwise leave a batch of a few
        rows at once)."""
        batch: list[Any] = []
        started = time.perf_counter()
        for kernel_id in range(self.kernel_count):
            if cancelled is not None and cancelled():
                return
            batch.append(self.summary(kernel_id, rules=rules))
            if time.perf_counter() - started >= batch_seconds or len(batch) == first:
                first = None
                if (analysed := paired(batch, analyse, cancelled)) is None:
                    return
                yield analysed
                batch, started = [], time.perf_counter()
        if batch and (analysed := paired(batch, analyse, cancelled)) is not None:
            yield analysed

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
        cancelled: Callable[[], bool] | None = None,
        meanwhile: Callable[[], object] | None = None,
    ) -> Iterator[list[Any]]:
        """Yield the details of ``kernel_ids`` one batch each (with source hot spots when
        ``source``). With ``analyse``, each item is ``(detail, analyse(detail))``; with
        ``slim`` as well, the detail is replaced by its metric-free list summary. ``tables``
        (default: not ``slim``) reads NCU's section header tables; ``all_metrics`` every
        metric the kernel holds into ``detail.all_metrics``; ``curves`` and ``breakdowns``
        the occupancy curves and Speed Of Light breakdowns. ``meanwhile`` runs first.
        ``analyse`` runs on ``ANALYSED_TOGETHER`` details at a time once they are read
        (``paired``)."""
        tables = not slim if tables is None else tables
        if meanwhile is not None:
            meanwhile()
        together = 1 if analyse is None else ANALYSED_TOGETHER
        for first in range(0, len(kernel_ids), together):
            read = []
            for kernel_id in kernel_ids[first:first + together]:
                if cancelled is not None and cancelled():
                    return
                detail = self._read_detail(kernel_id, curves, breakdowns, tables)
                if source:
                    self.source_hotspots(kernel_id, detail=detail)
                if all_metrics and detail.all_metrics is None:
                    detail.all_metrics = self.all_metrics(kernel_id)
                read.append(detail)
            yield paired(read, analyse, slim=slim)

    def key_frame(self, progress: ProgressFn | None = None) -> pl.DataFrame:
        """Every kernel's key metrics as one polars frame."""
        rows: list[dict[str, Any]] = []
        for batch in self.iter_summaries():
            rows.extend(s.row for s in batch)
            if progress is not None:
                progress(len(rows), self.kernel_count)
        return rows_to_frame(rows)

    # -- detail ---------------------------------------------------------------------------
    @property
    def device(self) -> DeviceInfo:
        """The GPU the report was taken on, read from the first kernel's device attributes."""
        if self._device is None:
            result = self._result(0)
            attrs: dict[str, Any] = {}
            for name in DEVICE_ATTRIBUTES:
                m = read_metric(result, name)
                if m is not None:
                    attrs[name] = m.value
            major = attrs.get("device__attribute_compute_capability_major")
            minor = attrs.get("device__attribute_compute_capability_minor")
            cc = f"{major}.{minor}" if major is not None else ""
            sms = attrs.get("device__attribute_multiprocessor_count")
            name = str(attrs.get("device__attribute_display_name", "unknown GPU"))
            count = int(sms) if isinstance(sms, (int, float)) else None
            self._device = DeviceInfo(name, cc, count, attrs)
        return self._device

    def detail(self, kernel_id: int) -> KernelDetail:
        """The full detail of one kernel (cached, the most recent DETAIL_CACHE kept)."""
        with self._lock:
            found = self._details.get(kernel_id)
            if found is None:
                found = self._read_detail(kernel_id, True, True, True)
                self._details.put(kernel_id, found)
            return found

    def _read_detail(self, kernel_id: int, curves: bool, breakdowns: bool, tables: bool
                     ) -> KernelDetail:
        cached = self._details.peek(kernel_id)
        if cached is not None:
            return cached
        result = self._result(kernel_id)
        return build_detail(
            result, kernel_id, *self.handle(kernel_id), action_names(result, kernel_id),
            self._extra,
            curves=curves, breakdowns=breakdowns, tables=tables,
            origin=self.origins[kernel_id],
        )

    def prefetch(self, kernel_ids: Iterable[int]) -> None:
        """Build the details of ``kernel_ids`` ahead of time (call from a worker thread)."""
        for kernel_id in kernel_ids:
            if 0 <= kernel_id < self.kernel_count and kernel_id not in self._details:
                self.detail(kernel_id)

    def cached_detail(self, kernel_id: int) -> KernelDetail | None:
        """The detail if it is already built, without touching the report."""
        return self._details.peek(kernel_id)

    def source_texts(self, kernel_id: int) -> dict[str, list[str]]:
        """The source files the report embeds for the kernel's module(s), lines by path."""
        result = self._result(kernel_id)
        return self._modules.texts(result.process.pid, result.source_references())

    def _disassembler(self, kernel_id: int) -> Callable[[list[int]], dict[int, Instruction]]:
        from kernelscope.kinds.ncu.model.sass import Disassembly
        from kernelscope.kinds.ncu.model.source import function_pcs, launch_entries

        with self._lock:
            if self._sass is None:
                self._sass = Disassembly(self._write_one)
        sass = self._sass

        def run(pcs: list[int]) -> dict[int, Instruction]:
            result = self._result(kernel_id)
            refs = result.source_references()
            cubin = self._modules.cubin(result.process.pid, refs[0]) if refs else b""
            function = result.names()[2] if result.is_kernel else ""
            starts = function_pcs(result)
            return sass(kernel_id, pcs, cubin, function, (result.process.pid, refs), starts,
                        lambda: launch_entries(result, starts))

        return run

    def _write_one(self, kernel_id: int, out: IO[bytes]) -> None:
        """Write a report holding only kernel ``kernel_id`` (for the SASS child)."""
        with self._lock:
            references = self._result(kernel_id).source_references()
            write_one_result(self._file, self.layout, kernel_id, references, out)

    def source_hotspots(self, kernel_id: int, top: int = 20, *,
                        detail: KernelDetail | None = None) -> SourceHotspots | None:
        """The kernel's hottest source lines and SASS, or None when source counters are absent."""
        detail = detail or self.detail(kernel_id)
        if detail.source is None and detail.has_section("SourceCounters"):
            from kernelscope.kinds.ncu.model.hotspots import read_source_hotspots

            detail.source = read_source_hotspots(
                self._result(kernel_id), self.source_texts(kernel_id),
                self._disassembler(kernel_id), top,
            )
        return detail.source

    def kernel_source(self, kernel_id: int) -> KernelSource | None:
        """The kernel's whole source and SASS with per-instruction metrics (cached with its
        detail), or None when the report has no source counters for it. The SASS text comes
        from a child process (``sass.disassemble``): call from a worker."""
        detail = self.detail(kernel_id)
        if detail.listing is None and detail.has_section("SourceCounters"):
            from kernelscope.kinds.ncu.model.source import read_kernel_source

            detail.listing = read_kernel_source(
                self._result(kernel_id), self.source_texts(kernel_id),
                self._disassembler(kernel_id),
            )
        return detail.listing

    def all_metrics(self, kernel_id: int) -> dict[str, Metric]:
        """Every metric stored for the kernel."""
        return read_all_metrics(self._result(kernel_id))

    def metrics(self, kernel_id: int, names: Iterable[str]) -> dict[str, Metric]:
        """The metrics of ``names`` the kernel holds with a value (a few of a ``--set full``
        result's thousands, read without the others)."""
        return read_metrics(self._result(kernel_id), tuple(names))


def open_ncu_report(path: str | os.PathLike[str], **kwargs: Any) -> NcuReport:
    """Open a kernel report; raises ReportError with one sentence when it cannot."""
    return NcuReport(path, **kwargs)
