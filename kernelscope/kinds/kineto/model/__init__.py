"""PyTorch profiler (Kineto) chrome traces: the reader, the timeline analyses, HTA's numbers
and runs of several ranks (docs/kineto.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kernelscope.core.errors import ReportError


def is_kineto_file(path: Path) -> bool:
    """Whether ``path`` (a file; plain, gzip, xz or zstd) begins like a Kineto trace."""
    from kernelscope.kinds.kineto.model.stream import looks_like_kineto, read_head

    try:
        return looks_like_kineto(read_head(path, 4096))
    except (OSError, ReportError, EOFError, ValueError):
        return False


def trace_files(paths: Sequence[Path]) -> list[Path]:
    """The traces ``paths`` name: each file named, and a directory's Kineto traces (sorted;
    its other files, logs say, are left out). [] when a path is neither."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.iterdir()
                            if p.is_file() and not p.name.startswith(".") and is_kineto_file(p))
        elif path.is_file():
            files.append(path)
        else:
            return []
    return files


def is_kineto_run(paths: Sequence[Path]) -> bool:
    """Several Kineto traces (a directory holding some, or a list of them): the ranks of one
    run."""
    if len(paths) == 1 and not paths[0].is_dir():
        return False
    files = trace_files(paths)
    return len(files) >= 2 and all(is_kineto_file(f) for f in files)


__all__ = ["is_kineto_file", "is_kineto_run", "trace_files"]
