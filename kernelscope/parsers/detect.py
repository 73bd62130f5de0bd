"""Tell a report's kind from its first bytes, never from its extension."""

from __future__ import annotations

import enum
import gzip
import lzma
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, cast

from kernelscope.parsers.errors import ReportError

NCU_MAGIC = b"NVR\x00"
NSYS_MAGIC = b"NVIDIA Tegra Profiler Report"
SQLITE_MAGIC = b"SQLite format 3\x00"
XZ_MAGIC = b"\xfd7zXZ\x00"
GZ_MAGIC = b"\x1f\x8b"


class ReportKind(enum.Enum):
    NCU = "ncu"
    NSYS = "nsys"
    SQLITE = "sqlite"


def _kind_of_head(head: bytes) -> ReportKind | None:
    if head.startswith(NCU_MAGIC):
        return ReportKind.NCU
    if head.startswith(NSYS_MAGIC):
        return ReportKind.NSYS
    if head.startswith(SQLITE_MAGIC):
        return ReportKind.SQLITE
    return None


def check_readable(path: str | os.PathLike[str]) -> Path:
    """Return ``path`` as a Path if it is a readable, non-empty file, else raise ReportError."""
    p = Path(path)
    if not p.exists():
        raise ReportError(f"{p}: no such file.")
    if p.is_dir():
        raise ReportError(f"{p} is a directory, not a report file.")
    if not os.access(p, os.R_OK):
        raise ReportError(f"{p} cannot be read (permission denied).")
    if p.stat().st_size == 0:
        raise ReportError(f"{p} is empty, so it holds no report.")
    return p


def is_compressed(path: str | os.PathLike[str]) -> bool:
    """True when the file is xz- or gzip-compressed (judged by its magic bytes)."""
    with open(path, "rb") as fh:
        head = fh.read(6)
    return head.startswith(XZ_MAGIC) or head.startswith(GZ_MAGIC)


_Opener = Callable[[Path, str], IO[bytes]]


def _head(path: Path, size: int = 64) -> bytes:
    with open(path, "rb") as fh:
        head = fh.read(6)
        fh.seek(0)
        if head.startswith(XZ_MAGIC):
            opener = cast(_Opener, lzma.open)
        elif head.startswith(GZ_MAGIC):
            opener = cast(_Opener, gzip.open)
        else:
            return fh.read(size)
    try:
        with opener(path, "rb") as zfh:
            return zfh.read(size)
    except (lzma.LZMAError, OSError, EOFError) as exc:
        raise ReportError(f"{path} is compressed but could not be decompressed ({exc}).") from exc


def detect_kind(path: str | os.PathLike[str]) -> ReportKind:
    """Return the kind of report in ``path`` (looking through xz/gzip) or raise ReportError."""
    p = check_readable(path)
    try:
        head = _head(p)
    except OSError as exc:
        raise ReportError(f"{p} cannot be read ({exc.strerror or exc}).") from exc
    kind = _kind_of_head(head)
    if kind is None:
        raise ReportError(
            f"{p} is not an Nsight Compute (.ncu-rep), Nsight Systems (.nsys-rep) "
            "or SQLite export report."
        )
    return kind
