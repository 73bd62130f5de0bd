"""Build schema variants of a real nsys SQLite export (for tests), in a temp directory.

Each builder takes a writable copy of ``zoo.sqlite`` and changes it the way another nsys
version, another trace configuration or another program would.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

ZOO_PID = 13006
ZOO_GLOBAL_TID = 281693181194958  # pid 13006, tid 13006
ZOO_GLOBAL_PID = 281693181181952

NVTX_DDL = """
CREATE TABLE NVTX_EVENTS (
    start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
    category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,
    textId INTEGER, domainId INTEGER, uint64Value INTEGER, int64Value INTEGER,
    doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, floatValue REAL,
    jsonTextId INTEGER, jsonText TEXT, binaryData TEXT
)
"""

# (start, end, eventType, text, domainId): ranges over the zoo's GPU work.
NVTX_ROWS = [
    (693_000_000, 793_000_000, 59, "copy inputs", 0),  # the five cudaMemcpy calls
    (793_700_000, 817_000_000, 59, "kernels", 0),  # every kernel
    (816_800_000, 816_900_000, 60, "tiny launches", 0),  # the 50 scale_small kernels
    (800_000_000, 801_000_000, 59, "kernels", 0),  # a second instance, nested
    (600_000_000, 650_000_000, 59, "idle", 0),  # no GPU work at all
    (794_000_000, 795_000_000, 59, "step", 7),  # in domain "mydomain"
    (810_000_000, None, 60, "never closed", 0),  # NULL end
    (805_000_000, None, 34, "a mark", 0),  # NvtxMark: not a range
]
DOMAIN_ROW = (1_000, None, 75, "mydomain", 7)


def copy_db(source: Path, target: Path) -> Path:
    shutil.copyfile(source, target)
    target.chmod(0o644)
    return target


def _exec(path: Path, *statements: str) -> None:
    with sqlite3.connect(path) as conn:
        for sql in statements:
            conn.execute(sql)
        conn.commit()


def add_nvtx(path: Path, *, via_string_ids: bool = False) -> Path:
    """Add an NVTX_EVENTS table; its messages inline in ``text`` or through ``textId``."""
    with sqlite3.connect(path) as conn:
        conn.execute(NVTX_DDL)
        next_id = conn.execute("SELECT max(id) + 1 FROM StringIds").fetchone()[0]
        for start, end, etype, text, domain in [DOMAIN_ROW, *NVTX_ROWS]:
            text_id = None
            if via_string_ids and etype != 75:
                row = conn.execute("SELECT id FROM StringIds WHERE value = ?", (text,)).fetchone()
                if row is None:
                    conn.execute("INSERT INTO StringIds (id, value) VALUES (?, ?)", (next_id, text))
                    row = (next_id,)
                    next_id += 1
                text_id, text = row[0], None
            conn.execute(
                "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, "
                "domainId) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (start, end, etype, text, ZOO_GLOBAL_TID, text_id, domain),
            )
        conn.commit()
    return path


def drop_tables(*tables: str) -> Callable[[Path], Path]:
    def build(path: Path) -> Path:
        _exec(path, *(f"DROP TABLE IF EXISTS {t}" for t in tables))
        return path

    return build


def short_names_only(path: Path) -> Path:
    _exec(path, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN demangledName")
    return path


SECOND_DEVICE_SHIFT = 50_000_000


def second_device(path: Path) -> Path:
    """Run every kernel a second time on device 1, 50 ms later."""
    _exec(
        path,
        "INSERT INTO TARGET_INFO_GPU (vmId, id, name, smCount) "
        "SELECT vmId, 1, 'NVIDIA H200', smCount FROM TARGET_INFO_GPU WHERE id = 0",
        "CREATE TEMP TABLE k AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL",
        f"UPDATE k SET deviceId = 1, start = start + {SECOND_DEVICE_SHIFT}, "
        f"end = end + {SECOND_DEVICE_SHIFT}, correlationId = NULL",
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM k",
    )
    return path


OTHER_PID = 4242
OTHER_GLOBAL_PID = (ZOO_GLOBAL_PID >> 48 << 48) | (OTHER_PID << 24)
OTHER_GLOBAL_TID = OTHER_GLOBAL_PID | OTHER_PID


def second_process(path: Path) -> Path:
    """A second process replays the zoo's copies and kernels (same correlation ids) on the
    same device, 2 s later."""
    shift = 2_000_000_000
    stmts = ["INSERT INTO PROCESSES (globalPid, pid, name) VALUES "
             f"({OTHER_GLOBAL_PID}, {OTHER_PID}, './other')"]
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                  "CUPTI_ACTIVITY_KIND_MEMSET"):
        stmts += [
            f"CREATE TEMP TABLE t_{table} AS SELECT * FROM {table}",
            f"UPDATE t_{table} SET globalPid = {OTHER_GLOBAL_PID}, start = start + {shift}, "
            f"end = end + {shift}",
            f"INSERT INTO {table} SELECT * FROM t_{table}",
        ]
    stmts += [
        "CREATE TEMP TABLE r AS SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME",
        f"UPDATE r SET globalTid = {OTHER_GLOBAL_TID}, start = start + {shift}, "
        f"end = end + {shift}",
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT * FROM r",
    ]
    _exec(path, *stmts)
    return path


def not_nsys(path: Path) -> Path:
    path.unlink(missing_ok=True)
    _exec(path, "CREATE TABLE people (name TEXT)", "INSERT INTO people VALUES ('x')")
    return path
