"""The bulk reading of a launch's metrics (``Result.placed_entries``, ``metrics.read_metrics``'s
per-entry Metrics, ``Result.holding`` at once) gives what reading each name alone gives
(``read_metric``, ``Result.has``), in the same order, on real reports: the committed samples
here, the third-party ones in ``tests/wild/test_placed_reading_wild.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelscope.kinds.ncu.model.detail import section_reading
from kernelscope.kinds.ncu.model.measured import FAILED, NOT_COLLECTED, unmeasured_reason
from kernelscope.kinds.ncu.model.measured import _measured as measured_name
from kernelscope.kinds.ncu.model.metrics import (
    Metric,
    _plan,
    finite,
    read_metric,
    read_metrics,
)
from kernelscope.kinds.ncu.model.panes import pane_metric_names
from kernelscope.kinds.ncu.model.report import NcuReport
from kernelscope.kinds.ncu.model.summary_reader import ROW_METRICS
from tests.conftest import NCU_SAMPLES

KERNELS = 40
"""The launches read of each report (the first ones, then every so many): enough to repeat
a layout (the bulk reading) and to change it (the one-by-one reading)."""
SAMPLES = ("many_launches", "zoo", "gemm_sets_full", "multi_process", "range_replay",
           "torch_ops")


def _one_by_one(report: NcuReport, kernel_id: int, names: tuple[str, ...],
                labels: dict[str, str] | None) -> dict[str, Metric]:
    result = report._result(kernel_id)
    found = {}
    for name in dict.fromkeys(names):
        metric = read_metric(result, name, label=(labels or {}).get(name, ""))
        if metric is not None:
            found[name] = metric
    return found


def _kernel_ids(report: NcuReport) -> list[int]:
    count = report.kernel_count
    return sorted({*range(min(count, KERNELS // 2)), *range(0, count, max(1, count // 20))})


def _unmeasured_one_by_one(metrics: dict[str, Metric]) -> str | None:
    """``unmeasured_reason`` as it read the metrics: in order, the first measured one with a
    finite number answering."""
    saw_nan = False
    for name, metric in metrics.items():
        if not measured_name(name) or isinstance(metric.value, str):
            continue
        if finite(metric.value) is not None:
            return None
        saw_nan = True
    return FAILED if saw_nan else NOT_COLLECTED


def check_report(path: Path) -> int:
    """Compare the readings of the chosen launches; how many were read in bulk."""
    in_bulk = 0
    with NcuReport(path) as report:
        for kernel_id in _kernel_ids(report):
            result = report._result(kernel_id)
            reading = section_reading(result)
            headers = [header for _, header, _ in reading.panes]
            names = (*pane_metric_names(), *ROW_METRICS, *(n for h in headers for n in h))
            where = f"{path.name} kernel {kernel_id}"
            for labels in (reading.labels, None):
                expected = _one_by_one(report, kernel_id, names, labels)
                read = read_metrics(result, names, labels)
                assert list(read.items()) == list(expected.items()), where
                assert unmeasured_reason(read) == _unmeasured_one_by_one(read), where
            for header in headers:
                assert result.holding(header) == [n for n in header if result.has(n)], where
            in_bulk += result.placed_entries(_plan(result, names)) is not None
    return in_bulk


@pytest.mark.parametrize("name", SAMPLES)
def test_bulk_reading_equals_one_by_one_on_the_samples(name: str) -> None:
    in_bulk = check_report(NCU_SAMPLES / f"{name}.ncu-rep.xz")
    if name == "many_launches":  # one kernel launched again and again: read in bulk
        assert in_bulk >= KERNELS // 2
