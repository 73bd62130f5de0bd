"""Gap analysis, the cause of large gaps, kernelscope's own finding, and the JSON document."""

from __future__ import annotations

import json

import polars as pl

from kernelscope.timeline.analysis.findings import findings, tiny_kernel_stretches
from kernelscope.timeline.analysis.gap_causes import CAUSES, explain_gaps
from kernelscope.timeline.analysis.utilization import (
    gap_histogram,
    gpu_utilization,
    idle_gaps,
    launch_gaps,
    utilization_windows,
)
from kernelscope.timeline.export.timeline_json import SCHEMA, to_export_dict
from tests.nsys.test_schema_variants import union_busy


def test_utilisation_over_the_device_span(zoo) -> None:
    row = gpu_utilization(zoo).row(0, named=True)
    ops = list(zoo.gpu_ops.select("start", "end").iter_rows())
    assert row["start_ns"] == min(s for s, _ in ops)
    assert row["end_ns"] == max(e for _, e in ops)
    assert row["busy_ns"] == union_busy(ops, 0, 2**62)
    assert row["utilization_pct"] == 100 * row["busy_ns"] / row["span_ns"]


def test_windows_add_up(zoo) -> None:
    win = utilization_windows(zoo, windows=37)
    assert win.height == 37
    assert win["busy_ns"].sum() == gpu_utilization(zoo)["busy_ns"][0]
    assert win["start_ns"][0] == zoo.start_ns and win["end_ns"][-1] == zoo.end_ns
    fixed = utilization_windows(zoo, window_ns=10_000_000)
    assert (fixed["end_ns"] - fixed["start_ns"]).max() == 10_000_000


def test_gaps_and_histogram(zoo) -> None:
    gaps = idle_gaps(zoo)
    util = gpu_utilization(zoo).row(0, named=True)
    assert gaps["duration_ns"].sum() == util["span_ns"] - util["busy_ns"]
    hist = gap_histogram(gaps)
    assert hist["gaps"].sum() == gaps.height
    assert hist["total_ns"].sum() == gaps["duration_ns"].sum()
    assert hist.filter(pl.col("bucket") == "100 us-1 ms")["gaps"][0] == 5


def test_launch_gaps(zoo) -> None:
    row = launch_gaps(zoo).row(0, named=True)
    assert row["kernels"] == 63 and row["stream"] == 7
    k = zoo.kernels.sort("start")
    gaps = sorted(max(0, s - e) for s, e in zip(k["start"][1:], k["end"][:-1], strict=False))
    assert row["median_gap_ns"] == (gaps[30] + gaps[31]) / 2


def test_large_gap_causes(zoo) -> None:
    gaps = explain_gaps(zoo, min_gap_ns=100_000)
    assert [g.cause for g in gaps] == ["memcpy"] * 4 + ["launch-overhead"]
    assert all(g.cause in CAUSES and g.thread == 13006 for g in gaps)
    first_launch = gaps[-1]
    names = [c.name for c in first_launch.cpu]
    assert names[:2] == ["cudaLaunchKernel", "cuLibraryLoadData"]  # lazy module loading
    # the first launch (479 us) outlasts the module it loads (297 us): launch overhead, with
    # the loading counted apart
    assert first_launch.coverage["launch"] > 0.6 and first_launch.coverage["module-load"] > 0.35
    assert gaps[0].cpu[0].name == "cudaMemcpy"


def test_many_tiny_kernels(zoo) -> None:
    stretches = tiny_kernel_stretches(zoo)
    assert stretches.height == 1
    row = stretches.row(0, named=True)
    assert row["kernels"] == 50 and row["top_kernel"].startswith("scale_small")
    assert row["busy_pct"] < 60
    ids = {f.id: f for f in findings(zoo)}
    assert ids["many-tiny-kernels"].severity in ("warning", "critical")


def test_export_dict(zoo) -> None:
    doc = to_export_dict(zoo)
    assert list(doc) == ["schema", "report", "kernels", "gpu", "gaps", "nvtx", "findings",
                         "gpu_metrics", "gpu_metrics_by_kernel", "gpu_metrics_by_nvtx",
                         "gpu_metrics_verdicts", "cuda_graphs", "critical_path",
                         "temporal_breakdown", "comm_comp_overlap_pct", "op_efficiency", "mfu",
                         "op_efficiency_basis"]
    assert doc["schema"] == SCHEMA
    json.dumps(doc, allow_nan=False)
    assert set(doc["kernels"][0]) == {"name", "instances", "total_ns", "avg_ns", "med_ns",
                                      "min_ns", "max_ns", "stddev_ns", "time_pct", "short_name"}
    assert doc["kernels"][0]["name"] == "hist_contended(const int *, int *, int)"
    assert doc["kernels"][0]["short_name"] == "hist_contended"
    assert set(doc["gpu"][0]) == {"device", "span_ns", "busy_ns", "utilization_pct"}
    assert set(doc["gaps"][0]) == {"device", "start_ns", "end_ns", "duration_ns", "cause",
                                   "detail", "reason", "hint", "graph", "cpu"}
    assert all(set(f) == {"id", "severity", "title", "items"} for f in doc["findings"])
    assert {f["id"] for f in doc["findings"]} == {"sync-memcpy", "sync-api",
                                                  "many-tiny-kernels"}
    assert doc["nvtx"] == []
    assert doc["gpu_metrics"] == [] and doc["gpu_metrics_by_kernel"] == []
    assert doc["gpu_metrics_verdicts"][0]["label"] == "no-metrics"
    assert doc["cuda_graphs"] == {"launches": [], "graphs": []}
