"""What an nsys SQLite export says about its capture besides the events: the window it
covers (the analysis window, the session clock, the events' bounds), events with damaged
timestamps dropped, the devices, processes and threads, the nsys version."""

from __future__ import annotations

import polars as pl

from kernelscope.kinds.nsys.model.db import ExportDb
from kernelscope.timeline.model.model import DeviceInfo, ProcessInfo, pid_of

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


def nvtx_last_ts(df: pl.DataFrame | None) -> int | None:
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


def analysis_window(db: ExportDb) -> tuple[int, int, int] | None:
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


def session_clock(db: ExportDb) -> int | None:
    """The session's start on the clock ANALYSIS_DETAILS uses (nsys 2026 and later)."""
    table = "TARGET_INFO_SESSION_START_TIME"
    if not (db.has(table) and "systemClockNs" in db.columns(table)):
        return None
    return _int(db.scalar(f'SELECT min(systemClockNs) FROM "{db.table_name(table)}"'))


def event_bounds(frames: list[pl.DataFrame]) -> tuple[int, int] | None:
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


def read_devices(db: ExportDb, ops: list[pl.DataFrame]) -> list[DeviceInfo]:
    names = _gpu_rows(db)
    used: set[int] = set()
    for f in ops:
        used.update(int(d) for d in f["device_id"].drop_nulls().unique())
    out = [names.get(d, DeviceInfo(d, f"GPU {d}")) for d in sorted(used)]
    return out or sorted(names.values(), key=lambda d: d.id)


def read_processes(db: ExportDb, frames: list[tuple[pl.DataFrame, str]]) -> list[ProcessInfo]:
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


def read_threads(db: ExportDb) -> dict[int, str]:
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


def read_nsys_version(db: ExportDb) -> str | None:
    """The nsys version that wrote the export (META_DATA_EXPORT; EXPORT_META_DATA in nsys
    2022.2 to 2023.2; none before)."""
    for table in ("META_DATA_EXPORT", "EXPORT_META_DATA"):
        if db.has(table) and {"name", "value"} <= db.columns(table):
            name = db.table_name(table)
            row = db.rows(f"SELECT value FROM \"{name}\" WHERE name = 'EXPORT_PRODUCT_VERSION'")
            if row and row[0][0] is not None:
                return str(row[0][0])
    return None
