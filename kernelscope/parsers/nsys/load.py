"""Build an :class:`NsysReport` from an nsys SQLite export, whatever its schema variant.

Handled variants: no ``NVTX_EVENTS``/``OSRT_API``/memcpy/memset/runtime tables (empty
frames), NVTX text inline in ``text`` or through ``textId`` -> ``StringIds``, NVTX ranges
with a NULL ``end``, kernels named through ``demangledName`` or only ``shortName``, several
devices and processes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from kernelscope.parsers.errors import ReportError
from kernelscope.parsers.nsys import gpu_metrics, gpu_metrics_read
from kernelscope.parsers.nsys.api_names import strip_api_version
from kernelscope.parsers.nsys.db import ExportDb, ReadStopped, ReadTask, Schema
from kernelscope.parsers.nsys.hooks import (
    CancelHook,
    OpenCancelled,
    ProgressHook,
    is_cancelled,
    report_progress,
)
from kernelscope.parsers.nsys.model import DeviceInfo, NsysReport, ProcessInfo, pid_of
from kernelscope.parsers.nsys.schema import (
    API_MAP,
    API_SCHEMA,
    I64,
    KERNEL_MAP,
    KERNEL_SCHEMA,
    KERNEL_TABLE,
    MEM_KIND_LABELS,
    MEMCPY_LABELS,
    MEMCPY_MAP,
    MEMCPY_SCHEMA,
    MEMCPY_TABLE,
    MEMSET_MAP,
    MEMSET_SCHEMA,
    MEMSET_TABLE,
    NVTX_DOMAIN_CREATE,
    NVTX_MAP,
    NVTX_SCHEMA,
    NVTX_TABLE,
    OSRT_MAP,
    OSRT_SCHEMA,
    OSRT_TABLE,
    OVERHEAD_MAP,
    OVERHEAD_SCHEMA,
    RUNTIME_TABLE,
    STRINGS_SCHEMA,
)

if TYPE_CHECKING:
    from polars._typing import PolarsDataType


def _col(db: ExportDb, table: str, column: str, alias: str, default: str = "NULL") -> str:
    """``column AS alias`` when the table has that column, else ``default AS alias``."""
    return f'"{column}" AS {alias}' if column in db.columns(table) else f"{default} AS {alias}"


def _select(db: ExportDb, table: str, mapping: list[tuple[str, str]]) -> str:
    cols = ", ".join(_col(db, table, src, alias) for src, alias in mapping)
    return f'SELECT {cols} FROM "{db.table_name(table)}"'


def _empty(schema: Schema) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)


def _plan(db: ExportDb, metrics: list[gpu_metrics.CatalogEntry]) -> list[ReadTask]:
    """The queries to run, skipping tables this export does not have."""
    tasks = []
    metrics_task = gpu_metrics_read.read_task(db, metrics)
    if metrics_task is not None:
        tasks.append(metrics_task)
    if db.has(KERNEL_TABLE):
        cols = db.columns(KERNEL_TABLE)
        name_src = "demangledName" if "demangledName" in cols else "shortName"
        short_src = "shortName" if "shortName" in cols else name_src
        mangled_src = "mangledName" if "mangledName" in cols else name_src
        mapping = [*KERNEL_MAP, (name_src, "name_id"), (short_src, "short_id"),
                   (mangled_src, "mangled_id")]
        tasks.append(ReadTask("kernels", db.table_name(KERNEL_TABLE),
                              _select(db, KERNEL_TABLE, mapping), KERNEL_SCHEMA))
    for name, table, mapping, schema in (
        ("memcpy", MEMCPY_TABLE, MEMCPY_MAP, MEMCPY_SCHEMA),
        ("memset", MEMSET_TABLE, MEMSET_MAP, MEMSET_SCHEMA),
        ("cuda_api", RUNTIME_TABLE, API_MAP, API_SCHEMA),
        ("osrt", OSRT_TABLE, OSRT_MAP, OSRT_SCHEMA),
        ("overhead", "PROFILER_OVERHEAD", OVERHEAD_MAP, OVERHEAD_SCHEMA),
        ("nvtx", NVTX_TABLE, NVTX_MAP, NVTX_SCHEMA),
    ):
        if db.has(table):
            tasks.append(ReadTask(name, db.table_name(table), _select(db, table, mapping), schema))
    if db.has("StringIds") and {"id", "value"} <= db.columns("StringIds"):
        strings = db.table_name("StringIds")
        tasks.append(ReadTask("strings", strings, f'SELECT id, value FROM "{strings}"',
                              STRINGS_SCHEMA))
    return tasks


def _lookup(strings: pl.DataFrame, ids: pl.Series, id_col: str, out: str,
            dtype: PolarsDataType) -> pl.DataFrame:
    """``id_col -> out`` rows of ``strings`` for the ids used (value cast to ``dtype``)."""
    used = strings.filter(pl.col("id").is_in(ids.drop_nulls().unique().implode()))
    return used.select(pl.col("id").alias(id_col), pl.col("value").cast(dtype).alias(out))


def _named(df: pl.DataFrame, strings: pl.DataFrame, id_col: str, out: str,
           dtype: PolarsDataType = pl.String) -> pl.DataFrame:
    """Replace the string-id column ``id_col`` by the string column ``out``."""
    lookup = _lookup(strings, df[id_col], id_col, out, dtype)
    return df.join(lookup, on=id_col, how="left", maintain_order="left").drop(id_col)


def _kernels(df: pl.DataFrame | None, strings: pl.DataFrame) -> pl.DataFrame:
    if df is None:
        return _empty(KERNEL_SCHEMA).drop("name_id", "short_id", "mangled_id").with_columns(
            pl.lit(None, pl.Categorical).alias("name"),
            pl.lit(None, pl.Categorical).alias("short_name"),
            pl.lit(None, pl.Categorical).alias("mangled_name"),
        )
    df = _named(df, strings, "name_id", "name", pl.Categorical)
    df = _named(df, strings, "short_id", "short_name", pl.Categorical)
    return _named(df, strings, "mangled_id", "mangled_name", pl.Categorical)


def _kind_labels(db: ExportDb, table: str, fallback: dict[int, str]) -> dict[int, str]:
    if db.has(table) and {"id", "label"} <= db.columns(table):
        rows = db.rows(f'SELECT id, label FROM "{db.table_name(table)}"')
        labels = {i: str(label) for i, label in rows if isinstance(i, int)}
        return labels or dict(fallback)
    return dict(fallback)


def _memcpy(db: ExportDb, df: pl.DataFrame | None) -> pl.DataFrame:
    df = _empty(MEMCPY_SCHEMA) if df is None else df
    oper = _kind_labels(db, "ENUM_CUDA_MEMCPY_OPER", MEMCPY_LABELS)
    kinds = _kind_labels(db, "ENUM_CUDA_MEM_KIND", MEM_KIND_LABELS)
    label = pl.col("copy_kind").replace_strict(oper, default="Unknown", return_dtype=pl.String)
    return df.with_columns(
        ("[CUDA memcpy " + label + "]").alias("operation"),
        pl.col("src_kind").replace_strict(kinds, default=None, return_dtype=pl.String)
        .alias("src_kind_name"),
        pl.col("dst_kind").replace_strict(kinds, default=None, return_dtype=pl.String)
        .alias("dst_kind_name"),
    )


def _memset(df: pl.DataFrame | None) -> pl.DataFrame:
    df = _empty(MEMSET_SCHEMA) if df is None else df
    return df.with_columns(pl.lit("[CUDA memset]").alias("operation"))


def _calls(df: pl.DataFrame | None, schema: Schema,
           strings: pl.DataFrame) -> pl.DataFrame:
    if df is None:
        return _empty(schema).drop("name_id").with_columns(pl.lit(None, pl.String).alias("name"))
    return _named(df, strings, "name_id", "name")


def _cuda_api(df: pl.DataFrame | None, strings: pl.DataFrame) -> pl.DataFrame:
    out = _calls(df, API_SCHEMA, strings)
    if not out.height:
        return out.with_columns(pl.lit(None, pl.String).alias("api"))
    # Strip the version suffix once per distinct name, not once per call.
    names = out.select(pl.col("name").unique()).with_columns(
        strip_api_version(pl.col("name")).alias("api")
    )
    return out.join(names, on="name", how="left", maintain_order="left")


def _nvtx(df: pl.DataFrame | None, strings: pl.DataFrame) -> pl.DataFrame:
    """NVTX events with their message (``StringIds`` first, then inline ``text``, as nsys
    does) and the name of their domain (created by an event of type 75 in the same
    process)."""
    out_schema = {
        "start": I64, "end": I64, "event_type": I64, "global_tid": I64, "domain_id": I64,
        "name": pl.String, "domain": pl.String,
    }
    if df is None:
        return _empty(out_schema)
    lookup = _lookup(strings, df["text_id"], "text_id", "_sid_text", pl.String)
    pid = pid_of(pl.col("global_tid")).alias("_pid")
    df = df.join(lookup, on="text_id", how="left", maintain_order="left").with_columns(
        pl.coalesce("_sid_text", "text").alias("name"), pid
    )
    domains = (
        df.filter(pl.col("event_type") == NVTX_DOMAIN_CREATE)
        .sort("start")
        .group_by("domain_id", "_pid")
        .agg(pl.col("name").first().alias("domain"))
    )
    df = df.filter(pl.col("event_type") != NVTX_DOMAIN_CREATE).join(
        domains, on=["domain_id", "_pid"], how="left", maintain_order="left"
    )
    return df.select(list(out_schema)).cast(out_schema)  # type: ignore[arg-type]


TIME_LIMIT = 1 << 61  # ns, about 73 years: a timestamp beyond is a damaged value
_GPU_FRAMES = frozenset({"kernels", "memcpy", "memset"})
_CALL_FRAMES = frozenset({"cuda_api", "osrt", "overhead"})


def sane_events(name: str, df: pl.DataFrame) -> pl.DataFrame:
    """Drop the rows of a damaged export that no analysis can place: a start (or, but for
    NVTX, an end) that is NULL or not a number, an end before its start, a timestamp beyond
    ±2^61 ns, a GPU operation without a device."""
    if "start" not in df.columns or not df.height:
        return df
    start, end = pl.col("start"), pl.col("end")
    def bounded(t: pl.Expr) -> pl.Expr:  # not abs(): it wraps at -2^63
        return (t > -TIME_LIMIT) & (t < TIME_LIMIT)

    keep = start.is_not_null() & bounded(start)
    if "end" in df.columns:
        ordered = (end >= start) & bounded(end)
        keep &= ordered.fill_null(name not in _GPU_FRAMES | _CALL_FRAMES)
    if name in _GPU_FRAMES and "device_id" in df.columns:
        keep &= pl.col("device_id").is_not_null()
    return df.filter(keep)


def _nvtx_last_ts(df: pl.DataFrame | None) -> int | None:
    """The latest start or end of any NVTX event (where nsys ends never-closed ranges)."""
    if df is None or not df.height:
        return None
    value = df.select(pl.max_horizontal(pl.col("start").max(), pl.col("end").max())).item()
    return None if value is None else int(value)


def _int(value: object) -> int | None:
    """An integer column value, or None for NULL, text or a float that is not whole."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _analysis_window(db: ExportDb) -> tuple[int, int, int] | None:
    """(startTime, stopTime, duration) of the capture from ANALYSIS_DETAILS, if it is there
    and sane."""
    if not (db.has("ANALYSIS_DETAILS")
            and {"startTime", "stopTime"} <= db.columns("ANALYSIS_DETAILS")):
        return None
    has_duration = "duration" in db.columns("ANALYSIS_DETAILS")
    duration_sql = "max(duration)" if has_duration else "NULL"
    table = db.table_name("ANALYSIS_DETAILS")
    row = db.rows(f'SELECT min(startTime), max(stopTime), {duration_sql} FROM "{table}"')[0]
    lo, hi, duration = (_int(v) for v in row)
    if lo is None or hi is None or hi < lo:
        return None
    if duration is None or duration <= 0 or duration > hi - lo:
        duration = hi - lo
    return lo, hi, duration


