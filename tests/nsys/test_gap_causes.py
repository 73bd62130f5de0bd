"""Every GPU idle gap of every committed trace gets a named cause or a reason why none can be
named, blocking CUDA calls (cudaMalloc, cudaHostAlloc, cudaStreamCreate, …) are causes, and a
trace option is suggested only when the capture did not use it."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.analysis.gap_cause_events import near_gaps
from kernelscope.timeline.analysis.gap_causes import CAUSES, explain_gaps
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.analysis.utilization import idle_gaps
from kernelscope.timeline.screens.timeline_views.gaps import gaps_frame
from tests.nsys.oracle import NSYS_SAMPLES

TRACES = sorted(NSYS_SAMPLES.glob("*.sqlite.xz")) + sorted(NSYS_SAMPLES.glob("ranks/*.sqlite.xz"))
SAMPLED = {"SAMPLING_CALLCHAINS", "COMPOSITE_EVENTS"}


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.name.removesuffix(".sqlite.xz"))
def test_every_gap_has_a_cause_or_a_reason(path: Path) -> None:
    report = open_report(path)
    gaps = explain_gaps(report, limit=None)  # every large gap, not only the longest 50
    assert gaps, f"{path.name} has no large gap"
    for gap in gaps:
        assert gap.cause in CAUSES
        if gap.cause == "unknown":
            assert gap.reason, f"an unknown gap at {gap.start_ns} says nothing"
        elif gap.cause == "cpu-busy":
            assert gap.thread is not None and report.has_osrt
        else:
            assert gap.detail, f"a {gap.cause} gap at {gap.start_ns} names no call"
        # A trace option is suggested only when the capture did not use it.
        if "--trace=osrt" in gap.hint:
            assert not report.has_osrt
        if "--trace=cuda" in gap.hint:
            assert "CUPTI_ACTIVITY_KIND_RUNTIME" not in report.tables
        if "--sample" in gap.hint:
            assert not SAMPLED & report.tables
    # The Gaps view: every gap, large or small, has its cause or says why it has none.
    frame = gaps_frame(TimelineData(report))
    assert frame.height and frame.filter(pl.col("cause").str.len_chars() == 0).height == 0


def test_blocking_cuda_calls_are_causes() -> None:
    """The PyTorch traces' gaps filled by cudaMalloc, cudaHostAlloc or stream creation (with
    OS runtime tracing on) are named after those calls, not "unknown … --trace=osrt"."""
    torch = explain_gaps(open_report(NSYS_SAMPLES / "timeline_torch.sqlite.xz"), limit=None)
    assert not [g for g in torch if g.cause == "unknown"]
    assert not [g for g in torch if "--trace=osrt" in g.hint]
    host_alloc = [g for g in torch if (g.cpu and g.cpu[0].name == "cudaHostAlloc")
                  or any(c.name == "cudaHostAlloc" and c.overlap_ns > g.duration_ns / 2
                         for c in g.cpu)]
    assert host_alloc and all(g.cause == "alloc" for g in host_alloc)
    assert all("cudaHostAlloc" in g.detail for g in host_alloc)
    metrics = explain_gaps(open_report(NSYS_SAMPLES / "gpu_metrics.sqlite.xz"), limit=None)
    setup = [g for g in metrics if any(c.name.startswith("cudaStreamCreate") for c in g.cpu)
             and g.coverage.get("setup", 0) >= 0.5]
    assert setup and all(g.cause == "cuda-setup" for g in setup)
    assert all("cudaStreamCreateWithPriority" in g.detail for g in setup)
    malloc = [g for g in metrics if g.coverage.get("alloc", 0) >= 0.5]
    assert malloc and all(g.cause == "alloc" for g in malloc)
    assert all("cudaMalloc" in g.detail or "cudaHostAlloc" in g.detail for g in malloc)


def test_without_osrt_a_quiet_thread_is_not_called_busy(sample_report) -> None:  # type: ignore[no-untyped-def]
    """many_tiny was traced without OS runtime calls: a gap the CUDA calls do not explain
    cannot be called cpu-busy (the thread may have slept) and says which option tells."""
    report = sample_report("many_tiny")
    assert not report.has_osrt
    gaps = explain_gaps(report, min_gap_ns=10_000, limit=None)
    assert gaps
    for gap in gaps:
        assert gap.cause != "cpu-busy"
        if gap.cause == "unknown":
            assert gap.hint == "--trace=osrt" and "OS runtime" in gap.reason


def test_module_loading_is_not_launch_overhead() -> None:
    """Lazy loading makes a kernel's first launch load its module (cuLibraryLoadData,
    cuModuleLoadData): a one-time cost, named module-loading, never launch overhead."""
    torch = explain_gaps(open_report(NSYS_SAMPLES / "timeline_torch.sqlite.xz"), limit=None)
    loading = [g for g in torch if g.cause == "module-loading"]
    assert len(loading) == 13
    assert all(g.coverage["module-load"] == max(g.coverage.values()) for g in loading)
    assert all(g.detail.startswith("cuLibraryLoadData ") for g in loading)
    longest = max(loading, key=lambda g: g.duration_ns)
    assert longest.detail == "cuLibraryLoadData 53.62 ms, cudaLaunchKernel 19.58 ms"
    assert not [g for g in torch if g.cause == "launch-overhead"
                and g.coverage.get("module-load", 0) >= g.coverage.get("launch", 0)]
    join = explain_gaps(open_report(NSYS_SAMPLES / "join_trace.sqlite.xz"), limit=None)
    module = [g for g in join if g.detail == "cuModuleLoadData 88.62 ms"]
    assert [g.cause for g in module] == ["module-loading"]


@pytest.mark.parametrize("name", ["timeline_torch", "zoo", "many_launches"])
def test_calls_near_the_gaps_hold_every_call_that_overlaps_one(sample_report, name) -> None:
    report = sample_report(name)
    gaps = idle_gaps(report, 0).head(400)
    calls = report.cuda_api.drop_nulls(["start", "end"]).with_row_index("row")
    near = set(near_gaps(calls, gaps, min_rows=0)["row"].to_list())
    overlapping = calls.join_where(gaps, pl.col("start") < pl.col("end_ns"),
                                   pl.col("end") > pl.col("start_ns"))
    assert gaps.height and overlapping.height
    assert set(overlapping["row"].to_list()) <= near < set(calls["row"].to_list())
    assert near_gaps(calls, None, min_rows=0).equals(calls)
    assert near_gaps(calls, gaps, min_rows=calls.height).equals(calls)
