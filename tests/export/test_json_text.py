"""``json_text.dumps`` and ``items`` (orjson, in C) write the document ``python_dumps`` and
``python_items`` write (``json.dumps(indent=2)``'s), at any depth, but for the spelling of a
scalar; what orjson refuses is written by ``python_dumps``."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kernelscope.export import json_text
from kernelscope.export.writer import joined
from tests.export.same_json import assert_same_document, json_values

values = json_values(max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(values, st.integers(min_value=0, max_value=4))
def test_dumps_writes_what_json_dumps_writes_at_any_depth(value, level):
    assert_same_document(json_text.dumps(value, level), json_text.python_dumps(value, level))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=3), values, max_size=4), st.integers(0, 3))
def test_items_are_what_json_dumps_writes_inside_the_braces(value, level):
    members = json_text.items(value, level)
    expected = json_text.python_items(value, level)
    assert_same_document(json_text.wrap((members,), level), json_text.wrap((expected,), level))


def test_what_orjson_refuses_or_spells_otherwise_is_written_as_json_writes_it():
    """An integer past 64 bits and a lone surrogate (orjson refuses them) are written by
    ``python_dumps``; non-ASCII text is escaped as ``json.dumps`` escapes it; NaN is null."""
    for value in ({"n": 2**70}, ["\ud800"], {"a": [1, {"b": 2**64}]}):
        assert json_text.dumps(value, 1) == json_text.python_dumps(value, 1)
    text = {"name": "café 😀", "ä": ["ü"]}
    assert json_text.dumps(text) == json.dumps(text, indent=2)
    assert json_text.dumps({"x": float("nan"), "y": [float("inf")]}) == json.dumps(
        {"x": None, "y": [None]}, indent=2)
    assert json_text.items({}, 2) == ""
    assert json_text.items({"a": {"b": [1, 2]}}, 1) == (
        '"a": {\n      "b": [\n        1,\n        2\n      ]\n    }')


scalar_values = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)


@settings(max_examples=300, deadline=None)
@given(st.lists(scalar_values, max_size=8))
def test_scalars_are_each_value_as_dumps_writes_it(values):
    """One call encodes a list of scalars (orjson's where none is text, an integer past 64
    bits or a NaN included): each piece is its value's JSON, ASCII, NaN and infinities null."""
    pieces = json_text.scalars(values)
    assert len(pieces) == len(values)
    for piece, value in zip(pieces, values, strict=True):
        assert piece.isascii()
        assert_same_document(piece, json_text.python_dumps(value))


def test_scalars_spell_numbers_as_orjson_does_unless_orjson_refuses_one():
    """A list of scalars goes through orjson (its spelling of floats, text escaped to ASCII
    as json escapes it, commas inside text kept); an integer past 64 bits, which orjson
    refuses, sends the whole list through the standard library's encoder."""
    assert json_text.scalars([1e-05, -0.0, float("nan"), True, None, 3]) == [
        "0.00001", "-0.0", "null", "true", "null", "3"]
    assert json_text.scalars(["café, à\n", 1e-05]) == ['"caf\\u00e9, \\u00e0\\n"', "0.00001"]
    assert json_text.scalars([1e-05, 2**70]) == ["1e-05", "1180591620717411303424"]


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=3), values, max_size=4), st.integers(0, 3))
def test_closing_pieces_follow_other_members_as_wrap_joins_them(value, level):
    """A dict's members after other members, orjson's indentation sliced from the dict
    nested ``level`` lists deep, are what ``wrap`` joins from ``items`` (text outside ASCII
    escaped, what orjson refuses written by ``python_dumps``)."""
    own = f'"id": 5,\n{json_text.INDENT * (level + 1)}"x": [\n{json_text.INDENT * (level + 2)}1'
    own += f"\n{json_text.INDENT * (level + 1)}]"
    opened = "{\n" + json_text.INDENT * (level + 1) + own
    expected = json_text.wrap((own, json_text.items(value, level)), level)
    assert opened + joined(json_text.closing_pieces(value, level)) == expected


def test_closing_pieces_of_what_orjson_refuses_or_escapes():
    """An integer past 64 bits, a lone surrogate (``python_dumps``'s), text outside ASCII
    (escaped), an empty dict (the brace alone)."""
    for value in ({"n": 2**70}, {"s": "\ud800", "t": [1]}, {"é": "café 😀"}, {}, {"a": {}}):
        for level in (0, 1, 2):
            opened = "{\n" + json_text.INDENT * (level + 1) + '"id": 1'
            assert opened + joined(json_text.closing_pieces(value, level)) == json_text.wrap(
                ('"id": 1', json_text.items(value, level)), level)
