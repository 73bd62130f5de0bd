"""The engine's shortcuts give what the plain computation gives: the stall checks skipped at
once when a kernel has no stall shares (``flags.stalls_unread``) skip exactly as each check
would, the notes of the skipped checks, kept by kind of skip, are those made afresh, and a
kernel the model found measured (``measured=True``) is diagnosed as one read to find out."""

from __future__ import annotations

import math
from typing import Any

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import engine
from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG
from kernelscope.kinds.ncu.analysis.diagnosis.engine import diagnose
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts
from kernelscope.kinds.ncu.analysis.diagnosis.flags import (
    STALLS_MISSING,
    Found,
    Missing,
    checks,
    stalls_unread,
)
from kernelscope.kinds.ncu.analysis.diagnosis.notes import notes, skipped_notes
from kernelscope.kinds.ncu.analysis.diagnosis.result import GuardRail
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS
from kernelscope.kinds.ncu.analysis.kernel_analysis import open_for_analysis
from kernelscope.kinds.ncu.model.measured import unmeasured_reason
from tests.conftest import NCU_SAMPLES
from tests.diagnosis.sample_kernels import REPORTS, first_summaries


def _plain(facts: Facts, guards: dict[str, GuardRail]) -> tuple[list[Any], dict[str, Any]]:
    """Every check asked, in the catalog's order: (what each found, skipped by flag id)."""
    found: list[Any] = []
    skipped: dict[str, Any] = {}
    for flag_id, check in checks().items():
        outcome = check(facts, DEFAULT_THRESHOLDS, guards)
        if isinstance(outcome, Missing):
            skipped[flag_id] = outcome.sections
        elif isinstance(outcome, Found):
            found.append((flag_id, outcome.severity, outcome.evidence, outcome.detail))
    return found, skipped


@pytest.mark.parametrize("name", REPORTS)
def test_checked_flags_are_every_check_asked(name: str) -> None:
    unread = asked = 0
    for summary in first_summaries(name):
        _, facts, guards, _ = engine._classified(summary.metrics, summary.sections,
                                                 DEFAULT_THRESHOLDS)
        flags, skipped = engine._checked_flags(facts, DEFAULT_THRESHOLDS, guards, summary.rules)
        found, plain_skipped = _plain(facts, guards)
        assert list(skipped.items()) == list(plain_skipped.items())
        assert [(f["id"], str(f["severity"]), f["evidence"], f["detail"]) for f in flags] == [
            (i, s, e, d) for i, s, e, d in found
        ]
        if stalls_unread(facts):
            unread += 1
            stall_ids = [spec.id for spec in CATALOG.values() if spec.stall]
            assert all(skipped[i] == STALLS_MISSING.sections for i in stall_ids)
        else:
            asked += 1
    assert unread or asked
    if name == "many_launches":
        assert unread and not asked
    if name == "gemm_sets_full":
        assert asked


@pytest.mark.parametrize("name", REPORTS)
def test_kept_skip_notes_are_made_afresh(name: str) -> None:
    for summary in first_summaries(name):
        roofline, facts, guards, _ = engine._classified(summary.metrics, summary.sections,
                                                        DEFAULT_THRESHOLDS)
        _, skipped = engine._checked_flags(facts, DEFAULT_THRESHOLDS, guards, summary.rules)
        fresh = skipped_notes(skipped)
        for _ in range(2):  # made, then read back
            said = notes(summary.sections, skipped, summary.metrics, roofline)
            assert said[len(said) - len(fresh):] == fresh
        assert bool(fresh) == bool(skipped)


@pytest.mark.parametrize("name", REPORTS)
def test_the_models_measured_kernels_are_measured(name: str) -> None:
    """The model's ``unmeasured`` of a summary or a detail is that of its very metrics, so a
    diagnosis told ``measured`` is the one that reads them to find out."""
    with open_for_analysis(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        for kernel_id in range(min(report.kernel_count, 30)):
            for kernel in (report.summary(kernel_id), report.detail(kernel_id)):
                assert kernel.unmeasured == unmeasured_reason(kernel.metrics)
                told = diagnose(kernel.metrics, kernel.rules, set(kernel.sections),
                                unmeasured=kernel.unmeasured,
                                measured=kernel.unmeasured is None and bool(kernel.metrics))
                assert told == diagnose(kernel.metrics, kernel.rules, set(kernel.sections))


@pytest.mark.parametrize("name", REPORTS)
def test_a_launchs_flags_read_their_rules_once_as_each_alone(name: str) -> None:
    """The messages of every rule a flag names, read once for all of a launch's flags, give
    each flag the estimate its own rules' messages give (``ncu_speedup``), of a list
    summary's rules and of the same messages as a tuple."""
    estimated = 0
    for summary in first_summaries(name):
        _, facts, guards, _ = engine._classified(summary.metrics, summary.sections,
                                                 DEFAULT_THRESHOLDS)
        for rules in (summary.rules, tuple(summary.rules)):
            flags, _ = engine._checked_flags(facts, DEFAULT_THRESHOLDS, guards, rules)
            for flag in flags:
                alone = engine.ncu_speedup(CATALOG[flag["id"]], summary.rules)
                assert (flag["speedup"], flag["rule"]) == alone
                estimated += flag["speedup"] is not None
    assert estimated or name == "gemm_sets_full"


def test_a_family_launchs_step_zero_kept_by_its_shares_is_made_afresh() -> None:
    """Step 0 of a family's launch, kept by the shares and the count, is the one made with
    nothing kept: for repeated shares, and for those not kept (a zero of either sign, NaN,
    an int share), which print otherwise."""
    shares = [0.25, 0.25, 1e-5, None, 0.0, -0.0, math.nan, 1, 0.5]
    for own in shares:
        for family in (0.3, 0.3, 0.0, -0.0, 1, 0.004):
            for launches in (2, 2169):
                engine._FAMILY_STEPS.clear()
                plain = engine._step_zero(own, family, launches)
                for _ in range(2):  # made, then found kept
                    got = engine._step_zero(own, family, launches)
                    assert repr(got) == repr(plain)
    assert repr(engine._step_zero(0.0, 0.3, 5)) != repr(engine._step_zero(-0.0, 0.3, 5))
