"""Invariants every committed sample must satisfy, whatever it contains."""

from __future__ import annotations

import json

import polars as pl

from kernelscope.core.severity import SEVERITIES
from kernelscope.timeline.analysis.findings import findings
from kernelscope.timeline.analysis.gap_causes import CAUSES, explain_gaps
from kernelscope.timeline.analysis.nvtx import nvtx_gpu_busy, nvtx_summary
from kernelscope.timeline.analysis.summaries import kernel_summary
from kernelscope.timeline.analysis.timeline import TimelineIndex
from kernelscope.timeline.analysis.utilization import (
    gap_histogram,
    gpu_utilization,
    idle_gaps,
    utilization_windows,
)
from kernelscope.timeline.export.timeline_json import SCHEMA, to_export_dict


def test_utilisation_and_gaps_add_up(sample_name: str, sample_report) -> None:
    report = sample_report(sample_name)
    util = gpu_utilization(report)
    gaps = idle_gaps(report)
    for row in util.to_dicts():
        assert 0 <= row["busy_ns"] <= row["span_ns"]
        idle = gaps.filter(pl.col("device") == row["device"])["duration_ns"].sum()
        assert idle == row["span_ns"] - row["busy_ns"]
    assert utilization_windows(report, windows=50)["busy_ns"].sum() == util["busy_ns"].sum()
    assert gap_histogram(gaps)["gaps"].sum() == gaps.height


def test_kernel_summary_covers_every_kernel(sample_name: str, sample_report) -> None:
    report = sample_report(sample_name)
    ks = kernel_summary(report)
    assert ks["Instances"].sum() == report.kernels.height
    assert ks["Total Time (ns)"].sum() == (report.kernels["end"] - report.kernels["start"]).sum()


def test_nvtx_busy_shares(sample_name: str, sample_report) -> None:
    report = sample_report(sample_name)
    busy = nvtx_gpu_busy(report)
    assert busy.height == nvtx_summary(report).height
    assert busy.filter((pl.col("gpu_busy_pct") < 0) | (pl.col("gpu_busy_pct") > 100)).height == 0


def test_timeline_render(sample_name: str, sample_report) -> None:
    report = sample_report(sample_name)
    index = TimelineIndex(report)
    view = index.render(report.start_ns, report.end_ns, 120)
    widths = [b - a for a, b in zip(view.edges, view.edges[1:], strict=False)]
    for lane in index.lanes:
        drawn = sum(f * w for f, w in zip(view.busy[lane.key], widths, strict=True))
        assert abs(drawn - lane.coverage.total) <= 1e-6 * max(lane.coverage.total, 1)
    gaps = index.large_gaps()
    if gaps:
        assert index.next_gap(report.start_ns) == gaps[0]
        assert index.previous_gap(report.end_ns + 1) == gaps[-1]


def test_gaps_findings_and_export(sample_name: str, sample_report) -> None:
    report = sample_report(sample_name)
    for gap in explain_gaps(report):
        assert gap.cause in CAUSES
        assert all(c.overlap_ns > 0 for c in gap.cpu)
    for finding in findings(report):
        assert finding.severity in SEVERITIES and finding.rows and finding.title
    doc = to_export_dict(report)
    assert doc["schema"] == SCHEMA
    text = json.dumps(doc, allow_nan=False)
    assert json.loads(text) == doc
