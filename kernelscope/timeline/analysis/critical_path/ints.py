"""Integer columns as Python sequences without a list: the passes index them one value at a
time, and a list of a million Python ints costs a conversion and its memory each time one
is made (``Series.to_list``), where a view of the column's own buffer costs nothing.

Both ways go through the Arrow C data interface's PyCapsules, which polars takes and gives
(``Series.__arrow_c_stream__``, a ``Series`` of an object with ``__arrow_c_array__``), read
and filled with ``ctypes``: no pyarrow (whose import costs every timeline export ~0.035 s of
CPU) and none of polars' private API."""

from __future__ import annotations

import ctypes
from array import array
from collections.abc import Sequence
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_int,
    c_int64,
    c_uint8,
    c_void_p,
    py_object,
)
from typing import Any, Literal

import polars as pl


class ArrowSchema(Structure):
    """``struct ArrowSchema`` of the Arrow C data interface."""

    _fields_ = [("format", c_char_p), ("name", c_char_p), ("metadata", c_char_p),
                ("flags", c_int64), ("n_children", c_int64), ("children", c_void_p),
                ("dictionary", c_void_p), ("release", c_void_p), ("private_data", c_void_p)]


class ArrowArray(Structure):
    """``struct ArrowArray`` of the Arrow C data interface."""

    _fields_ = [("length", c_int64), ("null_count", c_int64), ("offset", c_int64),
                ("n_buffers", c_int64), ("n_children", c_int64), ("buffers", POINTER(c_void_p)),
                ("children", c_void_p), ("dictionary", c_void_p), ("release", c_void_p),
                ("private_data", c_void_p)]


class ArrowArrayStream(Structure):
    """``struct ArrowArrayStream`` of the Arrow C stream interface."""

    _fields_ = [("get_schema", c_void_p), ("get_next", c_void_p), ("get_last_error", c_void_p),
                ("release", c_void_p), ("private_data", c_void_p)]


_GET_NEXT = CFUNCTYPE(c_int, POINTER(ArrowArrayStream), POINTER(ArrowArray))
_RELEASE_ARRAY = CFUNCTYPE(None, POINTER(ArrowArray))
_RELEASE_SCHEMA = CFUNCTYPE(None, POINTER(ArrowSchema))
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = c_void_p, [py_object, c_char_p]
_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype, _new_capsule.argtypes = py_object, [c_void_p, c_char_p, c_void_p]


class _Chunk:
    """An array taken from a stream: released (its buffers given back to polars) when the
    last view of it goes."""

    def __init__(self, stream: object) -> None:
        self.stream = stream  # the capsule: releases the stream when it goes
        self.array = ArrowArray()
        pointer = _capsule_pointer(stream, b"arrow_array_stream")
        got = ArrowArrayStream.from_address(pointer)
        if _GET_NEXT(got.get_next)(got, self.array) != 0:
            raise ValueError("polars gave no array for the column")

    def __del__(self) -> None:
        if self.array.release:
            _RELEASE_ARRAY(self.array.release)(self.array)


_NARROW: dict[Any, tuple[Any, Any, Literal["B", "q"]]] = {
    pl.Boolean: (pl.UInt8, c_uint8, "B"), pl.UInt8: (pl.UInt8, c_uint8, "B")}
"""Columns read as bytes (a flag's view is an eighth of an Int64 one's): their dtype as read,
its C type and its ``memoryview`` format."""


_INT64: tuple[Any, Any, Literal["B", "q"]] = (pl.Int64, c_int64, "q")
"""Every other column: read as Int64."""


def ints(series: pl.Series) -> memoryview:
    """The values of an integer or boolean ``series`` as a read-only sequence of Python
    ints over the column's buffer (Int64 in one chunk: no copy; a boolean or UInt8 column as
    bytes); ValueError where it holds a null (it has no value to give)."""
    dtype, ctype, fmt = _NARROW.get(series.dtype, _INT64)
    column = series.cast(dtype).rechunk()
    if column.null_count():
        raise ValueError(f"column {column.name!r} holds {column.null_count()} nulls")
    if not column.len():
        return memoryview(b"").cast(fmt)
    chunk = _Chunk(column.__arrow_c_stream__())
    got = chunk.array
    if got.length != column.len() or got.n_buffers != 2 or got.null_count:
        raise ValueError(f"column {column.name!r} came as an array of {got.length} values")
    view = (ctype * (got.offset + got.length)).from_address(got.buffers[1])
    view.chunk = chunk  # type: ignore[attr-defined]  # the view keeps the array, it its buffer
    view.series = column  # type: ignore[attr-defined]  # what ``column`` gives back for it
    return memoryview(view).cast("B").cast(fmt)[got.offset:].toreadonly()


def writable(values: Sequence[int]) -> array[int]:
    """A copy of ``values`` that can be changed (a view from ``ints`` or an array: its
    bytes)."""
    if isinstance(values, (memoryview, array)):
        copy = array("q")
        copy.frombytes(memoryview(values).cast("B"))
        return copy
    return array("q", values)


def column(values: Sequence[int]) -> pl.Series:
    """An Int64 series of ``values``: the column a view from ``ints`` reads (no copy), or
    an array's bytes copied at once, where a series made from a sequence reads one Python
    int at a time."""
    if isinstance(values, memoryview):
        series = getattr(values.obj, "series", None)
        if isinstance(series, pl.Series) and series.dtype == pl.Int64:
            return series
    if isinstance(values, (memoryview, array)):
        return lent(writable(values))
    return pl.Series(values, dtype=pl.Int64)


def lent(values: array[int]) -> pl.Series:
    """An Int64 series over the buffer of ``values`` itself, no copy: for an array made for
    it (a slice, a pass's times), which nothing changes once it is lent."""
    return pl.Series(_Lent(values))


_LENT: dict[int, tuple[object, ...]] = {}
"""What an array lent to polars needs until polars releases it, by the array's key."""


def _release_array(lent: ctypes._Pointer[ArrowArray]) -> None:
    _LENT.pop(lent.contents.private_data or 0, None)
    lent.contents.release = None


def _release_schema(lent: ctypes._Pointer[ArrowSchema]) -> None:
    lent.contents.release = None


_release_array_c = _RELEASE_ARRAY(_release_array)
_release_schema_c = _RELEASE_SCHEMA(_release_schema)


class _Lent:
    """An Int64 array offered to polars by the Arrow C data interface (no copy)."""

    def __init__(self, data: array[int]) -> None:
        self.data = data

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        schema = ArrowSchema(format=b"l", name=b"", flags=2,  # nullable
                             release=ctypes.cast(_release_schema_c, c_void_p))
        buffers = (c_void_p * 2)(None, self.data.buffer_info()[0])
        lent = ArrowArray(length=len(self.data), n_buffers=2, buffers=buffers,
                          release=ctypes.cast(_release_array_c, c_void_p))
        lent.private_data = ctypes.addressof(buffers)
        _LENT[ctypes.addressof(buffers)] = (self.data, buffers, lent, schema)
        return (_new_capsule(ctypes.addressof(schema), b"arrow_schema", None),
                _new_capsule(ctypes.addressof(lent), b"arrow_array", None))
