"""Every third-party kernel report in ``../shared/wild/ncu`` (Nsight Compute 2019 to 2025,
Pascal to Hopper) against what ``ncu --import --page raw --print-units base`` printed: the
kernels and their processes, every metric kernelscope reads, and kernels without
measurements shown as such."""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from kernelscope.export.summary import print_summary
from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.ncu.analysis.kernel_analysis import (
    AnalyzedReport,
    analyze,
    open_for_analysis,
)
from kernelscope.kinds.ncu.model.legacy import old_names
from tests.exports import export_json, export_text
from tests.ncu.oracle import matches_print
from tests.wild.conftest import provenance, wild_files
from tests.wild.oracles import ncu_raw

NAMES = wild_files("ncu")
# The summary's rows of the families no launch of which was measured: the IDs cell, and how
# the row starts (IDs, kernel, launches).
UNMEASURED_ROWS = {
    "AveryClapp__ESMM-Research__ve22c00d__profile.ncu-rep.xz": {
        "3": "3   | vectorized_blocktiling |        1 | not measured",
    },
    "evozone96__matrixMul__profile.nsight-cuprof-report.xz": {
        "0–6 step 2": "0–6 step 2 | matrixMulCUDA<int=32>     |        4 | not measured",
        "1–7 step 2": "1–7 step 2 | matrixMulCUDA_int<int=32> |        4 | not measured",
    },
    "skycs97__darknet__profile.nsight-cuprof-report.xz": {
        "0–6": "0–6 | fill_kernel |        7 | not measured",
    },
}


@cache
def _analyzed(path: str) -> AnalyzedReport:
    return analyze(open_for_analysis(path))


@pytest.fixture
def analyzed(wild_plain: Callable[[str, str], Path], name: str) -> AnalyzedReport:
    return _analyzed(str(wild_plain("ncu", name)))


def _overflowed(value: object, text: str) -> bool:
    """A counter that overflowed (past 2^64, or NaN derived from one): ncu 2025.3 prints 0 or
    nan, ncu_report 2026.3 the stored double (a pre-2020 report's atomic-traffic counters;
    kernelscope shows none of them)."""
    return isinstance(value, float) and not value < 2**64 and text.strip() in ("0", "nan")


def _stem(name: str) -> str:
    return name.removesuffix(".xz")


def _oracle_column(row: dict[str, str], name: str) -> str | None:
    """The raw page's column for kernelscope's metric ``name`` (its old name in a pre-2020
    report)."""
    for candidate in (name, *old_names(name)):
        if candidate in row:
            return candidate
    return None


def _equal(value: object, text: str) -> bool:
    if isinstance(value, str):
        return value == text
    assert isinstance(value, (int, float))
    if math.isnan(float(value)):
        return text.strip().lower() in ("nan", "n/a", "")
    return matches_print(float(value), text)


@pytest.mark.parametrize("name", NAMES)
def test_kernels_processes_and_device_match_the_raw_page(analyzed, name) -> None:
    raw = ncu_raw(_stem(name))
    report = analyzed.report
    if raw is None:  # ncu itself crashed on this pre-2020 report
        assert report.kernel_count > 0
        return
    assert report.kernel_count == len(raw.rows)
    for k in analyzed.kernels:
        row = raw.rows[k.id]
        summary = k.summary.row
        # ncu's demangler prints nested anonymous namespaces its own way: compare the
        # function's name, and the whole demangled name where it has no namespace.
        assert str(summary["name"]) in row["Kernel Name"]
        if "::" not in row["Kernel Name"]:
            assert summary["demangled"] == row["Kernel Name"]
        assert summary["pid"] == int(row["Process ID"])
        assert summary["process"] == row["Process Name"]
        assert report.layout.results[k.id].process.host == row["Host Name"]
    first = raw.rows[0]
    if "device__attribute_display_name" in first:
        assert report.device.name == first["device__attribute_display_name"]
    assert report.device.compute_capability == first["CC"]


