"""What the JSON exports promise about their text, against ``json.dumps(..., indent=2)``."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st


def _indents(text: str) -> list[int]:
    return [len(line) - len(line.lstrip(" ")) for line in text.split("\n")]


def assert_same_document(text: str, expected: str) -> None:
    """``text`` holds the document ``expected`` (``json.dumps(..., indent=2)``'s text) holds:
    the same values in the same order, each line at the same indent, in ASCII; only the
    spelling of a scalar may differ (orjson writes ``0.00001`` where json writes ``1e-05``)."""
    assert json.dumps(json.loads(text), indent=2) == json.dumps(json.loads(expected), indent=2)
    assert _indents(text) == _indents(expected)
    assert text.isascii()


def json_values(max_leaves: int) -> st.SearchStrategy[Any]:
    """Any JSON value: scalars (floats with NaN and the infinities, which the exports write
    as null), and lists and objects of them, nested."""
    return st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                    max_size=3),
        max_leaves=max_leaves,
    )
