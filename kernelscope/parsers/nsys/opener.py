"""Open any Nsight Systems input: ``.sqlite``, ``.nsys-rep``, or either compressed.

Nothing is ever written next to the report: exports go to the cache directory and
decompressed scratch files to a temporary directory inside it (removed before returning).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from kernelscope.parsers.detect import ReportKind, check_readable, detect_kind, is_compressed
from kernelscope.parsers.errors import ReportError
from kernelscope.parsers.nsys import locate
from kernelscope.parsers.nsys.cache import cache_name, default_cache_dir, ensure_cache_dir
from kernelscope.parsers.nsys.convert import manual_export_hint, run_export
from kernelscope.parsers.nsys.decompress import decompress_to, scratch_name
from kernelscope.parsers.nsys.hooks import CancelHook, ProgressHook
from kernelscope.parsers.nsys.load import load_report
from kernelscope.parsers.nsys.model import NsysReport


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
            f"Nsight Systems (nsys) was not found to convert {report.name}; export it by hand "
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
) -> NsysReport:
    """Open an Nsight Systems report and read it into memory.

    ``path`` may be an nsys SQLite export or an ``.nsys-rep`` report, either of them xz- or
    gzip-compressed. ``.nsys-rep`` files are exported once with ``nsys`` (found with
    :func:`locate.find_nsys` unless ``nsys`` is given) into ``cache_dir`` (default
    ``$XDG_CACHE_HOME/kernelscope``). ``progress(message, fraction)`` is called from this
    thread during slow steps; ``cancel`` (an Event or a callable) stops them. Raises
    ReportError (OpenCancelled when cancelled) with a one-sentence message.
    """
    report = check_readable(path)
    kind = detect_kind(report)
    if kind is ReportKind.NCU:
        raise ReportError(
            f"{report.name} is an Nsight Compute report, not an Nsight Systems one."
        )
    if kind is ReportKind.NSYS:
        sqlite = exported_sqlite_path(
            report, cache_dir=cache_dir, nsys=nsys, progress=progress, cancel=cancel
        )
        return load_report(sqlite, source=report, progress=progress, cancel=cancel)
    if not is_compressed(report):
        return load_report(report, source=report, progress=progress, cancel=cancel)
    with _scratch_dir(Path(cache_dir) if cache_dir is not None else None) as scratch:
        plain = decompress_to(report, Path(scratch) / scratch_name(report),
                              progress=progress, cancel=cancel)
        return load_report(plain, source=report, progress=progress, cancel=cancel,
                           keep_sqlite_path=False)
