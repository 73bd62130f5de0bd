"""Open an Nsight Compute report (plain, ``.ncu-repz``/zstd, xz or gzip) through ncu_report,
with one-sentence errors.

Before ncu_report sees a file its block structure is walked (``container``): ncu_report never
reports damage, so a truncated report, one followed by other data, or a decompression bomb is
refused here. ncu_report opens zstd-compressed reports itself, but only under a ``.ncu-repz``
name, so other zstd files are handed over through a link of that name in a private temporary
directory; xz and gzip are decompressed into one (bounded by ``compressed.unpack_limit``).
ncu_report's own log lines (written by native code to file descriptor 2) are kept off the
terminal while it reads.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kernelscope.parsers.compressed import (
    copy_capped,
    decompress_errors,
    decompress_failure,
    file_compression,
    open_stream,
    unpack_limit,
)
from kernelscope.parsers.detect import ReportKind, check_readable, detect_kind
from kernelscope.parsers.errors import ReportError, safe_text
from kernelscope.parsers.ncu.container import Layout, read_layout

ZSTD_SUFFIX = ".ncu-repz"

_quiet_lock = threading.RLock()
_quiet_depth = 0
_saved_fd: int | None = None


@contextlib.contextmanager
def native_stderr_quiet() -> Iterator[None]:
    """Send what native code writes to file descriptor 2 to /dev/null while the block runs
    (ncu_report logs parse errors of damaged reports there). Re-entrant and thread-safe;
    Python's ``sys.stderr`` object is not touched."""
    global _quiet_depth, _saved_fd
    with _quiet_lock:
        if _quiet_depth == 0:
            try:
                saved = os.dup(2)
                devnull = os.open(os.devnull, os.O_WRONLY)
            except OSError:
                saved = -1
            else:
                os.dup2(devnull, 2)
                os.close(devnull)
            _saved_fd = saved
        _quiet_depth += 1
        try:
            yield
        finally:
            _quiet_depth -= 1
            if _quiet_depth == 0 and _saved_fd is not None:
                if _saved_fd >= 0:
                    os.dup2(_saved_fd, 2)
                    os.close(_saved_fd)
                _saved_fd = None


def remove_temp(temp: Path | None) -> None:
    """Remove a temporary copy or link made by :func:`load_ncu_context` and its directory."""
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


def _zstd_link(path: Path) -> Path | None:
    """A ``.ncu-repz`` name for a zstd report, or None when it has one already."""
    if path.name.endswith(ZSTD_SUFFIX):
        return None
    link = _private_dir() / f"report{ZSTD_SUFFIX}"
    try:
        link.symlink_to(path.resolve())
    except OSError:
        remove_temp(link)
        link = _private_dir() / f"report{ZSTD_SUFFIX}"
        shutil.copyfile(path, link)
    return link


def _layout(path: Path, kind: str | None) -> Layout:
    try:
        with open(path, "rb") as raw:
            if kind is None:
                return read_layout(raw, str(path))
            with open_stream(raw, kind) as stream:
                return read_layout(stream, str(path), limit=unpack_limit(path))
    except ReportError:
        raise
    except decompress_errors() as exc:
        raise ReportError(
            f"{safe_text(path)} is compressed but could not be decompressed ({exc})."
        ) from exc


def _no_kernels(ctx: Any) -> bool:
    if ctx is None or ctx.num_ranges() == 0:
        return True
    for i in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(i)
        if rng is not None and rng.num_actions() > 0:
            return False
    return True


def load_ncu_context(path: str | os.PathLike[str]) -> tuple[Any, Path | None, Layout]:
    """Load ``path`` with ncu_report. Returns (context, temporary file or link to remove with
    :func:`remove_temp`, or None; the report's layout)."""
    p = check_readable(path)
    kind = detect_kind(p)
    name = safe_text(p)
    if kind is not ReportKind.NCU:
        what = "an Nsight Systems report" if kind is ReportKind.NSYS else "an SQLite export"
        raise ReportError(f"{name} is {what}, not an Nsight Compute kernel report (.ncu-rep).")
    try:
        import ncu_report
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise ReportError("The ncu-report package is missing: pip install ncu-report.") from exc
    compression = file_compression(p)
    temp: Path | None = None
    if compression in ("xz", "gz"):
        temp = decompress_to_temp(p, ".ncu-rep")
        layout = _layout(temp, None)
    else:
        layout = _layout(p, compression)
        if compression == "zst":
            temp = _zstd_link(p)
    if not layout.results:
        remove_temp(temp)
        raise ReportError(f"{name} holds no profiled kernels; it may be truncated or damaged.")
    try:
        with native_stderr_quiet():
            ctx = ncu_report.load_report(str(temp or p))
            empty = _no_kernels(ctx)
    except Exception as exc:  # ncu_report raises its own error types
        remove_temp(temp)
        raise ReportError(f"{name} could not be read by ncu_report ({exc}).") from exc
    if empty:
        remove_temp(temp)
        raise ReportError(f"{name} holds no profiled kernels; it may be truncated or damaged.")
    return ctx, temp, layout
