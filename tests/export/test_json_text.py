"""``json_text.dumps`` and ``items`` (orjson, in C) write the document ``python_dumps`` and
``python_items`` write (``json.dumps(indent=2)``'s), at any depth, but for the spelling of a
scalar; what orjson refuses is written by ``python_dumps``."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kernelscope.export import json_text
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
