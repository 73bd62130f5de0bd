"""Summaries share their equal values, and only values printed the same count as equal."""

from __future__ import annotations

import math
import pickle

from kernelscope.parsers.kernel_analysis import open_for_analysis
from kernelscope.parsers.ncu.metrics import Metric
from kernelscope.parsers.ncu.model import KernelSummary
from kernelscope.parsers.ncu.shared_values import ValueSharer
from tests.conftest import NCU_SAMPLES

SMALL_FAMILY = NCU_SAMPLES / "small_family.ncu-rep.xz"  # 151 launches, read by children


def _summary(**metrics: object) -> KernelSummary:
    return KernelSummary(
        row={"id": 0, "name": "k"},
        metrics={name: Metric(name, value, "byte") for name, value in metrics.items()},  # type: ignore[arg-type]
        rules=(),
        sections=frozenset({"LaunchStats"}),
    )


def test_values_that_print_differently_are_not_shared():
    sharer = ValueSharer()
    first = sharer.summary(pickle.loads(pickle.dumps(_summary(a=1, b=0.0, c=math.nan))))
    second = sharer.summary(pickle.loads(pickle.dumps(_summary(a=1.0, b=-0.0, c=math.nan))))
    assert type(second.metrics["a"].value) is float  # 1.0 kept, not the first kernel's 1
    assert math.copysign(1.0, second.metrics["b"].value) == -1.0  # -0.0 kept
    assert first.metrics["a"] is not second.metrics["a"]
    assert first.metrics["c"] is second.metrics["c"]  # both NaN: printed the same
    assert first.sections is second.sections


def test_a_pass_shares_what_its_kernels_hold_alike():
    with open_for_analysis(SMALL_FAMILY) as report:
        # (a child sends its first kernel at once, then the rest of its chunk in one batch:
        # values are shared within a batch)
        passed = report.iter_summaries(processes=2, batch_seconds=10)
        summaries = sorted((s for b in passed for s in b), key=lambda s: s.id)
        alone = [report.summary(i) for i in (2, 3)]
    one, two = summaries[2], summaries[3]  # two launches of vec_mul_64blocks
    assert one.metrics["launch__grid_size"] is two.metrics["launch__grid_size"]
    assert [one.row, two.row] == [alone[0].row, alone[1].row]
    assert [one.metrics, two.metrics] == [alone[0].metrics, alone[1].metrics]
    assert [one.rules, two.rules] == [alone[0].rules, alone[1].rules]
