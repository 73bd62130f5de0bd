"""The binding's child (``sass.py``) outlives a closed report while it is small, so the next
report's SASS costs a question, not the binding's start; a large one ends with the report."""

from __future__ import annotations

import pytest

from kernelscope.kinds.ncu.model import NcuReport, sass
from tests.conftest import SAMPLES

ZOO_A = SAMPLES / "ncu" / "zoo_a.ncu-rep.xz"
pytestmark = pytest.mark.skipif(
    not sass.binding_available(), reason="ncu-report (the SASS disassembler) is not installed")


def _hot_texts(kernel_id: int) -> list[str]:
    """The hot instructions' SASS text of kernel ``kernel_id``, from a report opened anew."""
    with NcuReport(ZOO_A) as report:
        source = report.kernel_source(kernel_id)
    assert source is not None and source.disassembled
    return [row.text for row in source.sass if row.hot]


def test_a_small_child_answers_the_next_report_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sass, "KEEP_CHILD_MB", float("inf"))
    first = _hot_texts(4)
    child = sass._BINDING.child
    assert child is not None and child.poll() is None  # kept after the report closed
    assert _hot_texts(4) == first and all(t and t != "???" for t in first)
    assert sass._BINDING.child is child and child.poll() is None


def test_a_large_child_ends_with_its_report(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sass, "KEEP_CHILD_MB", 0)
    assert _hot_texts(4)
    assert sass._BINDING.child is None
