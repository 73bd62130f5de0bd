"""A report holding one result of another, for the SASS child (``sass.py``): ncu_report loads
a whole report to disassemble one kernel, so it is given a file with only what that takes.

The copy has the original's FileHeader and every block header (their string tables append to
each other, and a result names metrics by ids into all of them; their session details and
processes), with no message in any block but the one holding the result: there, the result
and the SourceData of the modules it ran code from, in the order the format stores them
(sources first). Each block header's counts and payload size are set to what the copy holds;
the fields kernelscope's schema does not name are written back as they were read. ncu_report
answers the same SASS text and source lines for the copy's only result as for the result in
the original (checked on every report in ``samples/`` and ``../shared/wild`` with source
counters), and reads megabytes instead of the whole report.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Collection
from typing import IO

from kernelscope.kinds.ncu.model.container import (
    CMDLIST,
    GRAPH,
    KERNEL,
    NCU_MAGIC,
    RANGE,
    BlockInfo,
    Layout,
)
from kernelscope.kinds.ncu.model.file_format.schema import BlockHeader

COUNT_FIELD = {
    KERNEL: "num_results", RANGE: "num_range_results", CMDLIST: "num_cmdlist_results",
    GRAPH: "num_graph_results",
}
"""The BlockHeader count of each kind of result."""


def _sized(data: bytes) -> bytes:
    return struct.pack("<I", len(data)) + data


def _read(source: IO[bytes], offset: int, size: int) -> bytes:
    source.seek(offset)
    return source.read(size)


def _block_of(blocks: list[BlockInfo], offset: int) -> int:
    """The index of the block whose payload holds ``offset``."""
    return bisect.bisect_right([b.header_offset for b in blocks], offset) - 1


def write_one_result(
    source: IO[bytes], layout: Layout, index: int, references: Collection[int], out: IO[bytes]
) -> None:
    """Write to ``out`` a report holding result ``index`` of the report read by ``source``
    (walked as ``layout``) and the SourceData of ``references`` in its blocks."""
    blocks = list(layout.blocks)
    info = layout.results[index]
    home = _block_of(blocks, info.offset)
    out.write(NCU_MAGIC + _sized(_read(source, *layout.file_header)))
    for number, block in enumerate(blocks):
        header = BlockHeader.FromString(_read(source, block.header_offset, block.header_size))
        sources = [(o, s) for o, s, ref in block.sources if ref in references]
        messages = [_read(source, o, s) for o, s in sources]
        header.num_sources = len(messages)
        for field in COUNT_FIELD.values():
            setattr(header, field, 0)
        if number == home:
            messages.append(_read(source, info.offset, info.size))
            setattr(header, COUNT_FIELD[info.kind], 1)
        header.payload_size = sum(4 + len(m) for m in messages)
        out.write(_sized(header.SerializeToString()))
        for message in messages:
            out.write(_sized(message))
