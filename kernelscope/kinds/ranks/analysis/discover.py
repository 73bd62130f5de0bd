"""The trace files of a run: a directory of per-rank traces, or the files named.

A run's ranks are traces of one kind: Nsight Systems traces (files whose names end in
``.nsys-rep``, ``.qdrep`` or ``.sqlite``, also ``.xz``/``.gz``) or PyTorch profiler (Kineto)
traces (found by content). In a directory (not searched below), a folder holding traces of
both kinds is refused with one sentence saying what it holds and how to open each; kernel
reports beside the traces are left out of the run, and the run says so. When a rank has both
an ``.nsys-rep`` and its SQLite export (``rank0.nsys-rep`` and ``rank0.sqlite``), the export
is read: it needs no ``nsys``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kernelscope.core.detect import ReportKind, check_readable, detect_kind
from kernelscope.core.errors import ReportError, safe_text
from kernelscope.core.words import plural
from kernelscope.kinds.kineto.model import is_kineto_file

TRACE_SUFFIXES = (".sqlite", ".nsys-rep", ".qdrep")
COMPRESSION_SUFFIXES = ("", ".xz", ".gz")
NSYS, KINETO = "nsys", "kineto"
WHAT = {NSYS: "Nsight Systems trace", KINETO: "PyTorch profiler trace", "ncu": "kernel report"}


@dataclass(frozen=True)
class RunFiles:
    """The traces of a run, their kind (``nsys`` or ``kineto``), and the reports left out."""

    paths: list[Path]
    kind: str
    left_out: list[Path] = field(default_factory=list)


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


def kind_of_file(path: Path) -> str | None:
    """``nsys``, ``kineto``, ``ncu`` or None (not a report) for one file, by content."""
    try:
        kind = detect_kind(path)
    except ReportError:
        return KINETO if is_kineto_file(path) else None
    return "ncu" if kind is ReportKind.NCU else NSYS


def _nsys_in(entries: list[Path]) -> list[Path]:
    best: dict[str, tuple[int, Path]] = {}
    for path in entries:
        split = _split(path.name)
        if split is None:
            continue
        stem, preference = split
        if stem not in best or preference < best[stem][0]:
            best[stem] = (preference, path)
    return [p for _, p in sorted(best.values(), key=lambda item: item[1].name)]


def _in_directory(directory: Path) -> dict[str, list[Path]]:
    """The reports of ``directory`` by kind (an ``.nsys-rep`` beside its export left out)."""
    try:
        entries = sorted(p for p in directory.iterdir()
                         if p.is_file() and not p.name.startswith("."))
    except OSError as exc:
        raise ReportError(f"{directory} cannot be listed ({exc.strerror or exc}).") from exc
    found: dict[str, list[Path]] = {NSYS: _nsys_in(entries)}
    named = {p for p in entries if _split(p.name) is not None}
    for path in entries:
        if path not in named:
            kind = kind_of_file(path)
            if kind is not None:
                found.setdefault(kind, []).append(path)
    return {k: v for k, v in found.items() if v}


def _held(found: dict[str, list[Path]]) -> str:
    parts = []
    for kind, paths in found.items():
        names = ", ".join(safe_text(p.name) for p in paths[:3])
        parts.append(f"{plural(len(paths), WHAT[kind])} ({names}"
                     f"{', …' if len(paths) > 3 else ''})")
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def _one_kind(where: str, found: dict[str, list[Path]]) -> RunFiles:
    traces = [k for k in (NSYS, KINETO) if k in found]
    if not traces:
        held = f" It holds {_held(found)}; open it with kernelscope FILE." if found else ""
        raise ReportError(f"{where} holds no Nsight Systems or PyTorch profiler traces "
                          f"(.nsys-rep, .sqlite, .qdrep or .pt.trace.json).{held}")
    if len(traces) > 1:
        raise ReportError(f"{where} holds {_held(found)}, but the ranks of one run are traces "
                          "of one kind: open each with kernelscope FILE (a timeline with its "
                          "kernel reports: kernelscope TRACE REPORT...).")
    kind = traces[0]
    return RunFiles(found[kind], kind, sorted(p for k, ps in found.items() if k != kind
                                              for p in ps))


def run_files(inputs: Sequence[str | os.PathLike[str]]) -> RunFiles:
    """The traces to read for ``inputs`` (directories and files), each once, in order; their
    kind; the reports left out. Raises ReportError (one sentence) for traces of two kinds."""
    found: dict[str, list[Path]] = {}
    seen: set[Path] = set()
    where = None
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            where = where or safe_text(path)
            parts = _in_directory(path)
        else:
            kind = kind_of_file(check_readable(path))
            if kind is None:
                raise ReportError(f"{safe_text(path)} is not an Nsight Systems or PyTorch "
                                  "profiler trace.")
            parts = {kind: [path]}
        for kind, paths in parts.items():
            for p in paths:
                if p.resolve() not in seen:
                    seen.add(p.resolve())
                    found.setdefault(kind, []).append(p)
    if not found and not inputs:
        raise ReportError("No trace files were given.")
    return _one_kind(where if where and len(inputs) == 1 else "The files named", found)


def trace_files(inputs: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The traces to read for ``inputs`` (see :func:`run_files`)."""
    return run_files(inputs).paths


def is_run(inputs: Sequence[str | os.PathLike[str]]) -> bool:
    """True when ``inputs`` name a run (a directory, or more than one file) rather than one
    report."""
    return len(inputs) > 1 or any(Path(p).is_dir() for p in inputs)


def looks_like_run(inputs: Sequence[str | os.PathLike[str]]) -> bool:
    """Whether ``inputs`` are the ranks of a run: a directory, or several files of which at
    least one is a trace (the others are checked when read, so that a wrong one gets its own
    sentence). Raises ReportError for a missing file."""
    if not is_run(inputs):
        return False
    if any(Path(p).is_dir() for p in inputs):
        return True
    return any(kind_of_file(check_readable(p)) in (NSYS, KINETO) for p in inputs)
