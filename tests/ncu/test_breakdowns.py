"""A launch's Speed Of Light breakdowns (``detail._breakdowns``: the last launch's entries
compared first, then each text's parts remembered) are those split from its own values."""

from __future__ import annotations

import pytest

from kernelscope.kinds.ncu.model.detail import _breakdowns
from kernelscope.kinds.ncu.model.metrics import read_metric
from kernelscope.kinds.ncu.model.panes import SOL_BREAKDOWNS
from tests.ncu.in_turn import results_in_turn


@pytest.mark.parametrize("name", ["zoo", "many_launches", "gemm_sets_full", "multi_process"])
def test_breakdowns_in_turn_are_those_split_afresh(name: str) -> None:
    for kernel_id, result in results_in_turn(name):
        afresh = {}
        for breakdown in SOL_BREAKDOWNS:
            metric = read_metric(result, breakdown)
            if metric is not None and isinstance(metric.value, str) and metric.value:
                afresh[breakdown.removeprefix("breakdown:")] = tuple(
                    part for part in metric.value.split(",") if part)
        assert _breakdowns(result) == afresh, kernel_id
