"""Open any Nsight Systems input: ``.sqlite``, ``.nsys-rep``, or either compressed.

Nothing is ever written next to the report: exports go to the cache directory and
decompressed scratch files to a temporary directory inside it (removed before returning).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

from kernelscope.core.detect import ReportKind, check_readable, detect_kind, is_compressed
from kernelscope.core.errors import ReportError, safe_text
from kernelscope.core.hooks import CancelHook, ProgressHook
from kernelscope.kinds.nsys.model import locate
from kernelscope.kinds.nsys.model.cache import cache_name, default_cache_dir, ensure_cache_dir
from kernelscope.kinds.nsys.model.convert import manual_export_hint, run_export
from kernelscope.kinds.nsys.model.decompress import decompress_to, scratch_name, sqlite_size
from kernelscope.kinds.nsys.model.load import load_report
from kernelscope.timeline.model.model import TimelineReport


def _scratch_dir(cache_dir: Path | None) -> tempfile.TemporaryDirectory[str]:
    """A private temporary directory in the cache (or the system temp dir as a fallback)."""
    base = cache_dir if cache_dir is not None else default_cache_dir()
    try:
        ensure_cache_dir(base)
        return tempfile.TemporaryDirectory(prefix=".scratch-", dir=base)
    except (ReportError, OSError):
        if cache_dir is not None:
            raise
        return tempfile.TemporaryDirectory(prefix="kernelscope-")


def _check_sqlite_size(report: Path) -> None:
    """Refuse an export followed by other data (a copy gone wrong, a gigabyte of zeros): its
    SQLite header states the database's size, and a real export is exactly that long."""
    with open(report, "rb") as fh:
        stated = sqlite_size(fh.read(100))
    actual = report.stat().st_size
    if stated is not None and actual > stated:
        raise ReportError(
            f"{safe_text(report.name)} is damaged: its last {actual - stated:,} bytes, from "
            f"byte {stated:,} on, are not part of its SQLite database."
        )


def _non_empty(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size > 0
    except OSError:
        return False


def _load_with_wal(
    report: Path,
    wal: Path,
    cache_dir: str | os.PathLike[str] | None,
    progress: ProgressHook | None,
    cancel: CancelHook | None,
    kernel_details: bool,
    graph_only: bool = False,
) -> TimelineReport:
    """Read an export whose writer left a write-ahead log beside it (``X.sqlite-wal``: the
    newest data lives there). The export is opened read-only and never written, so the two
    files are copied into a scratch directory where SQLite folds the log into the copy."""
    with _scratch_dir(Path(cache_dir) if cache_dir is not None else None) as scratch:
        copy = Path(scratch) / "export.sqlite"
        try:
            shutil.copyfile(report, copy)
            shutil.copyfile(wal, Path(scratch) / "export.sqlite-wal")
            with contextlib.closing(sqlite3.connect(copy)) as conn:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                conn.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.Error as exc:
            raise ReportError(
                f"{safe_text(report.name)} and its write-ahead log {safe_text(wal.name)} "
                f"could not be read together ({exc})."
            ) from exc
        except OSError as exc:
            raise ReportError(
                f"{safe_text(report.name)} could not be copied to read its write-ahead log "
                f"({exc.strerror or exc})."
            ) from exc
        return load_report(copy, source=report, progress=progress, cancel=cancel,
                           keep_sqlite_path=False, kernel_details=kernel_details,
                           graph_only=graph_only)


def exported_sqlite_path(
    path: str | os.PathLike[str],
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    nsys: str | os.PathLike[str] | None = None,
    progress: ProgressHook | None = None,
    cancel: CancelHook | None = None,
) -> Path:
    """Return the cached SQLite export of an ``.nsys-rep`` (``.xz``/``.gz`` too), making it
    with ``nsys export`` if there is no fresh one."""
    report = check_readable(path)
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    target = cache / cache_name(report)
    if target.is_file() and target.stat().st_size > 0:
        return target
    exe = Path(nsys) if nsys is not None else locate.find_nsys()
    if exe is None:
        raise ReportError(
            f"Nsight Systems (nsys) was not found to convert {safe_text(report.name)}; export "
            "it by hand "
            f"with {manual_export_hint(report, compressed=is_compressed(report))} and open "
            "out.sqlite instead."
        )
    ensure_cache_dir(cache)
    if not is_compressed(report):
        return run_export(exe, report, target, progress=progress, cancel=cancel)
    with tempfile.TemporaryDirectory(prefix=".scratch-", dir=cache) as scratch:
        plain = decompress_to(report, Path(scratch) / scratch_name(report),
                              progress=progress, cancel=cancel)
        return run_export(exe, plain, target, display_name=report.name,
                          progress=progress, cancel=cancel)


def open_report(
    path: str | os.PathLike[str],
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    nsys: str | os.PathLike[str] | None = None,
    progress: ProgressHook | None = None,
    cancel: CancelHook | None = None,
    kernel_details: bool = True,
    graph_only: bool = False,
) -> TimelineReport:
    """Open an Nsight Systems report and read it into memory.

    ``path`` may be an nsys SQLite export or an ``.nsys-rep`` report, either of them xz- or
    gzip-compressed. ``.nsys-rep`` files are exported once with ``nsys`` (found with
    :func:`locate.find_nsys` unless ``nsys`` is given) into ``cache_dir`` (default
    ``$XDG_CACHE_HOME/kernelscope``). ``progress(message, fraction)`` is called from this
    thread during slow steps; ``cancel`` (an Event or a callable) stops them;
    ``kernel_details=False`` leaves out the kernels' columns that only the timeline screen's
    details and a join read (``load.KERNEL_DETAILS``); ``graph_only`` reads only what the
    critical path's graph reads (``load.load_report``). Raises ReportError (OpenCancelled when
    cancelled) with a one-sentence message.
    """
    report = check_readable(path)
    kind = detect_kind(report)
    if kind is ReportKind.NCU:
        raise ReportError(
            f"{safe_text(report.name)} is an Nsight Compute report, not an Nsight Systems one."
        )
    if kind is ReportKind.NSYS:
        sqlite = exported_sqlite_path(
            report, cache_dir=cache_dir, nsys=nsys, progress=progress, cancel=cancel
        )
        return load_report(sqlite, source=report, progress=progress, cancel=cancel,
                           kernel_details=kernel_details, graph_only=graph_only)
    if not is_compressed(report):
        _check_sqlite_size(report)
        wal = report.with_name(report.name + "-wal")
        if _non_empty(wal):
            return _load_with_wal(report, wal, cache_dir, progress, cancel, kernel_details,
                                  graph_only)
        return load_report(report, source=report, progress=progress, cancel=cancel,
                           kernel_details=kernel_details, graph_only=graph_only)
    with _scratch_dir(Path(cache_dir) if cache_dir is not None else None) as scratch:
        plain = decompress_to(report, Path(scratch) / scratch_name(report),
                              progress=progress, cancel=cancel)
        return load_report(plain, source=report, progress=progress, cancel=cancel,
                           keep_sqlite_path=False, kernel_details=kernel_details,
                           graph_only=graph_only)
