"""docs/diagnosis.md documents every label, flag, guard rail and threshold, with its value."""

from __future__ import annotations

import dataclasses
import re

from kernelscope.parsers.diagnosis import CATALOG, DEFAULT_THRESHOLDS, FLAG_IDS, LABELS, guards
from tests.conftest import ROOT

DOC = (ROOT / "docs" / "diagnosis.md").read_text(encoding="utf-8")


def test_every_label_has_a_section() -> None:
    for label in LABELS:
        assert f"### {label}" in DOC, label


def test_every_flag_is_documented_with_its_level() -> None:
    for flag_id in FLAG_IDS:
        heading = next(
            line for line in DOC.splitlines() if line.startswith("### ") and flag_id in line
        )
        body = DOC[DOC.index(heading) :].split("\n### ")[0]
        level = CATALOG[flag_id].level
        assert f"Level {level}" in body or "Levels" in body, flag_id


def test_every_guard_rail_is_documented() -> None:
    ids = [v for k, v in vars(guards).items() if k.isupper() and isinstance(v, str)]
    assert len(ids) == 6
    for guard_id in ids:
        assert f"`{guard_id}`" in DOC, guard_id


def test_every_threshold_is_named() -> None:
    for field in dataclasses.fields(DEFAULT_THRESHOLDS):
        assert field.name in DOC, field.name


def test_documented_threshold_values_match_the_code() -> None:
    for name, value in re.findall(r"`(\w+)` = ([\d,.]+)", DOC):
        if hasattr(DEFAULT_THRESHOLDS, name):
            documented = float(value.rstrip(".").replace(",", ""))
            assert getattr(DEFAULT_THRESHOLDS, name) == documented, name
