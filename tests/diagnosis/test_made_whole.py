"""A kernel's facts are made with every field at once (``kept.made_whole``): the same facts
as ``Facts(**fields)``, as frozen, with the same derived values; a missing or an unknown
field is refused."""

from __future__ import annotations

import dataclasses

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts, gather
from kernelscope.kinds.ncu.analysis.diagnosis.kept import kept, made_whole
from kernelscope.kinds.ncu.analysis.diagnosis.values import Values
from kernelscope.kinds.ncu.analysis.kernel_analysis import open_for_analysis
from kernelscope.kinds.ncu.analysis.roofline.compute import compute_roofline
from tests.conftest import NCU_SAMPLES

DERIVED = [name for name, value in vars(Facts).items() if isinstance(value, kept)]


@pytest.mark.parametrize("name", ["zoo", "many_launches", "gemm_sets_full"])
def test_facts_made_whole_are_the_facts_init_makes(name: str) -> None:
    with open_for_analysis(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        for kernel_id in range(min(report.kernel_count, 30)):
            summary = report.summary(kernel_id)
            facts = gather(Values(summary.metrics, summary.sections),
                           compute_roofline(summary.metrics))
            fields = {f.name: getattr(facts, f.name) for f in dataclasses.fields(Facts)}
            by_init = Facts(**fields)
            assert facts == by_init and repr(facts) == repr(by_init)
            for derived in DERIVED:
                assert getattr(facts, derived) == getattr(Facts(**fields), derived)
            with pytest.raises(dataclasses.FrozenInstanceError):
                facts.grid = 1.0  # type: ignore[misc]


def test_a_missing_or_unknown_field_is_refused() -> None:
    fields = {f.name: None for f in dataclasses.fields(Facts)}
    made_whole(Facts, fields)
    with pytest.raises(TypeError, match="needs exactly its fields"):
        made_whole(Facts, {k: v for k, v in fields.items() if k != "grid"})
    with pytest.raises(TypeError, match="needs exactly its fields"):
        made_whole(Facts, {**fields, "gird": 1.0})
