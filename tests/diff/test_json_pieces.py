"""The diff's JSON is encoded a kernel pair at a time, and the pieces make the document
``json.dumps(json_safe(build_diff_document(diff)), indent=2)`` writes (but for the spelling of
a scalar: ``tests/export/same_json.py``)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kernelscope.core.jsonsafe import json_safe
from kernelscope.export import json_text
from kernelscope.kinds.diff.export.diff_json import build_diff_document, diff_json_pieces
from tests.export.same_json import assert_same_document, json_values


def _whole(diff) -> str:  # type: ignore[no-untyped-def]
    return json.dumps(json_safe(build_diff_document(diff)), indent=2) + "\n"


def test_the_pieces_of_a_kernel_diff_are_its_document(kernel_diff):
    diff = kernel_diff("gemm_naive", "gemm_wmma", pairs=(("gemm_naive", "gemm_wmma"),))
    pieces = list(diff_json_pieces(diff))
    assert_same_document("".join(pieces), _whole(diff))
    assert len(pieces) >= len(diff.pairs) > 0


def test_the_pieces_of_a_timeline_diff_are_its_document(graph_diff):
    assert_same_document("".join(diff_json_pieces(graph_diff)), _whole(graph_diff))


values = json_values(max_leaves=10)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=4), values, max_size=4), st.lists(values, max_size=4))
def test_document_pieces_write_the_document_json_dumps_writes(doc, lazy_list):
    full = {**doc, "pairs": lazy_list}
    placeholder = {**doc, "pairs": []}
    text = "".join(json_text.document_pieces(placeholder, {"pairs": iter(lazy_list)}))
    assert_same_document(text, json.dumps(json_safe(full), indent=2))
