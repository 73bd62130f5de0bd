"""Many encoded MetricResults of a result decoded at once: wrapped as the entries of one
message (``MetricBag``), the protobuf runtime decodes them in one call instead of one call
each (a launch whose values differ from every other launch's holds dozens)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.protobuf.message import DecodeError

from kernelscope.kinds.ncu.model.file_format.result import ABSENT, Result
from kernelscope.kinds.ncu.model.file_format.schema import MetricBag

_BAG = MetricBag.FromString
_HEADS = [bytes((0x0A, n)) for n in range(0x80)]
"""A bag entry's field tag and length, for each length below 128 (one byte)."""


def _head(size: int) -> bytes:
    """A bag entry's field tag and length (a varint) for ``size`` bytes."""
    if size < 0x80:
        return _HEADS[size]
    out = [0x0A]
    while size >= 0x80:
        out.append(size & 0x7F | 0x80)
        size >>= 7
    out.append(size)
    return bytes(out)


def stored_values(result: Result, datas: Sequence[bytes]) -> list[Any]:
    """``result.stored_value`` of each of ``datas`` (encoded MetricResults of ``result``):
    the single value, :data:`ABSENT` when it holds none; not remembered (their readers
    remember what they make of them)."""
    try:
        bag = _BAG(b"".join([_head(len(data)) + data for data in datas]))
    except DecodeError:
        return [result.stored_value(data) for data in datas]  # the damaged one says so
    found: list[Any] = []
    for entry in bag.results:
        fields = entry.metric_value.ListFields()
        found.append(fields[0][1] if fields else ABSENT)
    return found
