"""Read-only access to an ``nsys export --type sqlite`` file, returning polars frames."""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import threading
import urllib.parse
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, TypeAlias

import polars as pl

from kernelscope.core.errors import ReportError

if TYPE_CHECKING:
    from adbc_driver_manager import AdbcConnection, AdbcDatabase
    from polars._typing import ColumnNameOrSelector, PolarsDataType

Schema: TypeAlias = "Mapping[str, PolarsDataType]"
"""Column name -> polars dtype (a class such as ``pl.Int64`` or an instance)."""

# Any of these tables (or a table named with one of the prefixes) marks an SQLite file as an
# Nsight Systems export: a CPU-only capture has no CUDA table, an old one no metadata table.
_NSYS_MARKERS = frozenset(
    {
        "META_DATA_EXPORT",
        "EXPORT_META_DATA",
        "ANALYSIS_DETAILS",
        "NVTX_EVENTS",
        "OSRT_API",
        "PROFILER_OVERHEAD",
        "SCHED_EVENTS",
        "COMPOSITE_EVENTS",
    }
)
_NSYS_PREFIXES = ("CUPTI_ACTIVITY_KIND_", "TARGET_INFO_", "ENUM_NSYS_", "ENUM_CUDA_")
_VERSIONED = re.compile(r"(?P<base>.+)_V(?P<version>\d+)")


def base_names(tables: frozenset[str]) -> dict[str, str]:
    """Each table's unversioned name -> the table to read: newer nsys versions rename a
    table whose columns changed with a ``_V2``/``_V3`` suffix (the unsuffixed one, or the
    highest version, wins)."""
    best: dict[str, tuple[int, str]] = {}
    for table in tables:
        match = _VERSIONED.fullmatch(table)
        base, version = (match["base"], int(match["version"])) if match else (table, 1 << 30)
        if base not in best or version > best[base][0]:
            best[base] = (version, table)
    return {base: table for base, (_, table) in best.items()}


def is_nsys_schema(tables: frozenset[str]) -> bool:
    """True when the tables are those of an Nsight Systems export."""
    return bool(tables & _NSYS_MARKERS) or any(t.startswith(_NSYS_PREFIXES) for t in tables)


CHUNK_ROWS = 250_000  # rows per parallel read
MAX_READERS = 4


@dataclass(frozen=True)
class ReadTask:
    """One query to run by :meth:`ExportDb.read_many` (``sql`` selects from ``table``)."""

    name: str
    table: str
    sql: str
    schema: Schema


class ReadStopped(Exception):
    """The ``should_stop`` hook of :meth:`ExportDb.read_many` fired."""


def read_only_uri(path: Path) -> str:
    """An SQLite URI that opens ``path`` read-only and never creates journal files."""
    return f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro&immutable=1"


def rowid_range_sql(table: str) -> str:
    """The query of ``table``'s least and greatest rowid: each in its own subquery, which
    SQLite answers from the b-tree's ends (``min(rowid), max(rowid)`` in one select scans
    every row: ~5 ms for 80,000 CUDA calls)."""
    return (f'SELECT (SELECT min(rowid) FROM "{table}"), '
            f'(SELECT max(rowid) FROM "{table}")')