def _session_clock(db: ExportDb) -> int | None:
    """The session's start on the clock ANALYSIS_DETAILS uses (nsys 2026 and later)."""
    table = "TARGET_INFO_SESSION_START_TIME"
    if not (db.has(table) and "systemClockNs" in db.columns(table)):
        return None
    return _int(db.scalar(f'SELECT min(systemClockNs) FROM "{db.table_name(table)}"'))


def _event_bounds(frames: list[pl.DataFrame]) -> tuple[int, int] | None:
    starts: list[int] = []
    ends: list[int] = []
    for f in frames:
        if f.height:
            lo = f["start"].min()
            hi = f.select(pl.max_horizontal("start", "end").max()).item()
            if lo is not None:
                starts.append(int(lo))  # type: ignore[arg-type]
            if hi is not None:
                ends.append(int(hi))  # type: ignore[arg-type]
    if not starts:
        return None
    return min(starts), max(ends)


def capture_window(
    analysis: tuple[int, int, int] | None,
    session_clock: int | None,
    events: tuple[int, int] | None,
) -> tuple[int, int]:
    """The capture's [start, end] on the events' clock.

    Events count from the session's start; ANALYSIS_DETAILS gives the capture's start, stop
    and duration, but on another clock in most exports (the system's clock since nsys
    2025.3, which also converts older reports that way; an MPI rank's own clock): a 1.45 s
    capture can read 160.5 s to 162 s there while its events lie between 0.09 s and 1.16 s.
    The window is [0, duration] when the events fit in it; else ANALYSIS_DETAILS itself, or
    shifted by the session's start on its clock (TARGET_INFO_SESSION_START_TIME.systemClockNs,
    nsys 2026), when the events fit; else the events' own extent."""
    if analysis is None:
        return events if events is not None else (0, 0)
    lo, hi, duration = analysis

    def fits(a: int, b: int) -> bool:
        return events is None or (a <= events[0] and events[1] <= b)

    candidates = [(0, duration), (lo, hi)]
    if session_clock is not None:
        candidates.append((lo - session_clock, hi - session_clock))
    for a, b in candidates:
        if fits(a, b):
            return a, b
    assert events is not None
    return events


