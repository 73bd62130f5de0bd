"""Read-only access to an ``nsys export --type sqlite`` file, returning polars frames."""

from __future__ import annotations

import sqlite3
import urllib.parse
from pathlib import Path
from types import TracebackType

import polars as pl

from kernelscope.parsers.errors import ReportError

# Any of these tables marks an SQLite file as an Nsight Systems export.
_NSYS_MARKERS = frozenset(
    {
        "META_DATA_EXPORT",
        "ANALYSIS_DETAILS",
        "TARGET_INFO_SESSION_START_TIME",
        "ENUM_NSYS_EVENT_TYPE",
        "CUPTI_ACTIVITY_KIND_KERNEL",
        "CUPTI_ACTIVITY_KIND_RUNTIME",
        "NVTX_EVENTS",
        "OSRT_API",
    }
)


def read_only_uri(path: Path) -> str:
    """An SQLite URI that opens ``path`` read-only and never creates journal files."""
    return f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro&immutable=1"


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
        self.tables: frozenset[str] = frozenset(r[0] for r in rows)
        if not self.tables & _NSYS_MARKERS:
            self._conn.close()
            raise ReportError(f"{self.name} is an SQLite file but not an Nsight Systems export.")
        self._columns: dict[str, frozenset[str]] = {}
        self._adbc: object | None = None
        self._adbc_failed = False

    # -- schema ---------------------------------------------------------------------------
    def has(self, table: str) -> bool:
        return table in self.tables

    def columns(self, table: str) -> frozenset[str]:
        """Column names of ``table`` (empty when it does not exist)."""
        if table not in self._columns:
            if table not in self.tables:
                self._columns[table] = frozenset()
            else:
                info = self._conn.execute(f'PRAGMA table_info("{table}")').fetchall()
                self._columns[table] = frozenset(r[1] for r in info)
        return self._columns[table]

    def scalar(self, sql: str) -> object:
        row = self._conn.execute(sql).fetchone()
        return None if row is None else row[0]

    def rows(self, sql: str) -> list[tuple[object, ...]]:
        return self._conn.execute(sql).fetchall()

    # -- frames ---------------------------------------------------------------------------
    def _adbc_conn(self) -> object | None:
        if self._adbc is None and not self._adbc_failed:
            try:
                import adbc_driver_sqlite.dbapi as adbc_sqlite

                self._adbc = adbc_sqlite.connect(read_only_uri(self.path))
            except Exception:  # noqa: BLE001 - any driver problem means: use sqlite3
                self._adbc_failed = True
        return self._adbc

    def frame(self, sql: str, schema: dict[str, pl.DataType] | None = None) -> pl.DataFrame:
        """Run ``sql`` and return its rows as a DataFrame cast to ``schema`` when given."""
        df: pl.DataFrame | None = None
        conn = self._adbc_conn()
        if conn is not None:
            try:
                with conn.cursor() as cur:  # type: ignore[attr-defined]
                    cur.adbc_statement.set_options(
                        **{"adbc.sqlite.query.batch_rows": "65536"}
                    )
                    cur.execute(sql)
                    df = pl.from_arrow(cur.fetch_arrow_table())  # type: ignore[assignment]
            except Exception:  # noqa: BLE001 - e.g. a column whose type changes mid-table
                df = None
        if df is None:
            try:
                df = pl.read_database(sql, self._conn, infer_schema_length=None)
            except sqlite3.Error as exc:
                raise ReportError(f"{self.name} could not be read ({exc}).") from exc
        if schema:
            df = df.cast({k: v for k, v in schema.items() if k in df.columns}, strict=False)
        return df

    # -- lifetime -------------------------------------------------------------------------
    def close(self) -> None:
        if self._adbc is not None:
            try:
                self._adbc.close()  # type: ignore[attr-defined]
            except Exception:  # noqa: BLE001
                pass
            self._adbc = None
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
