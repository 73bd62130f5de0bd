"""Decompress ``.xz``/``.gz`` reports into a scratch file, with progress and cancel."""

from __future__ import annotations

import gzip
import lzma
import os
from pathlib import Path

from kernelscope.parsers.detect import GZ_MAGIC, XZ_MAGIC
from kernelscope.parsers.errors import ReportError
from kernelscope.parsers.nsys.hooks import (
    CancelHook,
    OpenCancelled,
    ProgressHook,
    is_cancelled,
    report_progress,
)

_CHUNK = 4 << 20


def decompress_to(
    source: Path,
    target: Path,
    *,
    progress: ProgressHook | None = None,
    cancel: CancelHook | None = None,
) -> Path:
    """Write the decompressed content of ``source`` to ``target``; remove it on any failure."""
    with open(source, "rb") as fh:
        head = fh.read(6)
    opener = lzma.open if head.startswith(XZ_MAGIC) else gzip.open
    if not (head.startswith(XZ_MAGIC) or head.startswith(GZ_MAGIC)):
        raise ReportError(f"{source} is not xz- or gzip-compressed.")
    total = max(source.stat().st_size, 1)
    try:
        with open(source, "rb") as raw, opener(raw, "rb") as zin, open(target, "wb") as out:
            while True:
                if is_cancelled(cancel):
                    raise OpenCancelled(f"Decompressing {source.name} was cancelled.")
                chunk = zin.read(_CHUNK)
                if not chunk:
                    break
                out.write(chunk)
                report_progress(
                    progress, f"Decompressing {source.name}", min(raw.tell() / total, 1.0)
                )
    except ReportError:
        target.unlink(missing_ok=True)
        raise
    except (lzma.LZMAError, EOFError, OSError) as exc:
        target.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename == str(target):
            raise ReportError(
                f"{source.name} could not be decompressed into {target.parent} "
                f"({exc.strerror or exc})."
            ) from exc
        raise ReportError(f"{source} is compressed but could not be decompressed ({exc}).") from exc
    return target


def uncompressed_name(path: Path) -> str:
    """``zoo.sqlite.xz`` -> ``zoo.sqlite``; other names are kept."""
    name = path.name
    for ext in (".xz", ".gz"):
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def scratch_name(path: Path) -> str:
    """A unique scratch file name for decompressing ``path`` that keeps its inner extension."""
    return f".tmp-{os.getpid()}-{os.urandom(4).hex()}-{uncompressed_name(path)}"
