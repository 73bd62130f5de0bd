"""Decompress ``.xz``/``.gz``/``.zst`` reports into a scratch file, with progress and cancel.

Never more than ``compressed.unpack_limit`` bytes, and for an SQLite export never more than
the database its header describes: a compressed export followed by a gigabyte of zeros (or
a decompression bomb) is refused after reading just past the database's end.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from kernelscope.core.compressed import (
    CHUNK,
    decompress_errors,
    decompress_failure,
    file_compression,
    open_stream,
    too_large,
    unpack_limit,
)
from kernelscope.core.errors import ReportError, safe_text
from kernelscope.core.hooks import (
    CancelHook,
    OpenCancelled,
    ProgressHook,
    is_cancelled,
    report_progress,
)

SQLITE_MAGIC = b"SQLite format 3\x00"


def sqlite_size(header: bytes) -> int | None:
    """The database size in bytes that an SQLite file header states (page size x page
    count), or None when the header does not say (an old writer, a stale count)."""
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        return None
    page = int.from_bytes(header[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(header[28:32], "big")
    valid_for = int.from_bytes(header[92:96], "big")
    change = int.from_bytes(header[24:28], "big")
    if pages == 0 or valid_for != change or page < 512 or page & (page - 1):
        return None
    return page * pages


def decompress_to(
    source: Path,
    target: Path,
    *,
    progress: ProgressHook | None = None,
    cancel: CancelHook | None = None,
) -> Path:
    """Write the decompressed content of ``source`` to ``target``; remove it on any failure."""
    kind = file_compression(source)
    if kind is None:
        raise ReportError(f"{safe_text(source)} is not xz-, gzip- or zstd-compressed.")
    total = max(source.stat().st_size, 1)
    limit = unpack_limit(source)
    try:
        with open(source, "rb") as raw, open_stream(raw, kind) as zin, open(target, "wb") as out:
            written = 0
            database: int | None = None
            while True:
                if is_cancelled(cancel):
                    raise OpenCancelled(f"Decompressing {safe_text(source.name)} was cancelled.")
                chunk = zin.read(CHUNK)
                if not chunk:
                    break
                if written == 0:
                    database = sqlite_size(chunk[:100])
                written += len(chunk)
                if database is not None and written > database:
                    raise ReportError(
                        f"{safe_text(source.name)} holds more data than its SQLite database "
                        f"({database:,} bytes); it is damaged."
                    )
                if written > limit:
                    raise too_large(source.name, limit)
                out.write(chunk)
                report_progress(
                    progress,
                    f"Decompressing {safe_text(source.name)}",
                    min(raw.tell() / total, 1.0),
                )
    except ReportError:
        target.unlink(missing_ok=True)
        raise
    except decompress_errors() as exc:
        target.unlink(missing_ok=True)
        raise decompress_failure(source, exc, target, target.parent) from exc
    return target


def uncompressed_name(path: Path) -> str:
    """``zoo.sqlite.xz`` -> ``zoo.sqlite``; other names are kept."""
    name = path.name
    for ext in (".xz", ".gz", ".zst"):
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def scratch_name(path: Path) -> str:
    """A unique scratch file name for decompressing ``path`` that keeps its inner name (made
    safe: at most 64 characters of letters, digits, ``.``, ``_`` and ``-``, so that a long
    or odd report name cannot make it invalid)."""
    inner = re.sub(r"[^A-Za-z0-9._-]", "_", uncompressed_name(path))
    if len(inner) > 64:
        known = (".sqlite", ".nsys-rep", ".qdrep", ".qdstrm")
        ext = next((e for e in known if inner.endswith(e)), "")
        inner = inner[: 64 - len(ext)] + ext
    return f".tmp-{os.getpid()}-{os.urandom(4).hex()}-{inner}"
