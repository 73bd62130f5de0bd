"""The metric changes a diff keeps (by the names two dicts hold, and each change by the
identities of its two metrics) are the changes worked out afresh: those of the plain reading
below (every spec, both sides read through ``Metric.number``), for the pairs of two samples
read twice, for each pane, and for metrics that hold ints, NaN, infinity, text, a bool or
nothing, on either side."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pytest

from kernelscope.kinds.ncu.analysis.kernel_analysis import open_for_analysis
from kernelscope.kinds.ncu.analysis.metric_changes import (
    DIFF_METRICS,
    MetricChange,
    metric_changes,
)
from kernelscope.kinds.ncu.model.metrics import Metric
from tests.conftest import NCU_SAMPLES

_PANES = (None, *dict.fromkeys(m.pane for m in DIFF_METRICS), "no-such-pane")


def _plain(before: Mapping[str, Any], after: Mapping[str, Any], pane: str | None
           ) -> tuple[MetricChange, ...]:
    """Every spec of ``pane`` (or all) read on both sides, as the changes are defined."""

    def number(metrics: Mapping[str, Any], name: str) -> tuple[float | None, str]:
        metric = metrics.get(name)
        if metric is None:
            return None, ""
        value = metric.number
        return (value if value is not None and math.isfinite(value) else None), metric.unit

    out = []
    for spec in DIFF_METRICS:
        if pane is not None and spec.pane != pane:
            continue
        old, old_unit = number(before, spec.name)
        new, new_unit = number(after, spec.name)
        if old is None and new is None:
            continue
        out.append(MetricChange(spec.pane, spec.label, spec.name, new_unit or old_unit, old,
                                new, spec.higher_is_better))
    return tuple(out)


def _same(before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
    for pane in _PANES:
        plain = _plain(before, after, pane)
        for _ in range(2):  # made, then found kept
            got = metric_changes(before, after, pane)
            assert got == plain
            assert [repr(c) for c in got] == [repr(c) for c in plain]


@pytest.mark.parametrize(("old", "new"), [("many_launches", "zoo"), ("zoo", "gemm_sets_full")])
def test_kept_changes_of_sample_pairs_are_the_plain_ones(old: str, new: str) -> None:
    with (open_for_analysis(NCU_SAMPLES / f"{old}.ncu-rep.xz") as before,
          open_for_analysis(NCU_SAMPLES / f"{new}.ncu-rep.xz") as after):
        count = min(before.kernel_count, after.kernel_count, 25)
        for kernel_id in range(count):
            _same(before.summary(kernel_id).metrics, after.summary(kernel_id).metrics)
        assert count


def test_kept_changes_of_odd_values_are_the_plain_ones() -> None:
    duration, grid, dram = "gpu__time_duration.sum", "launch__grid_size", "dram__bytes_read.sum"
    odd = [
        {duration: Metric(duration, math.nan, "ns"), grid: Metric(grid, 3, "")},
        {duration: Metric(duration, 5.0, "ns"), grid: Metric(grid, True, "block")},
        {duration: Metric(duration, math.inf, "ns"), dram: Metric(dram, "text", "byte")},
        {duration: Metric(duration, -0.0, "ns"), grid: Metric(grid, 0.0, "block")},
        {duration: Metric(duration, 0.0, "ns"), grid: Metric(grid, 0, "block")},
        {dram: Metric(dram, None, "byte")},
        {},
    ]
    for before in odd:
        for after in odd:
            _same(before, after)
            _same(dict(before), dict(after))  # other dicts holding the same objects
    zero, minus = odd[4][duration], odd[3][duration]
    assert repr(metric_changes({duration: minus}, {duration: zero})[0].before) == "-0.0"
    assert repr(metric_changes({duration: zero}, {duration: minus})[0].before) == "0.0"
