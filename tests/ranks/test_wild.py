"""The two-rank MPI traces in ../shared/wild (ranks 3 and 7 of an 8-rank Jacobi solver on
one DGX, one process each, nsys 2020.5 converted by 2025.3) open as a run."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import polars as pl
import pytest

from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.analysis.reduce import ReduceOptions
from kernelscope.kinds.ranks.analysis.run import analyse_run
from kernelscope.tui.cli import main
from tests.nsys.oracle import read_csv
from tests.ranks.conftest import WILD_MPI, decompress, need_wild


@pytest.fixture(scope="module")
def wild_traces() -> list[Path]:
    base = need_wild()
    return [base / "nsys" / f"{name}.sqlite.xz" for name in WILD_MPI]


@pytest.fixture(scope="module")
def wild_run(wild_traces: list[Path], cache_dir: Path) -> RunAnalysis:
    return analyse_run(wild_traces, options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)


def test_each_trace_is_one_rank_numbered_by_open_mpi(wild_run: RunAnalysis):
    assert list(wild_run.ranks) == [3, 7]
    assert "OMPI_COMM_WORLD_RANK" in wild_run.rank_source
    for rank, summary in wild_run.ranks.items():
        assert summary.nvtx_rank == rank  # the NVTX "MPI Rank N" mark agrees
        assert summary.host == "prm-dgx-05"
        assert summary.devices == [f"Tesla V100-SXM2-16GB ({rank})"]


def test_mpi_allreduce_is_the_collective_and_clocks_agree(wild_run: RunAnalysis):
    assert wild_run.comm_source == "mpi"
    assert wild_run.clock.safe and wild_run.clock.hosts == ["prm-dgx-05"]
    ops = wild_run.collectives.group_by("op").len().sort("op")
    assert dict(ops.iter_rows()) == {"MPI_Allreduce": 2002, "MPI_Barrier": 2}
    # Both ranks leave each all-reduce within microseconds: the alignment holds.
    assert wild_run.clock.exit_spread_ns is not None and wild_run.clock.exit_spread_ns < 10_000
    for summary in wild_run.ranks.values():
        p2p = summary.collectives.filter(~pl.col("collective"))
        assert set(p2p["op"].to_list()) == {"MPI_Sendrecv"} and p2p.height == 2000


def test_steps_from_the_kernel_pattern_and_kernels_as_nsys_stats(wild_run: RunAnalysis):
    base = need_wild() / "oracle" / "nsys"
    for name, (rank, summary) in zip(WILD_MPI, wild_run.ranks.items(), strict=True):
        assert summary.step_source == "kernel pattern", rank
        assert summary.step_anchor is not None and "jacobi_kernel" in summary.step_anchor
        oracle = read_csv(base / f"{name}_cuda_gpu_kern_sum.csv.xz")
        fams = {r["name"]: r for r in summary.families.iter_rows(named=True)}
        for row in oracle:
            assert fams[row["Name"]]["instances"] == int(row["Instances"])
            assert fams[row["Name"]]["total_ns"] == int(row["Total Time (ns)"])
        jacobi = next(int(r["Instances"]) for r in oracle if "jacobi_kernel" in r["Name"])
        assert summary.steps.height == jacobi


def test_the_run_exports_headless(wild_traces: list[Path], cache_dir: Path, capsys):
    code = main(["export", *map(str, wild_traces), "--format", "json", "--workers", "0",
                 "--cache-dir", str(cache_dir)])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "kernelscope/ranks/2"
    assert [r["rank"] for r in doc["ranks"]] == [3, 7]
    assert all(r["comm_source"] == "mpi" for r in doc["ranks"])


# -- one trace holding both ranks' processes (as ``nsys profile mpirun …`` writes) -----------
ID_COLUMNS = {  # columns that hold StringIds ids, per table
    "CUPTI_ACTIVITY_KIND_KERNEL": ("demangledName", "shortName", "mangledName"),
    "CUPTI_ACTIVITY_KIND_RUNTIME": ("nameId",), "NVTX_EVENTS": ("textId",),
    "MPI_OTHER_EVENTS": ("textId",), "CUPTI_ACTIVITY_KIND_MEMCPY": (),
    "CUPTI_ACTIVITY_KIND_MEMSET": (), "OSRT_API": ("nameId",),
}


def merge_traces(first: Path, second: Path, target: Path) -> Path:
    """``first`` with the events of ``second`` added: its string ids moved past the first's
    and its times shifted by the difference of the two session starts."""
    shutil.copyfile(first, target)
    target.chmod(0o644)
    with sqlite3.connect(target) as conn:
        conn.execute("ATTACH DATABASE ? AS other", (str(second),))
        base = conn.execute("SELECT max(id) + 1 FROM StringIds").fetchone()[0]
        shift = conn.execute(
            "SELECT (SELECT utcEpochNs FROM other.TARGET_INFO_SESSION_START_TIME) - "
            "(SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME)").fetchone()[0]
        conn.execute("INSERT INTO StringIds (id, value) SELECT id + ?, value "
                     "FROM other.StringIds", (base,))
        for table, ids in ID_COLUMNS.items():
            cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            if not cols:
                continue
            select = ", ".join(
                f'"{c}" + {shift}' if c in ("start", "end")
                else f'"{c}" + {base}' if c in ids else f'"{c}"' for c in cols)
            names = ", ".join(f'"{c}"' for c in cols)
            conn.execute(f'INSERT INTO "{table}" ({names}) SELECT {select} '
                         f'FROM other."{table}"')
        conn.commit()
        conn.execute("DETACH DATABASE other")
    return target


@pytest.fixture(scope="module")
def merged(wild_traces: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wild-merged")
    plain = [decompress(p, out / p.name.removesuffix(".xz")) for p in wild_traces]
    return merge_traces(plain[0], plain[1], out / "both_ranks.sqlite")


def test_one_trace_with_both_processes_is_two_ranks(merged: Path, wild_run: RunAnalysis,
                                                     cache_dir: Path, capsys):
    run = analyse_run([merged], options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)
    assert list(run.ranks) == [3, 7]  # from each process's NVTX "MPI Rank N" mark
    assert run.rank_source == "NVTX events naming the rank"
    assert run.clock.method == "one session" and run.clock.safe
    pids = {r: s.pid for r, s in run.ranks.items()}
    assert pids == {r: s.pid for r, s in wild_run.ranks.items()}
    for rank, summary in run.ranks.items():
        alone = wild_run.ranks[rank]
        assert summary.kernels == alone.kernels
        assert summary.devices == alone.devices
        assert summary.comm_ns == alone.comm_ns
        assert summary.label.endswith(f"[pid {summary.pid}]")
    # The same waits as from the two files (the merge shifted the second by its offset).
    mine = run.collectives.select("rank", "op", "seq", "wait_ns")
    theirs = wild_run.collectives.select("rank", "op", "seq", "wait_ns")
    assert mine.sort("rank", "op", "seq").equals(theirs.sort("rank", "op", "seq"))
    # One file is a report unless "ranks" says it holds a run.
    assert main(["export", "ranks", str(merged), "--workers", "0", "--cache-dir",
                 str(cache_dir)]) == 0
    assert json.loads(capsys.readouterr().out)["schema"] == "kernelscope/ranks/2"
