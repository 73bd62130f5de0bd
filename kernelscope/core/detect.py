"""Tell a report's kind from its first bytes, never from its extension."""

from __future__ import annotations

import enum
import os
import stat
from pathlib import Path

from kernelscope.core.compressed import (
    GZ_MAGIC,
    XZ_MAGIC,
    ZSTD_MAGIC,
    compression_of,
    head_of,
)
from kernelscope.core.errors import ReportError, safe_text

__all__ = [
    "GZ_MAGIC",
    "NCU_MAGIC",
    "NSYS_MAGIC",
    "SQLITE_MAGIC",
    "XZ_MAGIC",
    "ZSTD_MAGIC",
    "ReportKind",
    "check_readable",
    "detect_kind",
    "is_compressed",
]

NCU_MAGIC = b"NVR\x00"
NSYS_MAGIC = b"NVIDIA Tegra Profiler Report"
SQLITE_MAGIC = b"SQLite format 3\x00"


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
    name = safe_text(p)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise ReportError(f"{name}: no such file.") from None
    except OSError as exc:  # a name too long, a loop of links, a component not a directory
        raise ReportError(f"{name} cannot be opened ({exc.strerror or exc}).") from None
    if stat.S_ISDIR(st.st_mode):
        raise ReportError(f"{name} is a directory, not a report file.")
    if not stat.S_ISREG(st.st_mode):
        raise ReportError(f"{name} is not a regular file, so it holds no report.")
    if not os.access(p, os.R_OK):
        raise ReportError(f"{name} cannot be read (permission denied).")
    if st.st_size == 0:
        raise ReportError(f"{name} is empty, so it holds no report.")
    return p


def is_compressed(path: str | os.PathLike[str]) -> bool:
    """True when the file is xz-, gzip- or zstd-compressed (judged by its magic bytes)."""
    with open(path, "rb") as fh:
        return compression_of(fh.read(6)) is not None


def detect_kind(path: str | os.PathLike[str]) -> ReportKind:
    """Return the kind of report in ``path`` (looking through xz/gzip/zstd) or raise
    ReportError."""
    p = check_readable(path)
    try:
        head = head_of(p)
    except OSError as exc:
        raise ReportError(f"{safe_text(p)} cannot be read ({exc.strerror or exc}).") from exc
    kind = _kind_of_head(head)
    if kind is None:
        raise ReportError(
            f"{safe_text(p)} is not an Nsight Compute (.ncu-rep), Nsight Systems (.nsys-rep) "
            "or SQLite export report, nor a PyTorch profiler (Kineto) trace."
        )
    return kind
