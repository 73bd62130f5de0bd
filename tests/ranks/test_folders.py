"""What a folder or a list of files opens as: the ranks of one run only when its reports are
traces of one kind, rank numbers from file names only where they can be, traces without
kernels as ranks without GPU work, and steps from NVTX only where they cover the run."""

from __future__ import annotations

import lzma
import shutil
import sqlite3
from pathlib import Path

import pytest

from kernelscope.kinds.ranks.analysis.reduce import ReduceOptions
from kernelscope.kinds.ranks.analysis.run import analyse_run
from kernelscope.tui.cli import main
from tests.conftest import SAMPLES
from tests.ranks.conftest import need_wild


def _fails(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(list(args)) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert captured.out == "" and "\n" not in err and "Traceback" not in err
    return err


def test_a_folder_of_several_kinds_of_report_says_what_it_holds(tmp_path: Path, capsys):
    for sample in ("nsys/timeline_plain.sqlite.xz", "kineto/kineto_step.pt.trace.json.xz",
                   "ncu/small_family.ncu-rep.xz"):
        shutil.copy(SAMPLES / sample, tmp_path / Path(sample).name)
    (tmp_path / "README.md").write_text("how these were made\n")
    for command in ("export", "summary"):
        err = _fails(capsys, command, str(tmp_path))
        assert ("holds 1 Nsight Systems trace (timeline_plain.sqlite.xz), 1 PyTorch profiler "
                "trace (kineto_step.pt.trace.json.xz) and 1 kernel report "
                "(small_family.ncu-rep.xz), but the ranks of one run are traces of one kind: "
                "open each with kernelscope FILE") in err


def test_kernel_reports_beside_the_traces_are_left_out_and_said(tmp_path: Path, cache_dir):
    for rank in (0, 1):
        shutil.copy(SAMPLES / "nsys" / "ranks" / f"rank{rank}.sqlite.xz", tmp_path)
    shutil.copy(SAMPLES / "ncu" / "small_family.ncu-rep.xz", tmp_path)
    run = analyse_run([tmp_path], options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)
    assert list(run.ranks) == [0, 1]
    assert [n.id for n in run.notes] == ["left-out"]
    assert run.notes[0].evidence[0].note == "small_family.ncu-rep.xz"


def test_a_number_in_one_files_name_is_no_rank(tmp_path: Path, cache_dir, capsys):
    trace = tmp_path / "capture_2025-03.sqlite.xz"
    shutil.copy(SAMPLES / "nsys" / "timeline_plain.sqlite.xz", trace)
    run = analyse_run([trace], options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)
    assert list(run.ranks) == [0] and run.rank_source == "the order of the files"


def test_a_trace_without_kernels_is_a_rank_without_gpu_work(cache_dir: Path):
    # the wild trace has no kernel table (memcpys and API calls only)
    trace = need_wild() / "nsys" / "unschlagbar__neural-networks__prof.sqlite.xz"
    run = analyse_run([trace], options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)
    (rank,) = run.ranks.values()
    assert rank.kernels == 0 and rank.families.height == 0
    assert run.verdict.id == "no-collective"


def test_nvtx_ranges_covering_little_of_the_run_are_not_steps(cache_dir: Path):
    # 16 TensorRT layer ranges named like numbered steps last 0.29 ms in all, while the GPU
    # is busy for 6.42 ms: they cannot hold its work, so they are not its steps
    trace = need_wild() / "nsys" / "LeiWang1999__memfusion_artifact__report1.sqlite.xz"
    run = analyse_run([trace], options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)
    (rank,) = run.ranks.values()
    assert rank.step_source != "nvtx"


def test_an_environment_that_is_not_utf8_does_not_fail_the_trace(cache_dir: Path):
    # the capture's TARGET_INFO_SYSTEM_ENV holds a value sqlite3 cannot return as text; the
    # timeline of this trace opens, and so does it as a rank (a CPU-only capture)
    trace = need_wild() / "nsys" / "mabdullahsoyturk__cardiac-simulation__report1.sqlite.xz"
    run = analyse_run([trace], options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)
    (rank,) = run.ranks.values()
    assert rank.kernels == 0 and run.verdict.id == "no-collective"


def test_step_ranges_too_short_to_hold_the_work_fall_back_to_the_kernel_pattern(
        tmp_path: Path, cache_dir: Path):
    # The sample's rank 0 with each "step N" range cut to its first 10 us (as ranges that
    # mark only a moment of each iteration): they no longer hold the GPU's work
    trace = tmp_path / "rank0.sqlite"
    trace.write_bytes(lzma.decompress((SAMPLES / "nsys" / "ranks" / "rank0.sqlite.xz")
                                      .read_bytes()))
    with sqlite3.connect(trace) as conn:
        conn.execute('UPDATE NVTX_EVENTS SET "end" = start + 10000 WHERE text LIKE \'step %\'')
    run = analyse_run([trace], options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)
    (rank,) = run.ranks.values()
    assert rank.step_source == "kernel pattern" and rank.steps.height >= 3
    whole = analyse_run([SAMPLES / "nsys" / "ranks" / "rank0.sqlite.xz"],
                        options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)
    assert next(iter(whole.ranks.values())).step_source == "nvtx"
