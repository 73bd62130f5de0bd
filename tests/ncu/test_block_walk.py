"""The block walk's shortcuts answer as the plain reading does: each distinct block header
decoded once (``_Walk.known``) finds what decoding every header finds, a report file read
straight from its stream what a stream that cannot seek (or has a limit) gives, and the
result index's quick ways (an id in range, the processes at once) what its items say."""

from __future__ import annotations

import io
import lzma
import struct

import pytest

from kernelscope.kinds.ncu.model.container import (
    CMDLIST,
    GRAPH,
    KERNEL,
    RANGE,
    Layout,
    read_layout,
)
from kernelscope.kinds.ncu.model.file_format.schema import BlockHeader
from kernelscope.kinds.ncu.model.summary_reader import origins_of
from tests.conftest import NCU_SAMPLES

REPORTS = ("multi_process", "range_replay", "zoo", "small_family", "torch_ops")


def _data(name: str) -> bytes:
    return lzma.decompress((NCU_SAMPLES / f"{name}.ncu-rep.xz").read_bytes())


def _every_header_decoded(data: bytes) -> list[tuple[str, int, int, int | None, str]]:
    """(kind, offset, size, process id, process name) of each result, every block header
    decoded by itself: what the walk must find."""
    found = []
    at = 8 + struct.unpack_from("<I", data, 4)[0]
    while at < len(data):
        size = struct.unpack_from("<I", data, at)[0]
        header = BlockHeader.FromString(data[at + 4:at + 4 + size])
        process = header.process if header.HasField("process") else None
        pid = process.process_id if process and process.HasField("process_id") else None
        kinds = ([None] * header.num_sources + [KERNEL] * header.num_results
                 + [RANGE] * header.num_range_results + [CMDLIST] * header.num_cmdlist_results
                 + [GRAPH] * header.num_graph_results)
        at += 4 + size
        for kind in kinds:
            length = struct.unpack_from("<I", data, at)[0]
            if kind is not None:
                found.append((kind, at + 4, length, pid, process.process_name if process else ""))
            at += 4 + length
    return found


def _facts(layout: Layout) -> tuple[object, ...]:
    return (list(layout.results), layout.size, layout.versions, layout.strings,
            layout.sources, str(layout.session), layout.format_version, layout.blocks,
            layout.file_header)


class _Unseekable(io.BytesIO):
    def seekable(self) -> bool:
        return False


@pytest.mark.parametrize("name", REPORTS)
def test_the_walk_finds_what_decoding_every_block_header_finds(name: str) -> None:
    data = _data(name)
    layout = read_layout(io.BytesIO(data), name)
    assert [(r.kind, r.offset, r.size, r.pid, r.process.name) for r in layout.results] == (
        _every_header_decoded(data)
    )


@pytest.mark.parametrize("name", REPORTS)
def test_a_file_read_straight_finds_what_a_stream_finds(name: str) -> None:
    data = _data(name)
    plain = _facts(read_layout(io.BytesIO(data), name))
    assert _facts(read_layout(_Unseekable(data), name)) == plain
    assert _facts(read_layout(io.BytesIO(data), name, limit=len(data))) == plain


@pytest.mark.parametrize("name", REPORTS)
def test_the_result_index_answers_as_its_items(name: str) -> None:
    layout = read_layout(io.BytesIO(_data(name)), name)
    results = layout.results
    items = list(results)
    count = len(items)
    assert [results[i] for i in range(count)] == items == [results[i - count] for i in range(count)]
    assert all(type(r) is type(items[0]) and r.pid == r.process.pid for r in items)
    origins = origins_of(results)
    assert origins == origins_of(items) == [(r.pid, r.process.short_name) for r in items]
    assert len({id(o) for o in origins}) == len({r.process for r in items})


@pytest.mark.parametrize("name", ("multi_process", "zoo"))
def test_a_result_read_at_its_offset_is_what_seek_and_read_give(name: str) -> None:
    from kernelscope.kinds.ncu.model.report import open_ncu_report

    report = open_ncu_report(NCU_SAMPLES / f"{name}.ncu-rep.xz")
    infos = list(report.layout.results)
    with open(report.plain_path, "rb") as plain:
        expected = []
        for info in infos:
            plain.seek(info.offset)
            expected.append(plain.read(info.size))
    assert [report._read_at(i.offset, i.size) for i in infos] == expected
    assert report._read_at(infos[-1].offset, infos[-1].size + 10) == expected[-1]  # the end
    quick = [report._result(i).data for i in range(len(infos))]
    report._fd = None  # no os.pread: the file's seek and read
    report._results.clear()
    assert [report._result(i).data for i in range(len(infos))] == quick == expected
    report.close()
    closed = open_ncu_report(NCU_SAMPLES / f"{name}.ncu-rep.xz")
    closed.close()  # its descriptor may be another file's now: not read from
    with pytest.raises(ValueError):
        closed._read_at(infos[0].offset, infos[0].size)


@pytest.mark.parametrize("name", ("multi_process", "zoo"))
def test_a_report_file_read_at_offsets_finds_what_its_bytes_find(
    name: str, tmp_path: object
) -> None:
    """A plain file (read with ``os.pread``, its position left alone until the end) gives
    what its bytes in memory give, and is left at the walk's end, as a stream read through
    is; a file whose walk begins past its first byte, too."""
    from pathlib import Path

    data = _data(name)
    path = Path(str(tmp_path)) / "report.ncu-rep"
    path.write_bytes(b"other data" + data)
    expected = _facts(read_layout(io.BytesIO(data), name))
    with open(path, "rb") as fh:
        fh.seek(len(b"other data"))
        assert _facts(read_layout(fh, name)) == expected
        assert fh.tell() == len(b"other data") + len(data)
        assert fh.read() == b""
