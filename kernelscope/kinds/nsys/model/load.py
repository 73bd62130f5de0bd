"""Build an :class:`TimelineReport` from an nsys SQLite export, whatever its schema variant.

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

from kernelscope.core.errors import ReportError
from kernelscope.core.hooks import (
    CancelHook,
    OpenCancelled,
    ProgressHook,
    is_cancelled,
    report_progress,
)
from kernelscope.kinds.nsys.model import gpu_metrics_read
from kernelscope.kinds.nsys.model.capture import (
    analysis_window,
    capture_window,
    event_bounds,
    nvtx_last_ts,
    read_devices,
    read_nsys_version,
    read_processes,
    read_threads,
    sane_events,
    session_clock,
)
from kernelscope.kinds.nsys.model.db import ExportDb, ReadStopped, ReadTask, Schema
from kernelscope.timeline.model import gpu_metrics
from kernelscope.timeline.model.api_names import strip_api_version
from kernelscope.timeline.model.model import TimelineReport, pid_of
from kernelscope.timeline.model.schema import (
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
    SYNC_MAP,
    SYNC_SCHEMA,
    SYNC_TABLE,
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


KERNEL_DETAILS = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
                  "short_name", "mangled_name")
"""The kernels' columns that only a kernel's details on the timeline screen and a join with
kernel reports read: read with ``kernel_details`` (8 of the kernel table's 17 columns read:
SQLite's decoding of them was ~0.015 s of a 40,000-kernel trace's headless export)."""

GRAPH_SKIPPED = ("context_id", "graph_node_id")
"""The kernels' columns the critical path's graph never reads either: left out with
``graph_only`` (as are the OS runtime calls and nsys's own overhead, and the CUDA calls' names
as recorded): ~0.05 s of CPU time of the 300k-kernel trace's what-if."""


def _plan(db: ExportDb, metrics: list[gpu_metrics.CatalogEntry],
          kernel_details: bool = True, graph_only: bool = False) -> list[ReadTask]:
    """The queries to run, skipping tables this export does not have (and, ``graph_only``,
    what the critical path's graph never reads)."""
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
        if not kernel_details:
            mapping = [(src, alias) for src, alias in mapping
                       if alias not in (*KERNEL_DETAILS, "short_id", "mangled_id")]
        if graph_only:
            mapping = [(src, alias) for src, alias in mapping if alias not in GRAPH_SKIPPED]
        tasks.append(ReadTask("kernels", db.table_name(KERNEL_TABLE),
                              _select(db, KERNEL_TABLE, mapping), KERNEL_SCHEMA))
    for name, table, mapping, schema in (
        ("memcpy", MEMCPY_TABLE, MEMCPY_MAP, MEMCPY_SCHEMA),
        ("memset", MEMSET_TABLE, MEMSET_MAP, MEMSET_SCHEMA),
        ("cuda_api", RUNTIME_TABLE, API_MAP, API_SCHEMA),
        ("osrt", OSRT_TABLE, OSRT_MAP, OSRT_SCHEMA),
        ("overhead", "PROFILER_OVERHEAD", OVERHEAD_MAP, OVERHEAD_SCHEMA),
        ("nvtx", NVTX_TABLE, NVTX_MAP, NVTX_SCHEMA),
        ("sync", SYNC_TABLE, SYNC_MAP, SYNC_SCHEMA),
    ):
        if db.has(table) and not (graph_only and name in ("osrt", "overhead")):
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


def _kernels(df: pl.DataFrame | None, strings: pl.DataFrame,
             kernel_details: bool = True) -> pl.DataFrame:
    if df is None:
        empty = _empty(KERNEL_SCHEMA).drop("name_id", "short_id", "mangled_id").with_columns(
            pl.lit(None, pl.Categorical).alias("name"),
            pl.lit(None, pl.Categorical).alias("short_name"),
            pl.lit(None, pl.Categorical).alias("mangled_name"),
        )
        return empty if kernel_details else empty.drop(KERNEL_DETAILS)
    df = _named(df, strings, "name_id", "name", pl.Categorical)
    if not kernel_details:
        return df
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
    if df is None or not df.height:
        return _calls(df, API_SCHEMA, strings).with_columns(pl.lit(None, pl.String).alias("api"))
    # The name and its version-stripped form (once per distinct name, not per call) in one
    # join of the id column alone: the other columns of these many calls are not copied.
    lookup = _lookup(strings, df["name_id"], "name_id", "name", pl.String).unique(
        "name_id", keep="first", maintain_order=True  # one name an id, one row a call
    ).with_columns(strip_api_version(pl.col("name")).alias("api"))
    named = df.select("name_id").join(lookup, on="name_id", how="left", maintain_order="left")
    return df.drop("name_id").with_columns(named["name"], named["api"])


