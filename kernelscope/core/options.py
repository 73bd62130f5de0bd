"""The one options object: how the inputs are opened and which of their items are chosen.

Every entry point (the CLI, ``export``, ``summary``, the app, the MCP server) passes the same
``OpenOptions`` down to the kind, which reads what it needs. An entry point with options of its
own extends it (``export.writer.ExportOptions``: format, top, gate; the app's
``SessionOptions``: the kernel list's columns) rather than repeating its fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kernelscope.core.errors import ReportError


@dataclass(frozen=True)
class OpenOptions:
    """How to open inputs (every kind gets the same; each reads what it needs)."""

    cache_dir: Path | None = None
    """Where converted Nsight Systems exports are cached."""
    workers: int | None = None
    """Worker processes for a kind that reduces many inputs (0: in this process)."""
    scheduler: str | None = None
    """A Dask scheduler address to run those reductions on instead."""
    process: str | None = None
    """Of a kernel report, only the kernels of this process (an id or a name)."""
    pattern: str | None = None
    """Only the kernels whose name this regex matches."""
    pairs: tuple[tuple[str, str], ...] = ()
    """Kernels paired by hand, (BEFORE, AFTER) an ID or a name each (a diff's ``--pair``)."""
    model_flops: float | None = None
    """The model's FLOPs per step for MFU (``--model-flops``), instead of the operators'."""
    graph_only: bool = False
    """A timeline read only for its critical path's graph (the what-if): what nothing but the
    graph will read is left out where the kind can (Nsight Systems' ``load.GRAPH_SKIPPED``)."""


def parse_pair(text: str) -> tuple[str, str]:
    """``A=B`` → (A, B), a ``pairs`` entry; raises ReportError for anything else."""
    before, sep, after = text.partition("=")
    if not sep or not before.strip() or not after.strip():
        raise ReportError(
            f"--pair takes BEFORE=AFTER (a kernel ID or name on each side), not {text!r}."
        )
    return before.strip(), after.strip()


def checked_model_flops(value: float | None, option: str) -> float | None:
    """``value``, the model's FLOPs per step a user gave as ``option`` (``--model-flops``,
    MCP's ``model_flops``), when it is a finite number above 0; otherwise one sentence."""
    if value is not None and not (0 < value < float("inf")):
        raise ReportError(f"{option} takes the model's FLOPs per step, a finite number above 0.")
    return value
