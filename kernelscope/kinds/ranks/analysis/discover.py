"""The trace files of a run: a directory of per-rank traces, or the files named.

In a directory, the files whose names end in ``.nsys-rep``, ``.qdrep`` or ``.sqlite`` (also
``.xz``/``.gz``) are the traces (sub-directories are not searched). When a rank has both an
``.nsys-rep`` and its SQLite export (``rank0.nsys-rep`` and ``rank0.sqlite``), the export is
read: it needs no ``nsys``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from kernelscope.core.detect import ReportKind, check_readable, detect_kind
from kernelscope.core.errors import ReportError

TRACE_SUFFIXES = (".sqlite", ".nsys-rep", ".qdrep")
COMPRESSION_SUFFIXES = ("", ".xz", ".gz")


def _split(name: str) -> tuple[str, int] | None:
    """(stem, preference) for a trace file name, lower preference first; None otherwise."""
    for rank, suffix in enumerate(TRACE_SUFFIXES):
        for crank, comp in enumerate(COMPRESSION_SUFFIXES):
            ending = suffix + comp
            if name.endswith(ending) and len(name) > len(ending):
                return name[: -len(ending)], rank * len(COMPRESSION_SUFFIXES) + crank
    return None


def is_trace_name(name: str) -> bool:
    return _split(name) is not None


def _in_directory(directory: Path) -> list[Path]:
    try:
        entries = sorted(p for p in directory.iterdir() if p.is_file())
    except OSError as exc:
        raise ReportError(f"{directory} cannot be listed ({exc.strerror or exc}).") from exc
    best: dict[str, tuple[int, Path]] = {}
    for path in entries:
        split = _split(path.name)
        if split is None:
            continue
        stem, preference = split
        if stem not in best or preference < best[stem][0]:
            best[stem] = (preference, path)
    if not best:
        raise ReportError(
            f"{directory} holds no Nsight Systems traces (.nsys-rep, .sqlite or .qdrep, "
            "optionally .xz/.gz).")
    return [p for _, p in sorted(best.values(), key=lambda item: item[1].name)]


def trace_files(inputs: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The traces to read for ``inputs`` (directories and files), each once, in order."""
    out: list[Path] = []
    seen: set[Path] = set()
    for item in inputs:
        path = Path(item)
        found = _in_directory(path) if path.is_dir() else [check_readable(path)]
        for p in found:
            key = p.resolve()
            if key not in seen:
                seen.add(key)
                out.append(p)
    if not out:
        raise ReportError("No trace files were given.")
    return out


def is_run(inputs: Sequence[str | os.PathLike[str]]) -> bool:
    """True when ``inputs`` name a run (a directory, or more than one file) rather than one
    report."""
    return len(inputs) > 1 or any(Path(p).is_dir() for p in inputs)


def looks_like_run(inputs: Sequence[str | os.PathLike[str]]) -> bool:
    """Whether ``inputs`` are the ranks of a run: a directory, or several files of which at
    least one is an Nsight Systems trace by content (the others are checked when read, so
    that a wrong one gets its own sentence). Raises ReportError for a missing file."""
    if not is_run(inputs):
        return False
    if any(Path(p).is_dir() for p in inputs):
        return True
    return any(detect_kind(p) in (ReportKind.NSYS, ReportKind.SQLITE) for p in inputs)
