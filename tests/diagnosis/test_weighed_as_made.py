"""A diagnosis weighed as it is made (``diagnose`` given the shares, as ``analyze`` makes each
kernel's once every share is known) is the one made alone and then weighed
(``with_time_share``), for shares that weigh differently (none, under 1 %, raising an info
flag, a family's); ``analyze`` gives the diagnoses the old path gave; and the guard rails of a
kernel without stall shares, the stall ones left unasked, are those every check gives."""

from __future__ import annotations

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import engine, guards
from kernelscope.kinds.ncu.analysis.diagnosis.engine import with_time_share
from kernelscope.kinds.ncu.analysis.diagnosis.result import Diagnosis, GuardRail
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS
from kernelscope.kinds.ncu.analysis.kernel_analysis import (
    ReportWeights,
    analyze,
    diagnose_summary,
    open_for_analysis,
)
from tests.conftest import NCU_SAMPLES
from tests.diagnosis.sample_kernels import REPORTS, first_summaries

SHARES: list[tuple[float | None, float | None, int]] = [
    (None, None, 1),
    (0.004, None, 1),
    (0.08, None, 1),
    (0.5, None, 1),
    (1.0, None, 1),
    (0.001, 0.004, 250),
    (0.0001, 0.9, 3),
    (None, 0.002, 2),
    (0.3, 0.3, 1),
]
"""(own share, family's share, family's launches) as ``with_time_share`` takes them."""


def _same(made: Diagnosis, weighed: Diagnosis) -> None:
    assert made == weighed and made.to_dict() == weighed.to_dict()
    assert [vars(f) for f in made.flags] == [vars(f) for f in weighed.flags]
    assert vars(made.bottleneck) == vars(weighed.bottleneck)


@pytest.mark.parametrize("name", [*REPORTS, "diag_pipe", "diag_sgemm"])
def test_weighed_as_made_is_made_then_weighed(name: str) -> None:
    raised = 0
    for summary in first_summaries(name):
        alone = diagnose_summary(summary)
        for shares in SHARES:
            made = diagnose_summary(summary, *shares)
            _same(made, with_time_share(alone, *shares))
            raised += sum(f.severity != f.found_severity for f in made.flags)
    assert raised  # some flag was weighed to another severity than its check found


@pytest.mark.parametrize("shares", SHARES)
def test_an_unmeasured_kernel_is_weighed_as_made_too(
    shares: tuple[float | None, float | None, int],
) -> None:
    own, family, launches = shares
    made = engine.diagnose({}, time_share=own, family_share=family, family_launches=launches)
    _same(made, with_time_share(engine.diagnose({}), *shares))


@pytest.mark.parametrize("name", ["many_launches", "small_family", "zoo"])
def test_analyze_gives_each_kernel_its_diagnosis_weighed(name: str) -> None:
    with open_for_analysis(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        analyzed = analyze(report)
        summaries = [report.summary(k) for k in range(report.kernel_count)]
    weights = ReportWeights.of(summaries)
    for kernel, summary in zip(analyzed.kernels, summaries, strict=True):
        _same(kernel.diagnosis, weights.weigh(diagnose_summary(summary), summary.id))


@pytest.mark.parametrize("name", REPORTS)
def test_the_stall_guard_rails_are_unasked_only_where_none_applies(name: str) -> None:
    asked = 0
    for summary in first_summaries(name):
        facts = engine._classified(summary.metrics, summary.sections, DEFAULT_THRESHOLDS)[1]
        every: dict[str, GuardRail] = {}
        for check in guards.CHECKS:
            rail = check(facts, DEFAULT_THRESHOLDS)
            if rail is not None:
                every[rail.id] = rail
        assert guards.guard_rails(facts, DEFAULT_THRESHOLDS) == every
        asked += bool(facts.stall_shares)
    assert asked or name != "gemm_sets_full"  # its Warp State section: the stall rails asked
