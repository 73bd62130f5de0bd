"""A diagnosis' JSON takes each evidence item's dict kept by the item (``written_evidence``):
the dict ``to_dict`` makes, one for every time the same item is written, never another
item's, and the diagnoses' dicts are those made item by item."""

from __future__ import annotations

import pytest

from kernelscope.core import findings
from kernelscope.core.findings import Evidence, written_evidence
from kernelscope.kinds.ncu.analysis.diagnosis import result, with_time_share
from tests.diagnosis.conftest import kernels_of


def test_an_item_is_written_as_its_dict_one_dict_for_each_item() -> None:
    item = Evidence("sol", "dram %", 81.5, ">=", 80.0, "%", "busy")
    again = Evidence("sol", "dram %", 81.5, ">=", 80.0, "%", "busy")
    assert written_evidence(item) == item.to_dict()
    assert written_evidence(item) is written_evidence(item)
    assert written_evidence(again) == item.to_dict()
    assert written_evidence(again) is not written_evidence(item)  # kept by identity


def test_a_full_memo_forgets_and_writes_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(findings._WRITTEN, "limit", 2)
    items = [Evidence("time", f"m{i}", float(i)) for i in range(5)]
    for item in items * 2:
        assert written_evidence(item) == item.to_dict()
    assert len(findings._WRITTEN) <= 2


@pytest.mark.parametrize("stem", ["zoo", "many_launches"])
def test_the_diagnoses_dicts_are_those_made_item_by_item(
    stem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    diagnoses = [with_time_share(k.diagnosis, share)
                 for k in kernels_of(stem) for share in (None, 0.004, 0.5)]
    kept = [d.to_dict() for d in diagnoses]
    monkeypatch.setattr(result, "written_evidence", Evidence.to_dict)
    assert kept == [d.to_dict() for d in diagnoses]
    assert any(d.flags and d.flags[0].evidence for d in diagnoses)
