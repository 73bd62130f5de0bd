"""The consistency rules of ``consistency.py`` on every kernel of every committed kernel report
(the third-party reports: ``tests/wild/test_consistency_wild.py``)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from tests.conftest import NCU_SAMPLES
from tests.diagnosis.consistency import assert_report_agrees, exported, violations

SAMPLES = sorted(NCU_SAMPLES.glob("*.ncu-rep.xz"))


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name.split(".")[0] for p in SAMPLES])
def test_every_sentence_agrees_with_its_evidence(path: Path) -> None:
    assert_report_agrees(path)


def test_a_coalescing_flag_on_local_traffic_is_caught() -> None:
    """The rule fails where it should: the zoo's strided gather with its coalescing evidence
    swapped for the spill kernel's local sectors, or quoting NCU's local access-pattern rule."""
    doc = exported(NCU_SAMPLES / "zoo.ncu-rep.xz")
    gather = next(e for e in doc["kernels"] if e["short_name"] == "uncoalesced_strided_gather")
    assert violations(doc, gather) == []
    flag = next(f for f in gather["flags"] if f["id"] == "uncoalesced-global-access")
    local = copy.deepcopy(gather)
    moved = next(f for f in local["flags"] if f["id"] == flag["id"])
    moved["evidence"][0]["metric"] = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"
    moved["ncu_rule"] = "MemoryCacheAccessPattern: L2 Local Load Access Pattern"
    found = violations(doc, local)
    assert any("not a global counter" in v for v in found)
    assert any("L2 Local Load Access Pattern" in v for v in found)
