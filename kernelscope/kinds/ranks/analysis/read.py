"""Read only what the per-rank reduction needs from one nsys SQLite export.

A rank's trace can hold hundreds of thousands of kernels and millions of CPU calls. The
reduction reads the GPU operations (kernels with their name *ids*, copies, memsets), the NVTX
events, the MPI calls and a few metadata rows in full, and the CUDA API and OS runtime calls
only around the windows it explains (idle gaps, a straggler's lead-in to a collective).

Windows are selected in SQL without an index: a row is kept when its start or its end falls
in one of the windows' buckets (``start >> shift`` in a set of bucket numbers), or when it is
long enough to span a whole window. That superset costs one scan with a cheap test per row;
the exact overlap is then computed in polars.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import polars as pl

from kernelscope.kinds.nsys.model.db import ExportDb, ReadTask
from kernelscope.timeline.model.api_names import strip_api_version
from kernelscope.timeline.model.schema import (
    KERNEL_TABLE,
    MEM_KIND_LABELS,
    MEMCPY_LABELS,
    MEMCPY_TABLE,
    MEMSET_TABLE,
    NVTX_DOMAIN_CREATE,
    NVTX_TABLE,
    OSRT_TABLE,
    RUNTIME_TABLE,
)

I64 = pl.Int64
MPI_TABLE = re.compile(r"^MPI_\w*EVENTS$")
# Environment variables launchers set to a process's rank, most specific first.
RANK_VARIABLES = ("RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                  "MV2_COMM_WORLD_RANK", "SLURM_PROCID")
HOST_VARIABLES = ("HOSTNAME", "SLURMD_NODENAME", "PMIX_HOSTNAME", "HOST")
_ENV_PAIR = re.compile(r"(?:^|;)([A-Za-z_][A-Za-z0-9_]*)=([^;]*)")
MAX_BUCKETS = 20_000
MIN_BUCKET_SHIFT = 20  # buckets of 2**20 ns (about 1 ms) at the finest

OPS_SCHEMA = {"start": I64, "end": I64, "device_id": I64, "stream_id": I64,
              "correlation_id": I64, "global_pid": I64}

CallReader = Callable[[Sequence[tuple[int, int]], Sequence[int]],
                      tuple[pl.DataFrame, pl.DataFrame]]
"""``(windows, correlation_ids) -> (cuda_api, osrt)``: a trace's CPU calls overlapping the
windows, plus the CUDA API calls with those correlation ids (``read_cpu_calls``'s
frames)."""


@dataclass
class TraceTables:
    """The rows of one export that the reduction reads in full (all times local ns)."""

    kernels: pl.DataFrame  # start, end, device_id, stream_id, correlation_id, global_pid, name_id
    memcpy: pl.DataFrame  # OPS_SCHEMA + src_kind_name, dst_kind_name
    memset: pl.DataFrame  # OPS_SCHEMA
    nvtx: pl.DataFrame  # start, end, event_type, global_tid, domain_id, name, domain
    mpi: pl.DataFrame  # start, end, global_tid, name
    names: dict[int, str]  # kernel name id -> demangled (or short) name
    session_start_utc_ns: int | None = None
    host: str | None = None
    environment: dict[str, str] = field(default_factory=dict)
    nsys_version: str | None = None
    devices: dict[int, str] = field(default_factory=dict)
    process_names: dict[int, str] = field(default_factory=dict)
    tables: frozenset[str] = frozenset()


def _column(db: ExportDb, table: str, column: str, alias: str) -> str:
    return f'"{column}" AS {alias}' if column in db.columns(table) else f"NULL AS {alias}"


def _select(db: ExportDb, table: str, columns: Sequence[tuple[str, str]]) -> str:
    return f'SELECT {", ".join(_column(db, table, c, a) for c, a in columns)} FROM "{table}"'


_OPS_COLUMNS = (("start", "start"), ("end", "end"), ("deviceId", "device_id"),
                ("streamId", "stream_id"), ("correlationId", "correlation_id"),
                ("globalPid", "global_pid"))


def _tasks(db: ExportDb) -> list[ReadTask]:
    tasks = []
    if db.has(KERNEL_TABLE):
        cols = db.columns(KERNEL_TABLE)
        name = "demangledName" if "demangledName" in cols else "shortName"
        tasks.append(ReadTask("kernels", KERNEL_TABLE,
                              _select(db, KERNEL_TABLE, (*_OPS_COLUMNS, (name, "name_id"))),
                              {**OPS_SCHEMA, "name_id": I64}))
    if db.has(MEMCPY_TABLE):
        tasks.append(ReadTask("memcpy", MEMCPY_TABLE,
                              _select(db, MEMCPY_TABLE, (*_OPS_COLUMNS, ("srcKind", "src_kind"),
                                                         ("dstKind", "dst_kind"),
                                                         ("copyKind", "copy_kind"))),
                              {**OPS_SCHEMA, "src_kind": I64, "dst_kind": I64,
                               "copy_kind": I64}))
    if db.has(MEMSET_TABLE):
        tasks.append(ReadTask("memset", MEMSET_TABLE, _select(db, MEMSET_TABLE, _OPS_COLUMNS),
                              OPS_SCHEMA))
    if db.has(NVTX_TABLE):
        tasks.append(ReadTask(
            "nvtx", NVTX_TABLE,
            _select(db, NVTX_TABLE, (("start", "start"), ("end", "end"),
                                     ("eventType", "event_type"), ("globalTid", "global_tid"),
                                     ("domainId", "domain_id"), ("text", "text"),
                                     ("textId", "text_id"))),
            {"start": I64, "end": I64, "event_type": I64, "global_tid": I64,
             "domain_id": I64, "text": pl.String, "text_id": I64}))
    for table in sorted(t for t in db.tables if MPI_TABLE.match(t)):
        if {"start", "globalTid"} <= db.columns(table):
            name = "textId" if "textId" in db.columns(table) else "nameId"
            tasks.append(ReadTask(
                f"mpi:{table}", table,
                _select(db, table, (("start", "start"), ("end", "end"),
                                    ("globalTid", "global_tid"), (name, "name_id"))),
                {"start": I64, "end": I64, "global_tid": I64, "name_id": I64}))
    return tasks


def _strings(db: ExportDb, ids: Iterable[int]) -> dict[int, str]:
    """``StringIds`` values of ``ids`` (read in batches; a big table is never read whole)."""
    wanted = sorted({int(i) for i in ids if i is not None})
    out: dict[int, str] = {}
    if not wanted or not db.has("StringIds"):
        return out
    for i in range(0, len(wanted), 5000):
        part = ",".join(str(x) for x in wanted[i:i + 5000])
        for sid, value in db.rows(f"SELECT id, value FROM StringIds WHERE id IN ({part})"):
            out[int(sid)] = str(value)  # type: ignore[call-overload]
    return out


def _labels(db: ExportDb, table: str, fallback: dict[int, str]) -> dict[int, str]:
    if db.has(table) and {"id", "label"} <= db.columns(table):
        return {int(i): str(v) for i, v in db.rows(f"SELECT id, label FROM {table}")}  # type: ignore[call-overload]
    return dict(fallback)


def _named_nvtx(df: pl.DataFrame | None, strings: dict[int, str]) -> pl.DataFrame:
    schema = {"start": I64, "end": I64, "event_type": I64, "global_tid": I64,
              "domain_id": I64, "name": pl.String, "domain": pl.String}
    if df is None or not df.height:
        return pl.DataFrame(schema=schema)
    df = df.with_columns(
        pl.coalesce(pl.col("text_id").replace_strict(strings, default=None,
                                                     return_dtype=pl.String),
                    pl.col("text")).alias("name"),
        ((pl.col("global_tid") // (1 << 24)) % (1 << 24)).alias("_pid"),
    )
    domains = (df.filter(pl.col("event_type") == NVTX_DOMAIN_CREATE).sort("start")
               .group_by("domain_id", "_pid").agg(pl.col("name").first().alias("domain")))
    return (df.filter(pl.col("event_type") != NVTX_DOMAIN_CREATE)
            .join(domains, on=["domain_id", "_pid"], how="left", maintain_order="left")
            .select(list(schema)).cast(schema))  # type: ignore[arg-type]


def environment(text: str | None) -> dict[str, str]:
    """``K=V;K=V`` (nsys's ``DeviceEnvironment``) as a dict; the first value of a key wins."""
    out: dict[str, str] = {}
    for key, value in _ENV_PAIR.findall(text or ""):
        out.setdefault(key, value)
    return out


def _system_env(db: ExportDb) -> dict[str, str]:
    table = "TARGET_INFO_SYSTEM_ENV"
    if not (db.has(table) and {"name", "value"} <= db.columns(table)):
        return {}
    # read as bytes: some captures hold values that are not UTF-8 (which sqlite3 cannot
    # return as text), and one such value must not fail the whole trace
    rows = db.rows(f"SELECT CAST(name AS BLOB), CAST(value AS BLOB) FROM {table}")
    return {_text(n): _text(v) for n, v in rows if n is not None and v is not None}


def _text(value: object) -> str:
    return (value.decode("utf-8", "replace") if isinstance(value, bytes | bytearray)
            else str(value))


def _scalar_int(db: ExportDb, table: str, column: str) -> int | None:
    if not (db.has(table) and column in db.columns(table)):
        return None
    value = db.scalar(f'SELECT min("{column}") FROM {table}')
    return int(value) if value is not None else None  # type: ignore[call-overload]


def _version(db: ExportDb) -> str | None:
    for table in ("META_DATA_EXPORT", "EXPORT_META_DATA"):
        if db.has(table) and {"name", "value"} <= db.columns(table):
            row = db.rows(f"SELECT value FROM {table} WHERE name = 'EXPORT_PRODUCT_VERSION'")
            if row:
                return str(row[0][0])
    return None


def _devices(db: ExportDb) -> dict[int, str]:
    for table in ("TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU"):
        cols = db.columns(table)
        if {"id", "name"} <= cols:
            return {int(i): str(n) for i, n in db.rows(f"SELECT id, name FROM {table}")  # type: ignore[call-overload]
                    if i is not None}
    return {}


def _processes(db: ExportDb) -> dict[int, str]:
    if not (db.has("PROCESSES") and {"pid", "name"} <= db.columns("PROCESSES")):
        return {}
    return {int(p): str(n or "") for p, n in db.rows("SELECT pid, name FROM PROCESSES")  # type: ignore[call-overload]
            if p is not None}


def read_tables(db: ExportDb) -> TraceTables:
    """Everything the reduction reads in full from an open export."""
    raw = db.read_many(_tasks(db), workers=1)
    kernels = raw.get("kernels", pl.DataFrame(schema={**OPS_SCHEMA, "name_id": I64}))
    mpi_parts = [df for key, df in raw.items() if key.startswith("mpi:")]
    mpi_raw = (pl.concat(mpi_parts) if mpi_parts else
               pl.DataFrame(schema={"start": I64, "end": I64, "global_tid": I64,
                                    "name_id": I64}))
    nvtx_raw = raw.get("nvtx")
    ids: list[int] = kernels["name_id"].unique().drop_nulls().to_list()
    ids += mpi_raw["name_id"].unique().drop_nulls().to_list()
    if nvtx_raw is not None:
        ids += nvtx_raw["text_id"].unique().drop_nulls().to_list()
    strings = _strings(db, ids)
    kinds = _labels(db, "ENUM_CUDA_MEM_KIND", MEM_KIND_LABELS)
    copy_kinds = _labels(db, "ENUM_CUDA_MEMCPY_OPER", MEMCPY_LABELS)
    memcpy = raw.get("memcpy", pl.DataFrame(schema={**OPS_SCHEMA, "src_kind": I64,
                                                     "dst_kind": I64, "copy_kind": I64}))
    memcpy = memcpy.with_columns(
        pl.col("src_kind").replace_strict(kinds, default=None, return_dtype=pl.String)
        .alias("src_kind_name"),
        pl.col("dst_kind").replace_strict(kinds, default=None, return_dtype=pl.String)
        .alias("dst_kind_name"),
        ("[CUDA memcpy " + pl.col("copy_kind").replace_strict(
            copy_kinds, default="Unknown", return_dtype=pl.String) + "]").alias("operation"),
    )
    mpi = mpi_raw.select(
        "start", "end", "global_tid",
        pl.col("name_id").replace_strict(strings, default=None, return_dtype=pl.String)
        .alias("name"),
    ).filter(pl.col("end").is_not_null() & pl.col("name").is_not_null()).sort("start")
    system = _system_env(db)
    env = environment(system.get("DeviceEnvironment"))
    host = system.get("Hostname") or next((env[k] for k in HOST_VARIABLES if env.get(k)), None)
    names = {i: strings[i] for i in kernels["name_id"].unique().drop_nulls().to_list()
             if i in strings}
    return TraceTables(
        kernels=kernels, memcpy=memcpy,
        memset=raw.get("memset", pl.DataFrame(schema=OPS_SCHEMA)),
        nvtx=_named_nvtx(nvtx_raw, strings), mpi=mpi, names=names,
        session_start_utc_ns=_scalar_int(db, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs"),
        host=host, environment=env, nsys_version=_version(db), devices=_devices(db),
        process_names=_processes(db), tables=db.tables,
    )


# -- windowed reads ---------------------------------------------------------------------------
def bucket_shift(windows: Sequence[tuple[int, int]]) -> int:
    """The smallest bucket size (a power of two ns, >= ~1 ms) that keeps the buckets of all
    ``windows`` under :data:`MAX_BUCKETS`."""
    shift = MIN_BUCKET_SHIFT
    while sum((b >> shift) - (a >> shift) + 1 for a, b in windows) > MAX_BUCKETS and shift < 62:
        shift += 1
    return shift


def window_condition(windows: Sequence[tuple[int, int]], *, extra: str = "") -> str | None:
    """An SQL condition true for every row overlapping one of ``windows`` (and some others)."""
    windows = [(int(a), int(b)) for a, b in windows if b > a]
    if not windows:
        return f"({extra})" if extra else None
    shift = bucket_shift(windows)
    buckets: set[int] = set()
    for a, b in windows:
        buckets.update(range(a >> shift, (b >> shift) + 1))
    values = ",".join(str(x) for x in sorted(buckets))
    shortest = min(b - a for a, b in windows)
    cond = (f'((start >> {shift}) IN ({values}) OR ("end" >> {shift}) IN ({values}) '
            f'OR ("end" - start) >= {shortest})')
    return f"({cond} OR {extra})" if extra else cond


def overlapping(df: pl.DataFrame, windows: Sequence[tuple[int, int]]) -> pl.DataFrame:
    """Rows of ``df`` that overlap at least one window (exact test)."""
    if not df.height or not windows:
        return df.clear()
    w = pl.DataFrame({"w0": [a for a, _ in windows], "w1": [b for _, b in windows]},
                     schema={"w0": I64, "w1": I64}).sort("w0")
    # A row overlaps some window iff the window starting last before its end ends after its
    # start, or a longer earlier window does: compare with the running max of window ends.
    w = w.with_columns(pl.col("w1").cum_max().alias("reach"))
    idx = w["w0"].search_sorted(df["end"], side="left").cast(I64) - 1
    reach = w["reach"].gather(idx.clip(lower_bound=0))
    keep = (idx >= 0) & (reach > df["start"])
    return df.filter(keep)


def read_cpu_calls(
    db: ExportDb,
    windows: Sequence[tuple[int, int]],
    *,
    correlation_ids: Sequence[int] = (),
    threads: Sequence[int] | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """CUDA API and OS runtime calls overlapping ``windows`` (plus the API calls with the given
    correlation ids), optionally of ``threads`` (global tids) only.

    Returns ``(cuda_api, osrt)`` with the model's columns: cuda_api start, end, global_tid,
    correlation_id, name, api; osrt start, end, global_tid, event_class, name.
    """
    api_schema = {"start": I64, "end": I64, "global_tid": I64, "correlation_id": I64,
                  "name_id": I64}
    osrt_schema = {"start": I64, "end": I64, "global_tid": I64, "event_class": I64,
                   "name_id": I64}
    corr = ",".join(str(int(c)) for c in sorted(set(correlation_ids)) if c is not None)
    by_thread = ("" if threads is None else
                 f" AND globalTid IN ({','.join(str(int(t)) for t in threads) or 'NULL'})")
    api = pl.DataFrame(schema=api_schema)
    osrt = pl.DataFrame(schema=osrt_schema)
    cond = window_condition(windows, extra=f"correlationId IN ({corr})" if corr else "")
    if cond is not None and db.has(RUNTIME_TABLE):
        sql = _select(db, RUNTIME_TABLE, (("start", "start"), ("end", "end"),
                                          ("globalTid", "global_tid"),
                                          ("correlationId", "correlation_id"),
                                          ("nameId", "name_id")))
        api = db.frame(f"{sql} WHERE {cond}{by_thread}", api_schema)
        hits = overlapping(api, windows)
        if corr:
            hits = pl.concat([hits, api.filter(pl.col("correlation_id").is_in(
                [int(c) for c in correlation_ids]))]).unique(maintain_order=True)
        api = hits
    cond = window_condition(windows)
    if cond is not None and db.has(OSRT_TABLE):
        sql = _select(db, OSRT_TABLE, (("start", "start"), ("end", "end"),
                                       ("globalTid", "global_tid"),
                                       ("eventClass", "event_class"), ("nameId", "name_id")))
        osrt = overlapping(db.frame(f"{sql} WHERE {cond}{by_thread}", osrt_schema), windows)
    strings = _strings(db, [*api["name_id"].to_list(), *osrt["name_id"].to_list()])

    def named(df: pl.DataFrame) -> pl.DataFrame:
        return df.with_columns(
            pl.col("name_id").replace_strict(strings, default=None, return_dtype=pl.String)
            .alias("name")).drop("name_id")

    api = named(api)
    return api.with_columns(strip_api_version(pl.col("name")).alias("api")), named(osrt)
