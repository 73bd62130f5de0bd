"""Integer columns as Python sequences without a list: the passes index them one value at a
time, and a list of a million Python ints costs a conversion and its memory each time one
is made (``Series.to_list``), where a view of the column's own buffer costs nothing."""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import polars as pl
import pyarrow as pa  # type: ignore[import-untyped]


def ints(series: pl.Series) -> memoryview:
    """The values of an integer or boolean ``series`` without nulls, as a read-only
    sequence of Python ints over the column's buffer (Int64: no copy)."""
    column = series.cast(pl.Int64).rechunk().to_arrow()
    data = column.buffers()[1]
    if data is None or not len(column):
        return memoryview(b"").cast("q")
    return memoryview(data).cast("B").cast("q")[column.offset: column.offset + len(column)]


def writable(values: Sequence[int]) -> array[int]:
    """A copy of ``values`` that can be changed (a view from ``ints`` or an array: its
    bytes)."""
    if isinstance(values, (memoryview, array)):
        copy = array("q")
        copy.frombytes(memoryview(values).cast("B"))
        return copy
    return array("q", values)


def column(values: Sequence[int]) -> pl.Series:
    """An Int64 series of ``values`` (an array or a view from ``ints``: its bytes copied at
    once, where a series made from a sequence reads one Python int at a time)."""
    if isinstance(values, (memoryview, array)):
        data = pa.py_buffer(memoryview(values).cast("B").tobytes())
        series: pl.Series = pl.Series(values=pa.Array.from_buffers(
            pa.int64(), len(values), [None, data]))
        return series
    return pl.Series(values, dtype=pl.Int64)
