"""API names as ``nsys stats`` prints them (shared by every reader of CPU API calls)."""

from __future__ import annotations

import polars as pl


def strip_api_version(name: pl.Expr) -> pl.Expr:
    """``cudaMemcpy_v3020`` -> ``cudaMemcpy``, as ``nsys stats`` does it: a name whose last six
    characters start with ``_v`` loses them (``cuMemcpyHtoD_v2`` is kept)."""
    return pl.when(name.str.slice(-6, 2) == "_v").then(name.str.slice(0, name.str.len_chars() - 6)
                                                       ).otherwise(name)
