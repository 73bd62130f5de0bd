"""An export's pieces may be bytes (orjson's, as it wrote them) beside text: a file gets what
a file opened for text would, and the text of the pieces is theirs decoded; ``json_text``
indents at a depth by nesting the value in lists for orjson, the text indented again."""

from __future__ import annotations

import io
import os
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from kernelscope.export import json_text
from kernelscope.export.writer import Rendered, joined, write_text
from tests.export.same_json import json_values

values = json_values(max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(values, st.integers(min_value=0, max_value=4))
def test_dumps_at_a_depth_is_the_text_at_depth_zero_indented_again(value, level):
    expected = json_text.dumps(value).replace("\n", "\n" + json_text.INDENT * level)
    assert json_text.dumps(value, level) == expected


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=3), values, min_size=1, max_size=4),
       st.integers(0, 3))
def test_items_are_the_dict_text_without_its_braces(value, level):
    text = json_text.dumps(value, level)
    inside = text[len(json_text.INDENT) * (level + 1) + 2 : -(len(json_text.INDENT) * level + 2)]
    assert json_text.items(value, level) == inside


def test_bytes_pieces_are_written_as_a_text_file_writes_their_text(tmp_path):
    """Text (a lone surrogate: a backslash escape; text outside ASCII: UTF-8), bytes and a
    view of bytes, in one file, as ``open(path, "w")`` writes their joined text."""
    data = b'[\n  {"a": 1}\n]'
    pieces = ['{"k": "caf\u00e9 \udcff",\n', b'"b": 2,\n', memoryview(data)[4:-2], "\n}\n"]
    expected = tmp_path / "expected.txt"
    with open(expected, "w", encoding="utf-8", errors="backslashreplace") as f:
        f.write(joined(pieces))
    out = write_text(Rendered("", pieces=iter(pieces)), tmp_path / "out.txt", inputs=())
    assert out.read_bytes() == expected.read_bytes()
    assert joined(pieces) == '{"k": "caf\u00e9 \udcff",\n"b": 2,\n{"a": 1}\n}\n'
    stream = io.StringIO()
    Rendered("", pieces=iter(pieces)).write_to(stream)
    assert stream.getvalue() == joined(pieces)
    assert Rendered("", pieces=iter(pieces)).full_text() == joined(pieces)


def test_a_platform_with_other_line_ends_gets_them_in_every_piece(tmp_path, monkeypatch):
    pieces = ["{\n", b'  "a": [\n', memoryview(b"    1\n  ]\n}\n")]
    expected = tmp_path / "expected.txt"
    with open(expected, "w", encoding="utf-8", newline="\r\n") as f:
        f.write(joined(pieces))
    monkeypatch.setattr(os, "linesep", "\r\n")
    out = write_text(Rendered("", pieces=iter(pieces)), tmp_path / "out.txt", inputs=())
    assert out.read_bytes() == expected.read_bytes()


def _written_as_stdout(path, monkeypatch, pieces, encoding):
    """What ``write_to`` writes with ``path`` opened for text as standard output."""
    with open(path, "w", encoding=encoding) as out:
        monkeypatch.setattr(sys, "stdout", out)
        out.write("before ")  # text already waiting in the stream goes first
        Rendered("", pieces=iter(pieces)).write_to(out)
        out.write(" after")
    return path.read_bytes()


def test_standard_output_in_utf8_gets_the_bytes_pieces_as_they_are(tmp_path, monkeypatch):
    """Standard output to a file that writes UTF-8: text and bytes pieces written into the
    file under it, as the stream would write their joined text."""
    pieces = ['{"k": "caf\u00e9",\n', b'"b": 2,\n', memoryview(b'[\n  {"a": 1}\n]')[4:-2], "}"]
    written = _written_as_stdout(tmp_path / "out.txt", monkeypatch, pieces, "utf-8")
    assert written == ("before " + joined(pieces) + " after").encode()


def test_standard_output_in_another_encoding_is_written_as_text(tmp_path, monkeypatch):
    pieces = ['{"k": "caf\u00e9",\n', b'"b": 2\n', "}"]
    written = _written_as_stdout(tmp_path / "out.txt", monkeypatch, pieces, "latin-1")
    assert written == ("before " + joined(pieces) + " after").encode("latin-1")
