"""A launch's Speed Of Light breakdowns (``detail._breakdowns``: the last launch's entries
compared first, then each text's parts remembered) are those split from its own values."""

from __future__ import annotations

import pytest

from kernelscope.kinds.ncu.model.detail import _breakdowns
from kernelscope.kinds.ncu.model.metrics import read_metric
from kernelscope.kinds.ncu.model.panes import SOL_BREAKDOWNS
from kernelscope.kinds.ncu.model.report import NcuReport
from tests.conftest import NCU_SAMPLES


@pytest.mark.parametrize("name", ["zoo", "many_launches", "gemm_sets_full", "multi_process"])
def test_breakdowns_in_turn_are_those_split_afresh(name: str) -> None:
    with NcuReport(NCU_SAMPLES / f"{name}.ncu-rep.xz") as report:
        ids = range(min(report.kernel_count, 30))
        for kernel_id in [*ids, *reversed(ids)]:
            result = report._result(kernel_id)
            afresh = {}
            for breakdown in SOL_BREAKDOWNS:
                metric = read_metric(result, breakdown)
                if metric is not None and isinstance(metric.value, str) and metric.value:
                    afresh[breakdown.removeprefix("breakdown:")] = tuple(
                        part for part in metric.value.split(",") if part)
            assert _breakdowns(result) == afresh, kernel_id
