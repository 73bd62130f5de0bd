"""A kernel's facts are made with every field at once (``kept.made_whole``): the same facts
as ``Facts(**fields)``, as frozen, with the same derived values; a missing or an unknown
field is refused. So are its evidence (``evidence.ev``) and its flags: the same objects as
their classes' ``__init__`` makes."""

from __future__ import annotations

import dataclasses

import pytest

from kernelscope.core.findings import Evidence, Finding
from kernelscope.core.kept import fields_at_once, kept, made_whole
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import ev
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts, gather
from kernelscope.kinds.ncu.analysis.diagnosis.result import Bottleneck, GuardRail
from kernelscope.kinds.ncu.analysis.diagnosis.values import Values
from kernelscope.kinds.ncu.analysis.kernel_analysis import diagnose_summary, open_for_analysis
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


def _same_as_init(made: object, cls: type) -> None:
    fields = {f.name: getattr(made, f.name) for f in dataclasses.fields(cls)}
    by_init = cls(**fields)
    assert type(made) is cls and made == by_init
    if cls is Evidence:  # (a finding holds a dict: unhashable either way)
        assert hash(made) == hash(by_init)
    assert repr(made) == repr(by_init) and list(vars(made).items()) == list(vars(by_init).items())


@pytest.mark.parametrize("name", ["zoo", "many_launches", "gemm_sets_full"])
def test_evidence_and_flags_are_what_their_init_makes(name: str) -> None:
    checked = 0
    with open_for_analysis(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        for kernel_id in range(min(report.kernel_count, 30)):
            summary = report.summary(kernel_id)
            for diagnosis in (diagnose_summary(summary), diagnose_summary(summary, 0.3),
                              diagnose_summary(summary, 0.001, 0.004, 5)):
                for flag in diagnosis.flags:  # handed their fields, weighed or not
                    _same_as_init(flag, Finding)
                    with pytest.raises(dataclasses.FrozenInstanceError):
                        flag.level = 0  # type: ignore[misc]
                _same_as_generated(diagnosis.bottleneck, Bottleneck)
                for rail in diagnosis.guard_rails:
                    _same_as_generated(rail, GuardRail)
            for evidence in (e for f in diagnosis.flags for e in f.evidence):
                _same_as_init(evidence, Evidence)
                checked += 1
    assert checked > 0
    made = ev("sol", "sm__throughput", 12.5, ">=", 60.0, "%", note="n")
    _same_as_init(made, Evidence)
    assert ev("sol", "x", None) == Evidence("sol", "x", None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.value = 1.0  # type: ignore[misc]


def _same_as_generated(made: object, cls: type) -> None:
    """``made`` is what the dataclass's generated ``__init__`` makes of its fields (each set
    through ``object.__setattr__``, in order), which ``Bottleneck`` and ``GuardRail`` write
    at once instead."""
    generated = object.__new__(cls)
    for f in dataclasses.fields(cls):
        object.__setattr__(generated, f.name, getattr(made, f.name))
    assert type(made) is cls and made == generated and hash(made) == hash(generated)
    assert repr(made) == repr(generated)
    assert list(vars(made).items()) == list(vars(generated).items())
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.evidence = ()  # type: ignore[attr-defined]


def test_bottleneck_and_guard_rail_take_what_their_dataclass_takes() -> None:
    """Their ``__init__`` (``kept.fields_at_once``) takes the fields as the generated one
    would: in order, by name, with the same defaults (``dataclasses.replace`` remakes them
    so), and refuses what it refuses."""
    e = ev("sol", "x", 1.0)
    for made in (Bottleneck("l", "s"), Bottleneck("l", "s", (e,), "f", ("Sec",)),
                 Bottleneck(label="l", summary="s", collect=("Sec",)), GuardRail("g", "t"),
                 GuardRail(id="g", text="t", evidence=(e,))):
        _same_as_generated(made, type(made))
    assert Bottleneck("l", "s").evidence == () and Bottleneck("l", "s").collect == ()
    assert [f.default for f in dataclasses.fields(Bottleneck)][2:] == [(), "", ()]
    assert dataclasses.replace(Bottleneck("l", "s"), decided_by="f") == Bottleneck("l", "s",
                                                                                 (), "f")
    assert dataclasses.replace(GuardRail("g", "t"), evidence=(e,)) == GuardRail("g", "t", (e,))
    for wrong in (lambda: Bottleneck("l"), lambda: GuardRail("g", "t", (), "x"),
                  lambda: GuardRail("g", "t", colour="red")):
        with pytest.raises(TypeError):
            wrong()


def test_fields_at_once_takes_only_plain_dataclasses() -> None:
    @dataclasses.dataclass(frozen=True)
    class Listed:
        items: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True)
    class Checked:
        value: int

        def __post_init__(self) -> None:
            assert self.value >= 0

    for cls in (Listed, Checked):
        with pytest.raises(TypeError):
            fields_at_once(cls)