class ExportDb:
    """An nsys SQLite export opened read-only.

    Frames are read through the Arrow-native ADBC SQLite driver when it is installed (about
    ten times faster than row-by-row reading for large tables), else through ``sqlite3``.
    """

    def __init__(self, path: Path, *, display_name: str | None = None) -> None:
        self.path = path
        self.name = display_name or path.name
        try:
            self._conn = sqlite3.connect(read_only_uri(path), uri=True, check_same_thread=False)
            rows = self._conn.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
            ).fetchall()
        except sqlite3.Error as exc:
            raise ReportError(f"{self.name} could not be read as SQLite ({exc}).") from exc
        raw = frozenset(str(r[0]) for r in rows if isinstance(r[0], str))
        self._names = base_names(raw)
        self.tables: frozenset[str] = raw | frozenset(self._names)
        """Every table's name, and its unversioned name (``X`` for ``X_V2``)."""
        if not is_nsys_schema(raw):
            self._conn.close()
            raise ReportError(f"{self.name} is an SQLite file but not an Nsight Systems export.")
        self._columns: dict[str, frozenset[str]] = {}
        self._adbc: AdbcDatabase | None = None
        self._adbc_failed = False
        self._local = threading.local()
        self._lock = threading.Lock()
        self._thread_conns: list[AdbcConnection] = []

    # -- schema ---------------------------------------------------------------------------
    def has(self, table: str) -> bool:
        return table in self.tables

    def table_name(self, table: str) -> str:
        """The table to read for ``table`` (its ``_V2``/``_V3`` version when renamed)."""
        return self._names.get(table, table)

    def columns(self, table: str) -> frozenset[str]:
        """Column names of ``table`` (empty when it does not exist)."""
        if table not in self._columns:
            if table not in self.tables:
                self._columns[table] = frozenset()
            else:
                name = self.table_name(table)
                info = self._conn.execute(f'PRAGMA table_info("{name}")').fetchall()
                self._columns[table] = frozenset(r[1] for r in info)
        return self._columns[table]

    def scalar(self, sql: str) -> object:
        row = self._conn.execute(sql).fetchone()
        return None if row is None else row[0]

    def rows(self, sql: str) -> list[tuple[object, ...]]:
        return self._conn.execute(sql).fetchall()

    # -- frames ---------------------------------------------------------------------------
    def _database(self) -> AdbcDatabase | None:
        """The ADBC SQLite database of the export (None without the driver): each reading
        thread opens its own connection to it."""
        if self._adbc is None and not self._adbc_failed:
            try:
                import adbc_driver_sqlite

                self._adbc = adbc_driver_sqlite.connect(read_only_uri(self.path))
            except Exception:
                self._adbc_failed = True
        return self._adbc

    def _thread_conn(self) -> AdbcConnection | None:
        """An ADBC connection private to the calling thread (None without ADBC)."""
        conn: AdbcConnection | None = getattr(self._local, "adbc", None)
        if conn is None and not self._adbc_failed:
            with self._lock:  # the database is shared: one new connection at a time
                database = self._database()
                try:
                    if database is not None:
                        from adbc_driver_manager import AdbcConnection

                        conn = AdbcConnection(database)
                except Exception:
                    self._adbc_failed = True
            if conn is None:
                return None
            self._local.adbc = conn
            with self._lock:
                self._thread_conns.append(conn)
        return conn

    def _adbc_frame(self, sql: str) -> pl.DataFrame | None:
        """``sql``'s rows read by this thread's ADBC connection, None where it cannot. The
        driver's Arrow stream goes to polars through the Arrow C interface: reading needs
        neither the driver's DB-API module nor pyarrow (~0.1 s of imports)."""
        conn = self._thread_conn()
        if conn is None:
            return None
        try:
            from adbc_driver_manager import AdbcStatement

            statement = AdbcStatement(conn)
            try:
                statement.set_options(**{"adbc.sqlite.query.batch_rows": "65536"})
                statement.set_sql_query(sql)
                stream, _ = statement.execute_query()
                return pl.DataFrame(stream).rechunk()
            finally:
                statement.close()
        except Exception:
            return None

    def frame(self, sql: str, schema: Schema | None = None) -> pl.DataFrame:
        """Run ``sql`` and return its rows as a DataFrame cast to ``schema`` when given."""
        df = self._adbc_frame(sql)
        if df is None:
            with self._lock:  # the sqlite3 connection is shared: one reader at a time
                try:
                    df = pl.read_database(sql, self._conn, infer_schema_length=None)
                except sqlite3.Error as exc:
                    raise ReportError(f"{self.name} could not be read ({exc}).") from exc
        if schema:
            dtypes: dict[ColumnNameOrSelector | PolarsDataType, PolarsDataType] = {
                k: v for k, v in schema.items() if k in df.columns
            }
            df = df.cast(dtypes, strict=False)
        return df

    def read_many(
        self,
        tasks: list[ReadTask],
        *,
        on_chunk: Callable[[int, int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        workers: int | None = None,
    ) -> dict[str, pl.DataFrame]:
        """Run every task's query, large tables split into rowid ranges read in parallel.

        SQLite decoding dominates reading, and the ADBC driver releases the GIL, so a few
        threads with one connection each cut the wall time. ``on_chunk(done, total)`` is
        called after each chunk; ``should_stop()`` is checked before each chunk and makes
        the call raise :class:`ReadStopped`.
        """
        chunks: list[tuple[str, int, str, Schema]] = []
        for task in tasks:
            try:
                lo, hi = self.rows(rowid_range_sql(task.table))[0]
            except sqlite3.Error:  # a view or a WITHOUT ROWID table: read it whole
                lo = hi = None
            if lo is None or hi is None:
                chunks.append((task.name, 0, task.sql, task.schema))
                continue
            lo_i, hi_i = int(lo), int(hi)  # type: ignore[call-overload]
            step = CHUNK_ROWS
            for i, a in enumerate(range(lo_i, hi_i + 1, step)):
                joiner = " AND " if " WHERE " in task.sql else " WHERE "
                sql = f"{task.sql}{joiner}rowid BETWEEN {a} AND {min(a + step - 1, hi_i)}"
                chunks.append((task.name, i, sql, task.schema))
        total = len(chunks)
        n_workers = workers or min(MAX_READERS, os.cpu_count() or 1)
        results: dict[tuple[str, int], pl.DataFrame] = {}

        def run(chunk: tuple[str, int, str, Schema]) -> None:
            if should_stop is not None and should_stop():
                raise ReadStopped
            name, idx, sql, schema = chunk
            results[(name, idx)] = self.frame(sql, schema)

        done = 0
        with ThreadPoolExecutor(max_workers=max(n_workers, 1)) as pool:
            futures = [pool.submit(run, c) for c in chunks]
            try:
                for fut in as_completed(futures):
                    fut.result()
                    done += 1
                    if on_chunk is not None:
                        on_chunk(done, total)
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
        out: dict[str, pl.DataFrame] = {}
        for task in tasks:
            parts = [results[k] for k in sorted(k for k in results if k[0] == task.name)]
            out[task.name] = (pl.concat(parts, how="vertical_relaxed") if parts
                              else pl.DataFrame(schema=task.schema))
        return out

    # -- lifetime -------------------------------------------------------------------------
    def close(self) -> None:
        for conn in [*self._thread_conns, self._adbc]:  # the connections, then the database
            if conn is not None:
                with contextlib.suppress(Exception):
                    conn.close()
        self._adbc = None
        self._thread_conns = []
        self._conn.close()

    def __enter__(self) -> ExportDb:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
