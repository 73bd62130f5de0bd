"""The kernel list as one polars frame (polars is imported when a frame is built: the headless
exports of a kernel report need no polars)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kernelscope.kinds.ncu.model.panes import KEY_METRICS

if TYPE_CHECKING:
    import polars as pl


INT, FLOAT, TEXT = "int", "float", "text"
"""What a kernel-list column holds: integers, floats (a metric's number) or text."""

KEY_COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", INT), ("name", TEXT), ("demangled", TEXT), ("grid", TEXT), ("block", TEXT),
    ("grid_size", INT), ("block_size", INT), *((column, FLOAT) for column, _ in KEY_METRICS),
    ("context", INT), ("stream", INT), ("range_idx", INT), ("action_idx", INT), ("pid", INT),
    ("process", TEXT),
)
"""The kernel list's columns, in order, and what each holds (known without polars: the CSV
export writes them without it)."""


def key_schema() -> dict[str, Any]:
    """The kernel-list frame's columns (``KEY_COLUMNS``) and their polars types. (polars is
    imported here, not at module level: the headless exports of a kernel report need no
    polars.)"""
    import polars as pl

    types = {INT: pl.Int64, FLOAT: pl.Float64, TEXT: pl.Utf8}
    return {name: types[kind] for name, kind in KEY_COLUMNS}


def rows_to_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Build the kernel-list frame from key rows with a fixed schema."""
    import polars as pl

    return pl.DataFrame(rows, schema=key_schema())
