"""The consistency rules of ``consistency.py`` on every kernel of every committed kernel report
(the third-party reports: ``tests/wild/test_consistency_wild.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import NCU_SAMPLES
from tests.diagnosis.consistency import exported, violations

SAMPLES = sorted(NCU_SAMPLES.glob("*.ncu-rep.xz"))


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name.split(".")[0] for p in SAMPLES])
def test_every_sentence_agrees_with_its_evidence(path: Path) -> None:
    doc = exported(path)
    assert doc["kernels"]
    found = [
        f"ID {entry['id']} {entry['short_name']}: {'; '.join(missed)}"
        for entry in doc["kernels"]
        if (missed := violations(doc, entry))
    ]
    assert not found, "\n".join(found[:20])
