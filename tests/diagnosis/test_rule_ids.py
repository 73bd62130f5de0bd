"""A rule's id is written in its ``FlagSpec`` and in ``CHECKS``: every check has its spec and
every spec its check, so a rule is never half registered."""

from __future__ import annotations

from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG
from kernelscope.kinds.ncu.analysis.diagnosis.flags import CHECKS


def test_every_rule_has_its_spec_and_its_check() -> None:
    assert set(CHECKS) == set(CATALOG)
    assert all(CATALOG[flag_id].id == flag_id for flag_id in CATALOG)
