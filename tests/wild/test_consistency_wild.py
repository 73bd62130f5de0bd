"""The consistency rules of ``tests/diagnosis/consistency.py`` on every kernel of every
third-party kernel report of ``../shared/wild``, and the launch shape of each kernel whose
profiling failed against the raw page the ncu CLI printed ((0, 0, 0) there)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.diagnosis.consistency import assert_report_agrees
from tests.wild.conftest import require_wild, wild_files
from tests.wild.oracles import ncu_raw

NAMES = wild_files("ncu")


def _dims(text: str) -> list[int]:
    """``(32, 32, 1)`` as the raw page prints a launch's grid or block."""
    return [int(part) for part in text.strip("() ").split(",")]


@pytest.mark.parametrize("name", NAMES)
def test_every_sentence_agrees_with_its_evidence(
    wild_plain: Callable[[str, str], Path], name: str
) -> None:
    require_wild()
    doc = assert_report_agrees(wild_plain("ncu", name))
    raw = ncu_raw(name.removesuffix(".xz"))
    if raw is None:  # ncu crashed on this pre-2020 report and printed no raw page
        return
    # Older CLIs print the grid's threads as "Grid Size"; a failed launch is (0, 0, 0) in all.
    failed = [e for e in doc["kernels"] if "failed" in (e["unmeasured_reason"] or "")]
    for entry in failed:
        row = raw.rows[entry["id"]]
        assert entry["grid"] == _dims(row["Grid Size"]), (entry["id"], row["Grid Size"])
        assert entry["block"] == _dims(row["Block Size"]), (entry["id"], row["Block Size"])