def _gpu_rows(db: ExportDb) -> dict[int, DeviceInfo]:
    """Device id -> name and SM count from TARGET_INFO_GPU (``id`` and ``smCount``; before
    2022 five columns with ``deviceId``) and TARGET_INFO_CUDA_GPU (before 2021: ``deviceId``,
    ``numMultiprocessors``)."""
    found: dict[int, DeviceInfo] = {}
    for table, ids, sms in (
        ("TARGET_INFO_GPU", ("id", "deviceId"), "smCount"),
        ("TARGET_INFO_CUDA_GPU", ("deviceId", "id"), "numMultiprocessors"),
    ):
        cols = db.columns(table)
        id_col = next((c for c in ids if c in cols), None)
        if id_col is None or "name" not in cols:
            continue
        sm_sql = f'"{sms}"' if sms in cols else "NULL"
        for dev_id, name, count in db.rows(
            f'SELECT "{id_col}", name, {sm_sql} FROM "{db.table_name(table)}"'
        ):
            dev = _int(dev_id)
            if dev is None:
                continue
            text = name.strip() if isinstance(name, str) and name.strip() else None
            old = found.get(dev)
            found[dev] = DeviceInfo(
                dev,
                (old.name if old is not None and not old.name.startswith("GPU ") else None)
                or text
                or f"GPU {dev}",
                (old.sm_count if old is not None else None) or _int(count),
            )
    return found


