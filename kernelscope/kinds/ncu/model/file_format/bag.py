"""Many encoded MetricResults of a result decoded at once: wrapped as the entries of one
message (``MetricBag``), the protobuf runtime decodes them in one call instead of one call
each (a launch whose values differ from every other launch's holds dozens)."""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from google.protobuf.message import DecodeError

from kernelscope.kinds.ncu.model.file_format.result import ABSENT, RawValue, Result
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


_FIXED = ((b"\x12\x09\x19", 8, "d"), (b"\x12\x05\x15", 4, "f"))
"""A MetricResult's value that is a MetricValue holding a double alone (``metric_value``,
field 2, 9 bytes long: ``double_value``, field 3, then 8 bytes) or a float alone (field 2,
then ``float_value``, field 2, and 4 bytes): the bytes after the ``NameId``, how many bytes
the number takes, and its ``struct`` code."""


class Shape(NamedTuple):
    """How a MetricResult that holds a single double (or float) is encoded: its
    ``NameId``, the fields that lead to the number, the number, then fields that
    kernelscope's schema does not read."""

    prefix: bytes
    """Everything before the number."""
    suffix: bytes
    """Everything after it."""
    size: int
    """The length of the whole encoded MetricResult."""
    code: str
    """The ``struct`` format that reads the prefix, the number and the suffix."""


def fixed_shape(data: bytes, tag: bytes) -> Shape | None:
    """The :class:`Shape` of ``data`` (an encoded MetricResult starting with ``tag``, its
    ``NameId``) when it holds a double or a float alone, followed by nothing but plain
    numbers in fields past those the schema reads (a MetricResult of ncu 2025 ends with
    field 4 = 0), else None: bytes of that shape hold that number, whatever it is."""
    for head, width, code in _FIXED:
        prefix = tag + head
        suffix = data[len(prefix) + width:]
        if data.startswith(prefix) and len(data) >= len(prefix) + width \
                and _unread_numbers(suffix):
            return Shape(prefix, suffix, len(data), f"{len(prefix)}s{code}{len(suffix)}s")
    return None


def _unread_numbers(data: bytes) -> bool:
    """Whether ``data`` is nothing but varint fields numbered past MetricResult's three
    (each tag one byte): such fields leave the value where it is, whatever it is."""
    at = 0
    while at < len(data):
        tag = data[at]
        if tag >= 0x80 or tag & 0x07 or tag < 4 << 3:
            return False
        at += 1
        while at < len(data) and data[at] & 0x80:
            at += 1
        if at == len(data):
            return False
        at += 1
    return True


def fixed_values(datas: Sequence[bytes], codes: Iterable[str]) -> tuple[Any, ...]:
    """The prefix, number and suffix of each of ``datas``, as its :class:`Shape` (whose
    ``code`` each of ``codes`` is) places them: one ``struct`` call for them all. Where
    each prefix and suffix is the Shape's, the protobuf runtime's value of the bytes is
    that number (a float widened to a double, as it does)."""
    return struct.unpack("<" + "".join(codes), b"".join(datas))


def plain_value(value: Any) -> RawValue:
    """The Python value of a MetricValue message: the one field that is set (a float field is
    widened to a double, as NCU prints it); None when none is."""
    fields = value.ListFields()
    if not fields:
        return None
    found = fields[0][1]
    return found if isinstance(found, (int, float, str)) else None


def instances_of(raw: Any) -> list[tuple[RawValue, RawValue]]:
    """A MetricResult's (correlation id, value) list, empty when it has no instances."""
    return [
        (plain_value(e.correlation_id) if e.HasField("correlation_id") else None,
         plain_value(e.element_value))
        for e in raw.metric_value_list
    ]
