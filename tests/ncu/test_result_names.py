"""The file walk reads each result's mangled name from the first bytes of its message."""

from __future__ import annotations

import pytest

from kernelscope.parsers.kernel_analysis import open_for_analysis
from kernelscope.parsers.ncu.container import first_field
from tests.conftest import ncu_sample_paths


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _text(number: int, value: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def test_the_field_is_found_past_others_of_every_wire_type():
    message = (
        _varint(1 << 3) + _varint(300)  # varint
        + _varint(2 << 3 | 1) + b"\0" * 8  # 64-bit
        + _varint(3 << 3 | 5) + b"\0" * 4  # 32-bit
        + _text(4, b"a source")
        + _text(5, b"_Z6kernelv")
        + _text(5, b"a second one")
    )
    assert first_field(message, 5) == b"_Z6kernelv"
    assert first_field(message, 1) == 300
    assert first_field(message, 6) is None


def test_a_field_cut_off_by_the_end_of_the_bytes_read_is_not_there():
    message = _text(4, b"x" * 10) + _text(5, b"_Z6kernelv")
    assert first_field(message[:-3], 5) is None
    assert first_field(b"\x80" * 12, 5) is None  # a varint that never ends
    assert first_field(_varint(5 << 3 | 3), 5) is None  # a wire type not in reports


@pytest.mark.parametrize("path", ncu_sample_paths()[:6], ids=lambda p: p.name)
def test_the_walk_names_each_kernel_as_ncu_report_does(path):
    with open_for_analysis(path) as report:
        walked = [r.mangled for r in report.layout.results]
        named = [report.summary(i).mangled for i in range(min(report.kernel_count, 20))]
    assert walked[: len(named)] == named