def _devices(db: ExportDb, ops: list[pl.DataFrame]) -> list[DeviceInfo]:
    names = _gpu_rows(db)
    used: set[int] = set()
    for f in ops:
        used.update(int(d) for d in f["device_id"].drop_nulls().unique())
    out = [names.get(d, DeviceInfo(d, f"GPU {d}")) for d in sorted(used)]
    return out or sorted(names.values(), key=lambda d: d.id)


def _processes(db: ExportDb, frames: list[tuple[pl.DataFrame, str]]) -> list[ProcessInfo]:
    pids: set[int] = set()
    for f, col in frames:
        if f.height:
            pids.update(int(p) for p in f.select(pid_of(pl.col(col)).unique())[col].drop_nulls())
    names: dict[int, str] = {}
    if db.has("PROCESSES") and {"pid", "name"} <= db.columns("PROCESSES"):
        for pid, name in db.rows(f'SELECT pid, name FROM "{db.table_name("PROCESSES")}"'):
            number = _int(pid)
            if number is not None:
                names.setdefault(number, str(name or ""))
    return [ProcessInfo(p, names.get(p, "")) for p in sorted(pids)]


def _threads(db: ExportDb) -> dict[int, str]:
    if not (db.has("ThreadNames") and db.has("StringIds")):
        return {}
    if not ({"globalTid", "nameId"} <= db.columns("ThreadNames")
            and {"id", "value"} <= db.columns("StringIds")):
        return {}
    rows = db.rows(
        f'SELECT t.globalTid, s.value FROM "{db.table_name("ThreadNames")}" t '
        f'JOIN "{db.table_name("StringIds")}" s ON s.id = t.nameId'
    )
    return {tid: str(name) for tid, name in rows if isinstance(tid, int)}


