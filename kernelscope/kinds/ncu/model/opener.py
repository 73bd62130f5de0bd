"""Open an Nsight Compute report (plain, ``.ncu-repz``/zstd, xz or gzip) for kernelscope's
reader, with one-sentence errors.

A compressed report is decompressed into a private temporary directory (bounded by
``compressed.unpack_limit``) so that its results can be read in any order; its block
structure is walked (``container``), which refuses a truncated report, one followed by other
data, or a decompression bomb, naming the user's file and leaving no temporary file behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import BinaryIO

from kernelscope.core.compressed import (
    copy_capped,
    decompress_errors,
    decompress_failure,
    file_compression,
    open_stream,
    unpack_limit,
)
from kernelscope.core.detect import ReportKind, check_readable, detect_kind
from kernelscope.core.errors import ReportError, safe_text
from kernelscope.kinds.ncu.model.container import Layout, read_layout


def remove_temp(temp: Path | None) -> None:
    """Remove a temporary copy made by :func:`open_report_file` and its directory."""
    if temp is None:
        return
    with contextlib.suppress(OSError):
        temp.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        temp.parent.rmdir()


def _private_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="kernelscope-"))


def decompress_to_temp(path: Path, suffix: str) -> Path:
    """Decompress an xz/gzip/zstd file into a new private temporary directory (at most
    ``unpack_limit`` bytes) and return the file's path."""
    kind = file_compression(path)
    if kind is None:
        raise ReportError(f"{safe_text(path)} is not compressed.")
    directory = _private_dir()
    target = directory / f"report{suffix}"
    try:
        with open(path, "rb") as raw, open_stream(raw, kind) as src, open(target, "wb") as out:
            copy_capped(src, out, unpack_limit(path), path)
    except ReportError:
        remove_temp(target)
        raise
    except decompress_errors() as exc:
        remove_temp(target)
        raise decompress_failure(path, exc, target, directory.parent) from exc
    return target


def open_report_file(path: str | os.PathLike[str]) -> tuple[BinaryIO, Path | None, Layout]:
    """Open the kernel report at ``path`` for reading: (the open plain file, a temporary
    decompressed copy to remove with :func:`remove_temp` or None, the report's layout).
    A compressed report (xz, gzip, zstd, ``.ncu-repz``) is decompressed into a private
    temporary directory, which is removed again when the report cannot be read; every error
    is one sentence naming the user's file."""
    p = check_readable(path)
    kind = detect_kind(p)
    name = safe_text(p)
    if kind is not ReportKind.NCU:
        what = "an Nsight Systems report" if kind is ReportKind.NSYS else "an SQLite export"
        raise ReportError(f"{name} is {what}, not an Nsight Compute kernel report (.ncu-rep).")
    temp = decompress_to_temp(p, ".ncu-rep") if file_compression(p) is not None else None
    handle: BinaryIO | None = None
    try:
        handle = open(temp or p, "rb")  # noqa: SIM115 - the report keeps it open
        layout = read_layout(handle, str(p))
        if not layout.results:
            raise ReportError(
                f"{name} holds no profiled kernels; it may be truncated or damaged."
            )
        handle.seek(0)
    except BaseException:
        if handle is not None:
            handle.close()
        remove_temp(temp)
        raise
    return handle, temp, layout
