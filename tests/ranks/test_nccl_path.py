"""The NCCL path, on the real four-rank timings: in copies of the exports the sample's
one-per-step cuBLAS kernel is renamed to an NCCL all-reduce kernel and made to behave like
one (it ends on every rank once the last rank's has run as long as it did: an NCCL kernel
spins until every peer has joined). kernelscope must then match the ranks by their NCCL
kernels (arrival = kernel start on the GPU), name rank 2 and measure the others' wait inside
the kernels, as the ``cuda_gpu_trace`` starts nsys printed say.

(A real two-GPU NCCL run is issue 14's sample; these traces stand in for it until then.)
"""

from __future__ import annotations

import shutil
import sqlite3
import statistics
from pathlib import Path

import polars as pl
import pytest

from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.analysis.reduce import ReduceOptions
from kernelscope.kinds.ranks.analysis.run import analyse_run
from tests.ranks.conftest import oracle_rows, session_start

CUBLAS = "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>(T1::Params)"
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
RANKS = range(4)


@pytest.fixture(scope="module")
def nccl_dir(rank_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("nccl-ranks")
    origin = {r: session_start(rank_dir / f"rank{r}.sqlite") for r in RANKS}
    launches: dict[int, list[tuple[int, int, int]]] = {}
    for r in RANKS:
        target = out / f"rank{r}.sqlite"
        shutil.copyfile(rank_dir / f"rank{r}.sqlite", target)
        target.chmod(0o644)
        with sqlite3.connect(target) as conn:
            changed = conn.execute("UPDATE StringIds SET value = ? WHERE value = ?",
                                   (NCCL, CUBLAS)).rowcount
            assert changed == 1
            launches[r] = conn.execute(
                "SELECT k.rowid, k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                "JOIN StringIds s ON s.id = k.demangledName WHERE s.value = ? ORDER BY k.start",
                (NCCL,)).fetchall()
    for k in range(len(launches[0])):
        last = max(launches[r][k][1] + origin[r] for r in RANKS)
        for r in RANKS:
            rowid, start, end = launches[r][k]
            with sqlite3.connect(out / f"rank{r}.sqlite") as conn:
                conn.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = ? WHERE rowid = ?",
                             (last - origin[r] + (end - start), rowid))
    return out


@pytest.fixture(scope="module")
def nccl_run(nccl_dir: Path, cache_dir: Path) -> RunAnalysis:
    return analyse_run([nccl_dir], options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)


@pytest.fixture(scope="module")
def starts(rank_dir: Path) -> dict[int, list[int]]:
    """Per rank, the start of each launch of the renamed kernel, on the common clock."""
    origin = {r: session_start(rank_dir / f"rank{r}.sqlite") for r in RANKS}
    base = min(origin.values())
    return {r: sorted(int(x["Start (ns)"]) + origin[r] - base
                      for x in oracle_rows(r, "cuda_gpu_trace") if x["Name"] == CUBLAS)
            for r in RANKS}


def test_ranks_are_matched_by_their_nccl_kernels(nccl_run: RunAnalysis):
    assert nccl_run.comm_source == "nccl"
    for r in RANKS:
        summary = nccl_run.ranks[r]
        assert summary.comm_source == "nccl"
        calls = summary.collectives
        assert calls["op"].unique().to_list() == ["AllReduce"]
        assert calls.height == 8
        assert calls["cpu_start"].null_count() == 0  # the launch call was found
        assert (calls["cpu_start"] < calls["start"]).all()
        fam = summary.families.filter(pl.col("name") == NCCL).row(0, named=True)
        assert fam["comm"]
        assert summary.comm_ns == fam["total_ns"]  # one kernel at a time: merged == summed
        assert summary.overlap_ns > 0  # its later compute kernels ran while it spun


def test_the_slow_rank_is_named_and_the_others_wait_inside_the_kernels(nccl_run: RunAnalysis,
                                                                       starts):
    s = nccl_run.straggler
    assert s is not None and s.rank == 2
    calls = nccl_run.collectives.sort("seq", "rank")
    for k in range(8):
        last = max(starts[r][k] for r in RANKS)
        for r in RANKS:
            row = calls.filter((pl.col("seq") == k) & (pl.col("rank") == r)).row(0, named=True)
            assert row["arrival"] == starts[r][k]
            assert row["wait_ns"] == last - starts[r][k]
    late = [starts[2][k] - statistics.median(starts[r][k] for r in RANKS if r != 2)
            for k in range(8)]
    assert s.steps.sort("step")["late_ns"].to_list() == pytest.approx(late, abs=0.5)
    # Every copy ends together, give or take the kernels' own length differences.
    assert nccl_run.clock.exit_spread_ns is not None and nccl_run.clock.exit_spread_ns < 2_000


def test_families_leave_the_nccl_kernel_out_of_the_slowness_verdict(nccl_run: RunAnalysis):
    row = nccl_run.families.filter(pl.col("name") == NCCL).row(0, named=True)
    assert row["comm"] and not row["flagged"]


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def test_htas_overlap_per_rank_from_the_kernels_in_the_export(nccl_dir: Path,
                                                              nccl_run: RunAnalysis):
    # HTA's comm_comp_overlap: the time computation kernels run during the merged NCCL
    # kernels, as a share of those; read here straight from each rank's kernel table.
    for r in RANKS:
        with sqlite3.connect(nccl_dir / f"rank{r}.sqlite") as conn:
            rows = conn.execute(
                "SELECT k.start, k.end, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                "JOIN StringIds s ON s.id = k.demangledName").fetchall()
        comm = _merged([(s, e) for s, e, name in rows if name == NCCL])
        comp = _merged([(s, e) for s, e, name in rows if name != NCCL])
        inside = sum(max(0, min(e, ce) - max(s, cs)) for s, e in comm for cs, ce in comp)
        expected = round(100 * inside / sum(e - s for s, e in comm), 2)
        assert nccl_run.ranks[r].comm_comp_overlap_pct == expected, r
        assert 0 < expected < 100