def _version(db: ExportDb) -> str | None:
    """The nsys version that wrote the export (META_DATA_EXPORT; EXPORT_META_DATA in nsys
    2022.2 to 2023.2; none before)."""
    for table in ("META_DATA_EXPORT", "EXPORT_META_DATA"):
        if db.has(table) and {"name", "value"} <= db.columns(table):
            name = db.table_name(table)
            row = db.rows(f"SELECT value FROM \"{name}\" WHERE name = 'EXPORT_PRODUCT_VERSION'")
            if row and row[0][0] is not None:
                return str(row[0][0])
    return None


def load_report(
    sqlite_path: Path,
    *,
    source: Path | None = None,
    progress: ProgressHook | None = None,
    cancel: CancelHook | None = None,
    keep_sqlite_path: bool = True,
) -> NsysReport:
    """Read every table kernelscope uses from ``sqlite_path`` into an NsysReport.

    ``keep_sqlite_path=False`` records no SQLite path (for a scratch file about to be removed).
    """
    display = (source or sqlite_path).name
    try:
        return _load(sqlite_path, source, display, progress, cancel, keep_sqlite_path)
    except (sqlite3.Error, pl.exceptions.PolarsError) as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ReportError(f"{display} could not be read ({detail.rstrip('.')}).") from exc


def _load(
    sqlite_path: Path,
    source: Path | None,
    display: str,
    progress: ProgressHook | None,
    cancel: CancelHook | None,
    keep_sqlite_path: bool,
) -> NsysReport:
    with ExportDb(sqlite_path, display_name=display) as db:
        report_progress(progress, f"Reading {display}", 0.0)
        metrics = gpu_metrics_read.catalog(db)
        try:
            raw = db.read_many(
                _plan(db, metrics),
                on_chunk=lambda done, total: report_progress(
                    progress, f"Reading {display}", done / total
                ),
                should_stop=lambda: is_cancelled(cancel),
            )
        except ReadStopped:
            raise OpenCancelled(f"Opening {display} was cancelled.") from None
        raw = {name: sane_events(name, df) for name, df in raw.items()}
        strings = raw.get("strings", _empty(STRINGS_SCHEMA))
        kernels = _kernels(raw.get("kernels"), strings)
        memcpy = _memcpy(db, raw.get("memcpy"))
        memset = _memset(raw.get("memset"))
        cuda_api = _cuda_api(raw.get("cuda_api"), strings)
        osrt = _calls(raw.get("osrt"), OSRT_SCHEMA, strings)
        overhead = _calls(raw.get("overhead"), OVERHEAD_SCHEMA, strings)
        nvtx = _nvtx(raw.get("nvtx"), strings)
        nvtx_last = _nvtx_last_ts(raw.get("nvtx"))
        start, end = capture_window(
            _analysis_window(db),
            _session_clock(db),
            _event_bounds([kernels, memcpy, memset, cuda_api, osrt, nvtx]),
        )
        return NsysReport(
            path=source or sqlite_path,
            sqlite_path=sqlite_path if keep_sqlite_path else None,
            start_ns=start,
            end_ns=end,
            devices=_devices(db, [kernels, memcpy, memset]),
            processes=_processes(
                db,
                [(kernels, "global_pid"), (memcpy, "global_pid"), (cuda_api, "global_tid"),
                 (osrt, "global_tid"), (nvtx, "global_tid")],
            ),
            kernels=kernels,
            memcpy=memcpy,
            memset=memset,
            cuda_api=cuda_api,
            osrt=osrt,
            nvtx=nvtx,
            overhead=overhead,
            nvtx_last_ns=nvtx_last,
            threads=_threads(db),
            tables=db.tables,
            nsys_version=_version(db),
            gpu_metrics=gpu_metrics.build(raw.get("gpu_metrics"), metrics),
        )
