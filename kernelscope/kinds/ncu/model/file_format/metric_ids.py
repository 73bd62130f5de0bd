"""The string-table id (``NameId``, field 1) that starts each encoded MetricResult, read and
written without decoding the message."""

from __future__ import annotations

import operator
from collections.abc import Sequence

from kernelscope.kinds.ncu.model.file_format.schema import MetricResult


def ids_of(entries: Sequence[bytes]) -> list[int]:
    """The string-table id of each encoded MetricResult. Every writer puts ``NameId``
    (field 1, tag 0x08) first, as protobuf writes fields in order, and a report's string
    table stays well below 16,384 names (a one- or two-byte varint); other entries are
    parsed whole."""
    if bytes(map(_FIRST, entries)).strip(b"\x08"):
        return [int(MetricResult.FromString(b).name_id) for b in entries]
    return [b[1] if b[1] < 0x80 else (b[1] & 0x7F) | (b[2] << 7) for b in entries]


def name_tag(i: int) -> bytes:
    """``NameId = i`` as protobuf encodes it (the tag, then ``i`` as a varint)."""
    tag = _TAGS.get(i)
    if tag is None:
        out, rest = [0x08], i
        while rest >= 0x80:
            out.append(rest & 0x7F | 0x80)
            rest >>= 7
        out.append(rest)
        tag = _TAGS[i] = bytes(out)
    return tag


_TAGS: dict[int, bytes] = {}


_FIRST = operator.itemgetter(0)
