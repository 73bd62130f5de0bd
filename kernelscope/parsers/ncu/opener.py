"""Open an .ncu-rep (plain, xz or gzip) through ncu_report, with one-sentence errors."""

from __future__ import annotations

import gzip
import lzma
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from kernelscope.parsers.detect import ReportKind, check_readable, detect_kind, is_compressed
from kernelscope.parsers.errors import ReportError


def decompress_to_temp(path: Path, suffix: str) -> Path:
    """Decompress an xz/gzip file into a new temporary file and return its path."""
    with open(path, "rb") as fh:
        magic = fh.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else lzma.open
    fd, tmp = tempfile.mkstemp(prefix="kernelscope-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as out, opener(path, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
    except (lzma.LZMAError, OSError, EOFError) as exc:
        os.unlink(tmp)
        raise ReportError(f"{path} could not be decompressed ({exc}).") from exc
    return Path(tmp)


def load_ncu_context(path: str | os.PathLike[str]) -> tuple[Any, Path | None]:
    """Load ``path`` with ncu_report; returns (context, temporary file to remove later or None)."""
    p = check_readable(path)
    kind = detect_kind(p)
    if kind is not ReportKind.NCU:
        what = "an Nsight Systems report" if kind is ReportKind.NSYS else "an SQLite export"
        raise ReportError(f"{p} is {what}, not an Nsight Compute kernel report (.ncu-rep).")
    try:
        import ncu_report
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise ReportError("The ncu-report package is missing: pip install ncu-report.") from exc
    temp = decompress_to_temp(p, ".ncu-rep") if is_compressed(p) else None
    try:
        ctx = ncu_report.load_report(str(temp or p))
    except Exception as exc:  # ncu_report raises its own error types
        if temp is not None:
            temp.unlink(missing_ok=True)
        raise ReportError(f"{p} could not be read by ncu_report ({exc}).") from exc
    if (
        ctx is None
        or ctx.num_ranges() == 0
        or all(ctx.range_by_idx(i).num_actions() == 0 for i in range(ctx.num_ranges()))
    ):
        if temp is not None:
            temp.unlink(missing_ok=True)
        raise ReportError(f"{p} holds no profiled kernels; it may be truncated or damaged.")
    return ctx, temp
