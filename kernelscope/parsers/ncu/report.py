"""The kernel report: a cheap list of every kernel's key metrics, and full detail on demand."""

from __future__ import annotations

import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import polars as pl

from kernelscope.parsers.ncu.detail import (
    build_detail,
    read_all_metrics,
    read_rules,
    read_source_hotspots,
)
from kernelscope.parsers.ncu.metrics import Metric, read_metric
from kernelscope.parsers.ncu.model import DeviceInfo, KernelDetail, KernelSummary, SourceHotspots
from kernelscope.parsers.ncu.opener import load_ncu_context
from kernelscope.parsers.ncu.panes import DIM_METRICS, KEY_METRICS

KEY_SCHEMA: dict[str, Any] = {
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
}

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
ACTION_CACHE = 4
DETAIL_CACHE = 64


def _dims(values: list[Any]) -> tuple[int, int, int]:
    out = [int(v) if isinstance(v, (int, float)) else 1 for v in values]
    return out[0], out[1], out[2]


_LITERAL_CAST = re.compile(
    r"\((?:bool|(?:(?:un)?signed )?(?:char|short|int|long|long long)|unsigned)\)(-?\d+)"
)


def cli_demangled(name: str) -> str:
    """The demangled name as the ncu CLI prints it: ``f<(int)32>`` becomes ``f<32>``."""
    return _LITERAL_CAST.sub(r"\1", name)


def _value(m: Metric | None) -> Any:
    return m.value if m is not None else 1


def _int_or_none(m: Metric | None) -> int | None:
    return int(m.number) if m is not None and m.number is not None else None


def format_dims(d: tuple[int, int, int]) -> str:
    """Grid/block dims as ``x×y×z``, dropping trailing 1s (``256`` or ``64×64``)."""
    parts = list(d)
    while len(parts) > 1 and parts[-1] == 1:
        parts.pop()
    return "×".join(str(p) for p in parts)


class NcuReport:
    """An opened .ncu-rep. Thread-safe: every ncu_report call happens under one lock."""

    def __init__(self, path: str | os.PathLike[str], *, extra_metrics: Iterable[str] = ()):
        self.path = Path(path)
        self._ctx, self._temp = load_ncu_context(self.path)
        self._lock = threading.RLock()
        self._extra = tuple(extra_metrics)
        wanted = dict.fromkeys(m for _, m in KEY_METRICS)
        wanted.update(dict.fromkeys(DIM_METRICS))
        wanted.update(dict.fromkeys(("launch__context_id", "launch__stream_id")))
        wanted.update(dict.fromkeys(self._extra))
        self._summary_metrics = tuple(wanted)
        self._details: OrderedDict[int, KernelDetail] = OrderedDict()
        self._actions: OrderedDict[int, Any] = OrderedDict()
        self.handles: list[tuple[int, int]] = []
        for r in range(self._ctx.num_ranges()):
            rng = self._ctx.range_by_idx(r)
            self.handles.extend((r, a) for a in range(rng.num_actions()))
        self._device: DeviceInfo | None = None
        self.version = ""
        try:
            self.version = str(self._ctx.get_version())
        except Exception:  # older ncu_report builds lack it
            self.version = ""

    # -- lifetime -------------------------------------------------------------------------
    def close(self) -> None:
        """Release the report and remove a temporary decompressed copy."""
        with self._lock:
            self._details.clear()
            self._actions.clear()
            self._ctx = None
            if self._temp is not None:
                self._temp.unlink(missing_ok=True)
                self._temp = None

    def __enter__(self) -> NcuReport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        temp = getattr(self, "_temp", None)
        if temp is not None:
            temp.unlink(missing_ok=True)

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
        action = self._ctx.range_by_idx(r).action_by_idx(a)
        if keep:
            self._actions[kernel_id] = action
            while len(self._actions) > ACTION_CACHE:
                self._actions.popitem(last=False)
        return action

    def _names(self, action: Any) -> tuple[str, str, str]:
        import ncu_report

        name = action.name()
        demangled = cli_demangled(action.name(ncu_report.IAction.NameBase_DEMANGLED) or name)
        mangled = action.name(ncu_report.IAction.NameBase_MANGLED) or name
        return name, demangled, mangled

    def summary(self, kernel_id: int) -> KernelSummary:
        """The kernel list's view of one kernel: its row (names, launch shape, key metrics)
        and the key and ``extra_metrics`` metrics, rules and collected sections."""
        with self._lock:
            action = self._action(kernel_id)
            name, demangled, _ = self._names(action)
            metrics: dict[str, Metric] = {}
            for metric in self._summary_metrics:
                m = read_metric(action, metric)
                if m is not None:
                    metrics[metric] = m
            sections = frozenset(s.identifier() for s in action.sections() or ())
            rules = read_rules(action) if self._extra else ()
        grid = _dims([_value(metrics.get(m)) for m in DIM_METRICS[:3]])
        block = _dims([_value(metrics.get(m)) for m in DIM_METRICS[3:]])
        r, a = self.handles[kernel_id]
        row: dict[str, Any] = {
            "id": kernel_id,
            "name": name,
            "demangled": demangled,
            "grid": format_dims(grid),
            "block": format_dims(block),
            "grid_size": grid[0] * grid[1] * grid[2],
            "block_size": block[0] * block[1] * block[2],
        }
        for col, metric in KEY_METRICS:
            m = metrics.get(metric)
            row[col] = m.number if m is not None else None
        row["context"] = _int_or_none(metrics.get("launch__context_id"))
        row["stream"] = _int_or_none(metrics.get("launch__stream_id"))
        row["range_idx"], row["action_idx"] = r, a
        return KernelSummary(row=row, metrics=metrics, rules=rules, sections=sections)

    def key_row(self, kernel_id: int) -> dict[str, Any]:
        """The kernel list's row for one kernel."""
        return self.summary(kernel_id).row

    def iter_summaries(
        self, *, batch_seconds: float = 0.1, cancelled: Callable[[], bool] | None = None
    ) -> Iterator[list[KernelSummary]]:
        """Yield every kernel's summary in time-based batches (for progressive loading)."""
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
        return rows_to_frame(rows)

    # -- detail ---------------------------------------------------------------------------
    @property
    def device(self) -> DeviceInfo:
        """The GPU the report was taken on, read from the first kernel's device attributes."""
        if self._device is None:
            with self._lock:
                action = self._action(0)
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
            detail = build_detail(action, kernel_id, r, a, self._names(action), self._extra)
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

    def all_metrics(self, kernel_id: int) -> dict[str, Metric]:
        """Every metric stored for the kernel (slow: ~0.1 s a kernel)."""
        with self._lock:
            return read_all_metrics(self._action(kernel_id))


def rows_to_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Build the kernel-list frame from key rows with a fixed schema."""
    return pl.DataFrame(rows, schema=KEY_SCHEMA)


def open_ncu_report(path: str | os.PathLike[str], **kwargs: Any) -> NcuReport:
    """Open a kernel report; raises ReportError with one sentence when it cannot."""
    return NcuReport(path, **kwargs)
