"""The kernel list as one polars frame (polars is imported when a frame is built: the headless
exports of a kernel report need no polars)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kernelscope.kinds.ncu.model.panes import KEY_METRICS

if TYPE_CHECKING:
    import polars as pl


def key_schema() -> dict[str, Any]:
    """The kernel-list frame's columns and polars types. (polars is imported here, not at
    module level: the headless exports of a kernel report need no polars.)"""
    import polars as pl

    return {
        "id": pl.Int64,
        "name": pl.Utf8,
        "demangled": pl.Utf8,
        "grid": pl.Utf8,
        "block": pl.Utf8,
        "grid_size": pl.Int64,
        "block_size": pl.Int64,
        **{col: pl.Float64 for col, _ in KEY_METRICS},
        "context": pl.Int64,
        "stream": pl.Int64,
        "range_idx": pl.Int64,
        "action_idx": pl.Int64,
        "pid": pl.Int64,
        "process": pl.Utf8,
    }


def rows_to_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Build the kernel-list frame from key rows with a fixed schema."""
    import polars as pl

    return pl.DataFrame(rows, schema=key_schema())
