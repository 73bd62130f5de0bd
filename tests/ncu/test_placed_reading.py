"""The bulk reading of a launch's metrics (``Result.placed_entries``, ``metrics.read_metrics``'s
per-entry Metrics, ``Result.holding`` and ``Result.holding_each`` at once, ``raw_values``)
gives what reading each name alone gives (``read_metric``, ``Result.has``), in the same order,
and what ``build_detail``, ``section_reading``, ``launch_dims`` and ``unmeasured_reason``
remember gives what working it out again gives, on real reports: the committed samples here,
the third-party ones in ``tests/wild/test_placed_reading_wild.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelscope.kinds.ncu.model.detail import (
    _read_sections,
    build_detail,
    section_reading,
)
from kernelscope.kinds.ncu.model.file_format.result import Result
from kernelscope.kinds.ncu.model.measured import FAILED, NOT_COLLECTED, unmeasured_reason
from kernelscope.kinds.ncu.model.measured import _measured as measured_name
from kernelscope.kinds.ncu.model.metrics import (
    Metric,
    _plan,
    finite,
    raw_values,
    read_metric,
    read_metrics,
)
from kernelscope.kinds.ncu.model.model import _launch_dims, launch_dims
from kernelscope.kinds.ncu.model.panes import SOL_BREAKDOWNS, pane_metric_names
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


def _same(read: dict[str, Metric], expected: dict[str, Metric]) -> bool:
    """The same metrics in the same order, NaN equal to NaN and 1 unequal to 1.0 (the text
    of each, which writes a float's every digit)."""
    return repr(list(read.items())) == repr(list(expected.items()))


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


def _check_detail(result: Result, kernel_id: int, tables: bool, where: str) -> None:
    """``build_detail``'s metrics (the names it reads worked out once per report for each
    section reading, held header metrics and breakdowns) as reading the names worked out for
    the launch alone gives them."""
    detail = build_detail(result, kernel_id, 0, kernel_id, ("k", "k", "k"), ("extra",),
                          curves=False, tables=tables)
    reading = section_reading(result)
    wanted = dict.fromkeys((*pane_metric_names(), "extra"))
    section_metrics, stalls = {}, []
    for ident, header, stall_names in reading.panes:
        if tables:
            section_metrics[ident] = tuple(n for n in header if result.has(n))
            wanted.update(dict.fromkeys(n for n in section_metrics[ident] if n not in wanted))
        stalls += stall_names
        wanted.update(dict.fromkeys(n for n in stall_names if n not in wanted))
    for parts in detail.breakdowns.values():
        wanted.update(dict.fromkeys(n for n in parts if n not in wanted))
    expected = read_metrics(result, tuple(wanted), reading.labels if tables else None)
    assert _same(detail.metrics, expected), where
    assert detail.section_metrics == section_metrics, where
    assert detail.stall_reasons == tuple(stalls), where


def check_report(path: Path) -> int:
    """Compare the readings of the chosen launches; how many were read in bulk."""
    in_bulk = 0
    with NcuReport(path) as report:
        for kernel_id in _kernel_ids(report):
            result = report._result(kernel_id)
            reading = section_reading(result)
            assert reading == _read_sections(result.sections()), path.name
            headers = [header for _, header, _ in reading.panes]
            names = (*pane_metric_names(), *ROW_METRICS, *(n for h in headers for n in h))
            where = f"{path.name} kernel {kernel_id}"
            for labels in (reading.labels, None):
                expected = _one_by_one(report, kernel_id, names, labels)
                read = read_metrics(result, names, labels)
                assert _same(read, expected), where
                assert unmeasured_reason(read) == _unmeasured_one_by_one(read), where
                assert launch_dims(read) == _launch_dims(read), where
            assert raw_values(result, SOL_BREAKDOWNS) == [
                (name, m.value) for name in SOL_BREAKDOWNS
                if (m := read_metric(result, name)) is not None], where
            for header in headers:
                assert result.holding(header) == [n for n in header if result.has(n)], where
            assert reading.headers == tuple(headers), where
            assert result.holding_each(reading.headers) == tuple(
                tuple(n for n in header if result.has(n)) for header in headers), where
            for tables in (True, False):
                _check_detail(result, kernel_id, tables, where)
            in_bulk += result.placed_entries(_plan(result, names)) is not None
    return in_bulk


@pytest.mark.parametrize("name", SAMPLES)
def test_bulk_reading_equals_one_by_one_on_the_samples(name: str) -> None:
    in_bulk = check_report(NCU_SAMPLES / f"{name}.ncu-rep.xz")
    if name == "many_launches":  # one kernel launched again and again: read in bulk
        assert in_bulk >= KERNELS // 2
