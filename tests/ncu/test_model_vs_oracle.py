"""Every metric the panes show equals what `ncu --import --page raw/details` printed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from kernelscope.kinds.ncu.model import NcuReport, open_ncu_report
from kernelscope.kinds.ncu.model.model import KernelDetail
from tests.conftest import ncu_sample_paths
from tests.ncu.oracle import load_details, load_raw, matches_print, parse_number, stem_of

SAMPLES = ncu_sample_paths()
QUALIFIER = re.compile(r"(?:\w+|<unnamed>)::")
IDS = [stem_of(p) for p in SAMPLES]


@cache
def opened(path_str: str) -> NcuReport:
    return open_ncu_report(path_str)


@cache
def detail_of(path_str: str, kernel_id: int) -> KernelDetail:
    """Each kernel read once for every test of this module (a detail reads every pane
    metric, and the 1,000-launch sample is read by several tests)."""
    return opened(path_str).detail(kernel_id)


@pytest.fixture(scope="module", params=SAMPLES, ids=IDS)
def path(request: pytest.FixtureRequest) -> Iterator[Path]:
    """One sample at a time: pytest runs every test of this module on it before the next, and
    its report and kernel details are let go after (the 1,000-launch sample's, ~150 MB, were
    held to the end of the session)."""
    yield request.param
    detail_of.cache_clear()
    opened.cache_clear()


def test_kernel_count_and_ids_match_oracle(path):
    raw = load_raw(stem_of(path))
    report = opened(str(path))
    assert report.kernel_count == len(raw.rows)
    assert sorted(raw.rows) == list(range(report.kernel_count))
    for kernel_id, row in raw.rows.items():
        summary = report.key_row(kernel_id)
        assert summary["pid"] == int(row["Process ID"])
        assert summary["process"] == row["Process Name"]
        if row["Kernel Name"] == "range":  # a range-replay result: listed under its range
            assert summary["name"].startswith("range<") and summary["name"].endswith(">")
            assert row.get("Grid Size") in (None, "")
            continue
        # The CLI's demangler prints some namespaces shorter ("at::native::f" as "at::f");
        # apart from namespace qualifiers the names are equal.
        assert summary["name"] in row["Kernel Name"]
        assert QUALIFIER.sub("", summary["demangled"]) == QUALIFIER.sub("", row["Kernel Name"])
        grid = row["Grid Size"].strip("()").replace(" ", "").split(",")
        block = row["Block Size"].strip("()").replace(" ", "").split(",")
        assert detail_of(str(path), kernel_id).grid == tuple(int(x) for x in grid)
        assert detail_of(str(path), kernel_id).block == tuple(int(x) for x in block)


def test_every_pane_metric_equals_raw_page(path):
    raw = load_raw(stem_of(path))
    compared = 0
    for kernel_id, row in raw.rows.items():
        detail = detail_of(str(path), kernel_id)
        for name, metric in detail.metrics.items():
            if name not in row:
                continue
            text = row[name]
            assert metric.unit == raw.units[name], (kernel_id, name)
            if isinstance(metric.value, str):
                assert metric.value == text, (kernel_id, name)
            else:
                assert matches_print(float(metric.value), text), (
                    kernel_id,
                    name,
                    metric.value,
                    text,
                )
            compared += 1
        missing = [n for n in detail.metrics if n not in row and not n.startswith("breakdown:")]
        assert not missing, f"kernel {kernel_id}: metrics not in the raw page: {missing[:5]}"
    assert compared > 0


def test_key_frame_equals_raw_page(path):
    raw = load_raw(stem_of(path))
    report = opened(str(path))
    frame = report.key_frame()
    from kernelscope.kinds.ncu.model.panes import KEY_METRICS

    for rec in frame.iter_rows(named=True):
        row = raw.rows[rec["id"]]
        for col, metric in KEY_METRICS:
            if metric in row and parse_number(row[metric]) is not None:
                assert rec[col] is not None and matches_print(rec[col], row[metric]), (col, rec)


def test_section_header_tables_equal_details_page(path):
    details = load_details(stem_of(path))
    checked = 0
    by_kernel: dict[int, list[dict[str, str]]] = {}
    for row in details:
        if row.get("Metric Name"):
            by_kernel.setdefault(int(row["ID"]), []).append(row)
    for kernel_id, rows in by_kernel.items():
        detail = detail_of(str(path), kernel_id)
        for section, names in detail.section_metrics.items():
            title = detail.sections[section]
            shown = {
                detail.metrics[n].label: detail.metrics[n] for n in names if n in detail.metrics
            }
            oracle = {r["Metric Name"]: r for r in rows if r["Section Name"] == title}
            for label, metric in shown.items():
                if label not in oracle:
                    continue
                o = oracle[label]
                if isinstance(metric.value, str):
                    assert metric.value == o["Metric Value"]
                else:
                    assert matches_print(float(metric.value), o["Metric Value"]), (
                        kernel_id,
                        section,
                        label,
                        metric.value,
                        o["Metric Value"],
                    )
                checked += 1
    assert checked > 0


def test_rule_results_equal_details_page(path):
    details = load_details(stem_of(path))
    report = opened(str(path))
    expected: dict[int, list[tuple[str, str, str, str]]] = {}
    for row in details:
        if row.get("Rule Name"):
            speed = row.get("Estimated Speedup", "")
            expected.setdefault(int(row["ID"]), []).append(
                (row["Rule Name"], row["Rule Type"], row.get("Estimated Speedup Type", ""), speed)
            )
    for kernel_id in range(report.kernel_count):
        got = sorted(
            (
                (r.rule, r.type, r.speedup_type or "", r.speedup_pct)
                for r in detail_of(str(path), kernel_id).rules
            ),
            key=lambda g: (g[0], g[1], g[2], g[3] if g[3] is not None else -1.0),
        )
        want = sorted(
            expected.get(kernel_id, []),
            key=lambda w: (w[0], w[1], w[2], parse_number(w[3]) if w[3] else -1.0),
        )
        assert [g[:3] for g in got] == [w[:3] for w in want], kernel_id
        for g, w in zip(got, want, strict=True):
            if w[3]:
                assert g[3] is not None and matches_print(g[3], w[3]), (kernel_id, g, w)
            else:
                assert g[3] is None, (kernel_id, g)


def test_all_metrics_of_first_kernel_equal_raw_page(path):
    raw = load_raw(stem_of(path))
    report = opened(str(path))
    row = raw.rows[0]
    metrics = report.all_metrics(0)
    compared = 0
    for name, metric in metrics.items():
        if name not in row or isinstance(metric.value, str):
            continue
        # Units are compared for the panes' metrics above; for a few metrics outside the
        # panes the CLI prints a section file's unit (or none) where ncu_report has another.
        assert matches_print(float(metric.value), row[name]), (name, metric.value, row[name])
        compared += 1
    assert compared > 100
