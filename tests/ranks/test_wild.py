"""The two-rank MPI traces in ../shared/wild (ranks 3 and 7 of an 8-rank Jacobi solver on
one DGX, one process each, nsys 2020.5 converted by 2025.3) open as a run."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from kernelscope.parsers.ranks.model import RunAnalysis
from kernelscope.parsers.ranks.reduce import ReduceOptions
from kernelscope.parsers.ranks.run import analyse_run
from kernelscope.tui.cli import main
from tests.nsys.oracle import read_csv
from tests.ranks.conftest import WILD_MPI, need_wild


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
    assert doc["schema"] == "kernelscope/ranks/1"
    assert [r["rank"] for r in doc["ranks"]] == [3, 7]
    assert all(r["comm_source"] == "mpi" for r in doc["ranks"])