@pytest.mark.parametrize("name", NAMES)
def test_every_metric_read_equals_the_raw_page(analyzed, name) -> None:
    raw = ncu_raw(_stem(name))
    report = analyzed.report
    if raw is None:  # ncu crashed on this pre-2020 report and printed no raw page
        for kernel_id in range(report.kernel_count):
            assert report.detail(kernel_id).metrics
        return
    compared = 0
    for kernel_id, row in raw.rows.items():
        detail = report.detail(kernel_id)
        for metric_name, metric in detail.metrics.items():
            column = _oracle_column(row, metric_name)
            if column is None:
                assert metric_name.startswith("breakdown:"), (kernel_id, metric_name)
                continue
            assert _equal(metric.value, row[column]), (kernel_id, metric_name, metric.value)
            compared += 1
    for metric_name, metric in report.all_metrics(0).items():  # everything the report holds
        if metric_name in raw.rows[0] and _overflowed(metric.value, raw.rows[0][metric_name]):
            continue
        if metric_name in raw.rows[0] and not isinstance(metric.value, str):
            assert _equal(metric.value, raw.rows[0][metric_name]), (metric_name, metric.value)
            compared += 1
    assert compared > 50


def _no_measurement_words(line: str) -> list[str]:
    return [w for w in ("nan", " 0 ns", "balanced") if w in line.lower()]


@pytest.mark.parametrize("name", NAMES)
def test_kernels_without_measurements_are_shown_as_such(analyzed, name, wild_plain) -> None:
    path = wild_plain("ncu", name)
    unmeasured = [k for k in analyzed.kernels if not k.summary.measured]
    for k in unmeasured:
        assert k.diagnosis.label == "undetermined"
        assert k.diagnosis.bottleneck.summary.endswith(".")
        assert k.time_share is None and k.diagnosis.flags == ()
    measured = [k.duration_ns for k in analyzed.kernels if k.summary.measured]
    assert analyzed.total_ns == pytest.approx(sum(d for d in measured if d is not None))
    assert all(k.time_share is not None for k in analyzed.kernels if k.summary.measured
               and k.duration_ns and analyzed.total_ns)
    out = io.StringIO()
    print_summary(path, file=out)
    text = out.getvalue()
    assert "nan" not in text.lower()
    rows = {line.split("|")[0].strip(): line for line in text.splitlines() if "|" in line}
    # A family with a measured launch shows its median measured launch; the others:
    never_measured = set()
    for k in unmeasured:
        family = analyzed.family(k.id)
        assert family is not None
        if not any(analyzed.kernel(i).summary.measured for i in family.ids):
            never_measured.add(family.ids)
    expected = UNMEASURED_ROWS.get(name, {})
    assert len(expected) == len(never_measured), (name, sorted(never_measured))
    for ids_cell, start in expected.items():
        line = rows[ids_cell]
        assert line.startswith(start), line
        assert "not measured" in line and "undetermined" in line
        assert not _no_measurement_words(line), line
    if unmeasured and len(unmeasured) == len(analyzed.kernels):
        assert "summed kernel time not measured" in text
    doc = export_json(path)
    assert doc["report"]["unmeasured_kernels"] == len(unmeasured)
    for entry in doc["kernels"]:
        if not entry["measured"]:
            assert entry["duration_ns"] is None and entry["bottleneck"]["label"] == "undetermined"
    csv_text = render(path, ExportOptions(fmt="csv"))
    assert "nan" not in csv_text.lower()
    markdown = export_text(path, "md")
    assert "| nan" not in markdown.lower()


@pytest.mark.parametrize("name", NAMES)
def test_version_and_gpu_are_read_from_the_file(analyzed, name) -> None:
    row = provenance()[name]
    report = analyzed.report
    assert report.device.name in row["gpu"]
    version = row["version"].split()[0]
    if re.fullmatch(r"\d{4}\.\d+\.\d+\.\d+", version):
        assert report.ncu_version == version
    if report.notes:  # a pre-2020 report says which of its metrics it could map
        assert name.endswith(".nsight-cuprof-report.xz")
