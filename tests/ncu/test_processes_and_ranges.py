"""Multi-process reports (``ncu --target-processes all``) and range replay
(``--replay-mode range`` / ``app-range``), on our own H200 samples."""

from __future__ import annotations

import json
from functools import cache

import pytest

from kernelscope.kinds.ncu.analysis.kernel_analysis import analyze, open_for_analysis
from kernelscope.kinds.ncu.model import NcuReport, open_ncu_report
from kernelscope.tui.cli import main
from tests.conftest import NCU_SAMPLES
from tests.ncu.oracle import load_raw, matches_print

MULTI = NCU_SAMPLES / "multi_process.ncu-rep.xz"
RANGE = NCU_SAMPLES / "range_replay.ncu-rep.xz"
RANGE_NVTX = NCU_SAMPLES / "range_nvtx.ncu-rep.xz"


@cache
def opened(path: str) -> NcuReport:
    return open_ncu_report(path)


def test_every_kernel_names_its_process_as_ncu_does() -> None:
    raw = load_raw("multi_process")
    report = opened(str(MULTI))
    assert [(p.pid, p.short_name) for p in report.processes] == sorted(
        {(int(r["Process ID"]), r["Process Name"]) for r in raw.rows.values()}
    )
    assert len(report.processes) == 2
    for kernel_id, row in raw.rows.items():
        detail = report.detail(kernel_id)
        assert (detail.pid, detail.process) == (int(row["Process ID"]), row["Process Name"])
        assert report.layout.results[kernel_id].process.host == row["Host Name"]


def test_summary_shows_the_process_column_and_filters_by_process(capsys) -> None:
    raw = load_raw("multi_process")
    pid = sorted({int(r["Process ID"]) for r in raw.rows.values()})[1]
    assert main(["summary", str(MULTI), "--process", str(pid)]) == 0
    out = capsys.readouterr().out
    assert "2 processes:" in out and "Process" in out
    cells = [line.split("|")[0].strip() for line in out.splitlines() if "| multi_process (" in line]
    ids = sorted(int(i) for cell in cells for i in cell.split(", "))  # one row per family
    want = [i for i, r in raw.rows.items() if int(r["Process ID"]) == pid]
    assert ids == want


def test_export_by_process_keeps_only_its_kernels(capsys) -> None:
    raw = load_raw("multi_process")
    pid = min(int(r["Process ID"]) for r in raw.rows.values())
    assert main(["export", str(MULTI), "--process", str(pid)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {k["pid"] for k in doc["kernels"]} == {pid}
    assert len(doc["report"]["processes"]) == 2
    assert main(["export", str(MULTI), "--process", "nobody"]) == 2
    assert "ran in process 'nobody'" in capsys.readouterr().err


def test_csv_of_a_multi_process_report_has_pid_and_process(capsys) -> None:
    assert main(["export", str(MULTI), "-f", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert "pid" in header and "process" in header


@pytest.mark.parametrize(
    ("path", "names"),
    [
        (RANGE, ["range<cudaProfilerStart/Stop 1>", "range<cudaProfilerStart/Stop 2>"]),
        (RANGE_NVTX, ["range<phase_a>", "range<phase_b>"]),
    ],
    ids=["profiler-range", "nvtx-range"],
)
def test_range_results_are_listed_as_ranges_with_their_names(path, names) -> None:
    stem = path.name.removesuffix(".ncu-rep.xz")
    raw = load_raw(stem)
    with open_for_analysis(path) as report:
        analyzed = analyze(report)
        assert [k.summary.row["name"] for k in analyzed.kernels] == names
        for k in analyzed.kernels:
            row = raw.rows[k.id]
            assert row["Kernel Name"] == "range"
            assert matches_print(k.duration_ns, row["gpu__time_duration.sum"])
            assert k.diagnosis.label != "undetermined"
        assert analyzed.total_ns == pytest.approx(sum(k.duration_ns for k in analyzed.kernels))
