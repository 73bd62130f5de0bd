"""What the JSON exports promise about their text, against ``json.dumps(..., indent=2)``."""

from __future__ import annotations

import json


def _indents(text: str) -> list[int]:
    return [len(line) - len(line.lstrip(" ")) for line in text.split("\n")]


def assert_same_document(text: str, expected: str) -> None:
    """``text`` holds the document ``expected`` (``json.dumps(..., indent=2)``'s text) holds:
    the same values in the same order, each line at the same indent, in ASCII; only the
    spelling of a scalar may differ (orjson writes ``0.00001`` where json writes ``1e-05``)."""
    assert json.dumps(json.loads(text), indent=2) == json.dumps(json.loads(expected), indent=2)
    assert _indents(text) == _indents(expected)
    assert text.isascii()
