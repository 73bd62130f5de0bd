"""The consistency rules of ``consistency.py`` on every kernel of every committed kernel report
(the third-party reports: ``tests/wild/test_consistency_wild.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import NCU_SAMPLES
from tests.diagnosis.consistency import assert_report_agrees

SAMPLES = sorted(NCU_SAMPLES.glob("*.ncu-rep.xz"))


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name.split(".")[0] for p in SAMPLES])
def test_every_sentence_agrees_with_its_evidence(path: Path) -> None:
    assert_report_agrees(path)