def _graph_calls(df: pl.DataFrame | None, strings: pl.DataFrame) -> pl.DataFrame:
    """The CUDA calls as the critical path's graph reads them: ``api`` a Categorical and no
    ``name`` (a column of strings per call, ~0.03 s of CPU time on 814,000 calls, and its
    cast). The names become categories in the order the calls first use them, as the cast
    of the whole column did: a category's number is its place in that order."""
    if df is None or not df.height:
        return _cuda_api(df, strings).drop("name").with_columns(
            pl.col("api").cast(pl.Categorical))
    ids = df["name_id"].unique(maintain_order=True)
    lookup = _lookup(strings, ids, "name_id", "name", pl.String).unique(
        "name_id", keep="first", maintain_order=True)
    first = ids.to_frame().join(lookup, on="name_id", how="left", maintain_order="left")
    first = first.select("name_id", strip_api_version(pl.col("name")).cast(pl.Categorical)
                         .alias("api"))
    named = df.select("name_id").join(first, on="name_id", how="left", maintain_order="left")
    return df.drop("name_id").with_columns(named["api"])


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


def load_report(
    sqlite_path: Path,
    *,
    source: Path | None = None,
    progress: ProgressHook | None = None,
    cancel: CancelHook | None = None,
    keep_sqlite_path: bool = True,
    kernel_details: bool = True,
    graph_only: bool = False,
) -> TimelineReport:
    """Read every table kernelscope uses from ``sqlite_path`` into an TimelineReport.

    ``keep_sqlite_path=False`` records no SQLite path (for a scratch file about to be removed).
    ``kernel_details=False`` reads the kernels without ``KERNEL_DETAILS`` (for the headless
    exports, summary and what-if, which never read them); ``graph_only`` only what the
    critical path's graph reads (the what-if): ``GRAPH_SKIPPED`` and ``_graph_calls``.
    """
    display = (source or sqlite_path).name
    try:
        return _load(sqlite_path, source, display, progress, cancel, keep_sqlite_path,
                     kernel_details, graph_only)
    except (sqlite3.Error, pl.exceptions.PolarsError) as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ReportError(f"{display} could not be read ({detail.rstrip('.')}).") from exc


def _load(
    sqlite_path: Path, source: Path | None, display: str,
    progress: ProgressHook | None, cancel: CancelHook | None,
    keep_sqlite_path: bool, kernel_details: bool, graph_only: bool = False,
) -> TimelineReport:
    with ExportDb(sqlite_path, display_name=display) as db:
        report_progress(progress, f"Reading {display}", 0.0)
        metrics = gpu_metrics_read.catalog(db)
        try:
            raw = db.read_many(
                _plan(db, metrics, kernel_details, graph_only),
                on_chunk=lambda done, total: report_progress(
                    progress, f"Reading {display}", done / total
                ),
                should_stop=lambda: is_cancelled(cancel),
            )
        except ReadStopped:
            raise OpenCancelled(f"Opening {display} was cancelled.") from None
        raw = {name: sane_events(name, df) for name, df in raw.items()}
        strings = raw.get("strings", _empty(STRINGS_SCHEMA))
        kernels = _kernels(raw.get("kernels"), strings, kernel_details)
        memcpy = _memcpy(db, raw.get("memcpy"))
        memset = _memset(raw.get("memset"))
        cuda_api = (_graph_calls if graph_only else _cuda_api)(raw.get("cuda_api"), strings)
        osrt = _calls(raw.get("osrt"), OSRT_SCHEMA, strings)
        overhead = _calls(raw.get("overhead"), OVERHEAD_SCHEMA, strings)
        nvtx = _nvtx(raw.get("nvtx"), strings)
        nvtx_last = nvtx_last_ts(raw.get("nvtx"))
        start, end = capture_window(
            analysis_window(db),
            session_clock(db),
            event_bounds([kernels, memcpy, memset, cuda_api, osrt, nvtx]),
        )
        return TimelineReport(
            path=source or sqlite_path,
            sqlite_path=sqlite_path if keep_sqlite_path else None,
            start_ns=start,
            end_ns=end,
            devices=read_devices(db, [kernels, memcpy, memset]),
            processes=read_processes(
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
            threads=read_threads(db),
            tables=db.tables,
            nsys_version=read_nsys_version(db),
            gpu_metrics=gpu_metrics.build(raw.get("gpu_metrics"), metrics),
            sync=raw.get("sync", _empty(SYNC_SCHEMA)),
        )
