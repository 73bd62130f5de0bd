"""docs/diagnosis.md documents every label, flag, guard rail and threshold, with its value."""

from __future__ import annotations

import dataclasses
import re

from kernelscope.kinds.ncu.analysis.diagnosis import (
    CATALOG,
    DEFAULT_THRESHOLDS,
    FLAG_IDS,
    LABELS,
    guards,
)
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import STEPS
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
    assert len(ids) == len(guards.CHECKS)
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


def test_every_guard_rail_in_the_code_is_in_the_table() -> None:
    ids = {g.id for g in _all_guards()}
    table = {m for m in re.findall(r"^\| `([\w-]+)` \|", DOC, flags=re.M)}
    assert ids <= table, ids - table


def _all_guards() -> list:
    """Every guard rail that fires on some sample kernel (a check that never fires would not
    be caught by the id listing alone)."""
    from tests.diagnosis.conftest import kernels_of

    seen = {}
    for stem in ("zoo_a", "zoo", "torch_ops", "many_launches", "join_kernels", "small_family"):
        for k in kernels_of(stem):
            for g in k.diagnosis.guard_rails:
                seen.setdefault(g.id, g)
    return list(seen.values())


def test_each_flag_is_documented_at_its_catalog_step() -> None:
    for flag_id, spec in CATALOG.items():
        heading = next(
            line for line in DOC.splitlines() if line.startswith("### ") and flag_id in line
        )
        body = DOC[DOC.index(heading) :].split("\n### ")[0]
        assert f"step {spec.step}" in body, (flag_id, spec.step)


def test_the_verdict_chain_is_documented_in_the_code_order() -> None:
    chain = " → ".join(STEPS)
    assert chain in DOC


def test_the_deciding_flags_are_documented() -> None:
    from tests.diagnosis.conftest import kernels_of

    decided = {
        k.diagnosis.bottleneck.label: k.diagnosis.bottleneck.decided_by
        for stem in ("zoo_a", "zoo", "torch_ops", "many_launches", "histogram")
        for k in kernels_of(stem)
        if k.diagnosis.bottleneck.decided_by
    }
    verdict = DOC[DOC.index("### Verdict order") :].split("\n## ")[0]
    for label, flag_id in decided.items():
        assert f"`{flag_id}` for `{label}`" in verdict or (
            f"`{flag_id}`" in verdict and f"`{label}`" in verdict
        ), (label, flag_id)


def test_derived_values_named_in_the_doc_exist() -> None:
    from kernelscope.kinds.ncu.analysis.diagnosis import derived

    part = DOC[DOC.index("## One home for derived values") :].split("\n## ")[0]
    named = re.findall(r"`([a-z_]+)`", part)
    functions = [name for name in named if callable(getattr(derived, name, None))]
    assert len(functions) >= 10
    for name in named:
        if name in ("fills_gpu", "tail_loss") or name.endswith(("_pct", "_ideal", "_high")):
            continue
        if hasattr(DEFAULT_THRESHOLDS, name):
            continue
        assert hasattr(derived, name), name


def test_the_verified_table_matches_the_labels_of_those_kernels() -> None:
    from tests.diagnosis.conftest import find

    table = DOC[DOC.index("| label | real kernels") :].split("\n\n")[0]
    checked = 0
    for line in table.splitlines()[2:]:
        label, kernels = (c.strip() for c in line.strip("|").split("|"))
        assert label in LABELS, label
        for part in kernels.split(";"):
            if ":" not in part:
                continue
            samples, names = part.split(":", 1)
            for stem in (s.strip() for s in samples.split(",")):
                for name in re.findall(r"`([^`]+)`", names):
                    if name.startswith(("atomicAdd", "_")):
                        continue
                    k = find(stem, name)
                    assert k.diagnosis.label == label, (stem, name, k.diagnosis.label)
                    checked += 1
    assert checked > 40
