"""Schema variants built from the real zoo export: every one opens and analyses correctly."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.analysis import nsys_rules as rules
from kernelscope.timeline.analysis.findings import findings
from kernelscope.timeline.analysis.gap_causes import explain_gaps
from kernelscope.timeline.analysis.nvtx import nvtx_gpu_busy, nvtx_summary
from kernelscope.timeline.analysis.summaries import (
    cuda_api_summary,
    kernel_summary,
    memop_size_summary,
    memop_time_summary,
    osrt_summary,
)
from kernelscope.timeline.analysis.timeline import TimelineIndex
from kernelscope.timeline.analysis.utilization import gpu_utilization
from kernelscope.timeline.export.timeline_json import to_export_dict
from tests.nsys import variants as V


def union_busy(intervals: list[tuple[int, int]], t0: int, t1: int) -> int:
    """Brute force: time in [t0, t1) covered by any interval."""
    clipped = sorted((max(s, t0), min(e, t1)) for s, e in intervals if e > t0 and s < t1)
    total, cur_s, cur_e = 0, None, None
    for s, e in clipped:
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


@pytest.fixture
def variant(tmp_path: Path, sample_sqlite):
    def make(*builders) -> Path:
        path = V.copy_db(sample_sqlite("zoo"), tmp_path / "variant.sqlite")
        for build in builders:
            build(path)
        return path

    return make


def gpu_intervals(report) -> list[tuple[int, int]]:
    return list(report.gpu_ops.select("start", "end").iter_rows())


def test_no_nvtx_table(zoo) -> None:
    assert "NVTX_EVENTS" not in zoo.tables
    assert zoo.nvtx.height == 0
    assert nvtx_summary(zoo).height == 0
    assert nvtx_gpu_busy(zoo).height == 0
    assert not [ln for ln in TimelineIndex(zoo).lanes if ln.kind == "nvtx"]


@pytest.mark.parametrize("via_string_ids", [False, True], ids=["text", "textId"])
def test_nvtx_ranges(variant, via_string_ids: bool) -> None:
    report = open_report(variant(lambda p: V.add_nvtx(p, via_string_ids=via_string_ids)))
    summary = {r["Range"]: r for r in nvtx_summary(report).to_dicts()}
    # nsys names ranges "domain:message", with an empty domain for the default one.
    assert set(summary) == {":copy inputs", ":kernels", ":tiny launches", ":idle",
                            "mydomain:step", ":never closed"}
    assert summary[":kernels"]["Instances"] == 2
    assert summary[":kernels"]["Total Time (ns)"] == 23_300_000 + 1_000_000
    assert summary[":kernels"]["Style"] == "PushPop"
    assert summary[":tiny launches"]["Style"] == "StartEnd"
    # A range never closed ends at the last NVTX timestamp.
    assert summary[":never closed"]["Total Time (ns)"] == 817_000_000 - 810_000_000
    busy = {r["range"]: r for r in nvtx_gpu_busy(report).to_dicts()}
    assert busy[":idle"]["gpu_busy_pct"] == 0.0
    ops = gpu_intervals(report)
    want = union_busy(ops, 793_700_000, 817_000_000) + union_busy(ops, 800_000_000, 801_000_000)
    assert busy[":kernels"]["gpu_busy_ns"] == want
    assert busy[":kernels"]["gpu_busy_pct"] == pytest.approx(100 * want / 24_300_000)
    # One thread: one lane per nesting level (mydomain:step holds kernels, itself inside
    # copy inputs…), the outermost first; no two ranges of a lane overlap.
    index = TimelineIndex(report)
    lanes = [ln for ln in index.lanes if ln.kind == "nvtx"]
    assert {ln.tid for ln in lanes} == {13006}
    assert [ln.depth for ln in lanes] == list(range(len(lanes))) and len(lanes) > 1
    assert sum(ln.events for ln in lanes) == sum(r["Instances"] for r in summary.values())
    for lane in lanes:
        events = index.lane_events(lane.key).frame
        assert (events["start"].slice(1) >= events["end"].slice(0, events.height - 1)).all()


def test_nvtx_text_and_text_id_give_the_same_summary(variant, tmp_path: Path) -> None:
    a = nvtx_summary(open_report(variant(V.add_nvtx)))
    other = V.copy_db(variant(), tmp_path / "other.sqlite")
    b = nvtx_summary(open_report(V.add_nvtx(other, via_string_ids=True)))
    assert a.equals(b)


def test_no_osrt_table(variant) -> None:
    report = open_report(variant(V.drop_tables("OSRT_API", "OSRT_CALLCHAINS")))
    assert report.osrt.height == 0
    assert osrt_summary(report).height == 0
    gaps = explain_gaps(report)
    assert gaps and all(c.source != "osrt" for g in gaps for c in g.cpu)
    assert all(g.cause != "cpu-idle" for g in gaps)


def test_no_memcpy_or_memset_tables(variant, zoo) -> None:
    report = open_report(variant(V.drop_tables("CUPTI_ACTIVITY_KIND_MEMCPY",
                                               "CUPTI_ACTIVITY_KIND_MEMSET")))
    assert memop_time_summary(report).height == 0
    assert memop_size_summary(report).height == 0
    assert "sync-memcpy" not in {f.id for f in findings(report)}
    util = gpu_utilization(report).row(0, named=True)
    kernels = list(zoo.kernels.select("start", "end").iter_rows())
    assert util["busy_ns"] == union_busy(kernels, 0, 2**62)
    assert kernel_summary(report).equals(kernel_summary(zoo))


def test_second_device(variant, zoo) -> None:
    report = open_report(variant(V.second_device))
    assert [d.id for d in report.devices] == [0, 1]
    util = {r["device"]: r for r in gpu_utilization(report).to_dicts()}
    kernels = list(zoo.kernels.select("start", "end").iter_rows())
    assert util[1]["busy_ns"] == union_busy(kernels, 0, 2**62)
    assert util[0]["busy_ns"] == gpu_utilization(zoo)["busy_ns"][0]
    ks = kernel_summary(report)
    assert ks["Instances"].sum() == 2 * zoo.kernels.height
    keys = {ln.key for ln in TimelineIndex(report).lanes}
    assert {"gpu0", "gpu1", "gpu0/s7", "gpu1/s7"} <= keys
    doc = to_export_dict(report)
    assert [g["device"] for g in doc["gpu"]] == [0, 1]


def test_second_process(variant, zoo) -> None:
    report = open_report(variant(V.second_process))
    assert {p.pid for p in report.processes} == {V.ZOO_PID, V.OTHER_PID}
    sync = rules.cuda_memcpy_sync(report)
    # Correlation ids repeat across processes: each copy still joins only its own call.
    assert sync.height == 2 * rules.cuda_memcpy_sync(zoo).height
    assert set(sync["pid"].to_list()) == {V.ZOO_PID, V.OTHER_PID}
    api = cuda_api_summary(report)
    assert api["Num Calls"].sum() == 2 * cuda_api_summary(zoo)["Num Calls"].sum()
    assert kernel_summary(report)["Instances"].sum() == 2 * zoo.kernels.height


def test_short_names_only(variant) -> None:
    report = open_report(variant(V.short_names_only))
    names = set(kernel_summary(report)["Name"].to_list())
    assert "mm_tiled" in names and "transpose_sm" in names
    row = kernel_summary(report).filter(pl.col("Name") == "transpose_sm").row(0, named=True)
    assert row["Instances"] == 2  # the two template instances share one short name


def test_no_runtime_table(variant) -> None:
    report = open_report(variant(V.drop_tables("CUPTI_ACTIVITY_KIND_RUNTIME")))
    assert cuda_api_summary(report).height == 0
    ids = {f.id for f in findings(report)}
    assert not ids & {"sync-memcpy", "sync-api", "pageable-memcpy", "sync-memset"}
    assert all(g.cause == "unknown" for g in explain_gaps(report))


def test_no_enum_tables(variant, zoo) -> None:
    report = open_report(variant(V.drop_tables("ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND")))
    assert memop_time_summary(report).equals(memop_time_summary(zoo))
    assert rules.cuda_memcpy_sync(report).equals(rules.cuda_memcpy_sync(zoo))


def test_no_kernel_table(variant) -> None:
    report = open_report(variant(V.drop_tables("CUPTI_ACTIVITY_KIND_KERNEL")))
    assert report.kernels.height == 0
    assert kernel_summary(report).height == 0
    assert to_export_dict(report)["kernels"] == []
