"""The rest of the per-rank overview on the four-rank gloo sample, against what ``nsys stats``
printed for each rank: idle gaps (and the share the collectives explain), compute /
communication overlap, the heatmap; then two altered copies of the sample: one rank's kernels
made 30 % slower (a slower GPU) and one trace said to come from another host (clocks)."""

from __future__ import annotations

import itertools
import json
import shutil
import sqlite3
from pathlib import Path

import polars as pl
import pytest

from kernelscope.kinds.ranks.analysis.heatmap import heatmap, rank_utilization
from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.analysis.reduce import ReduceOptions
from kernelscope.kinds.ranks.analysis.run import analyse_run
from kernelscope.timeline.analysis.gap_cause_catalog import GAP_CAUSES
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.tui.cli import main
from tests.ranks.conftest import oracle_rows

RANKS = range(4)
SLOWER = 1.3


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _covered(spans: list[tuple[int, int]], lo: int, hi: int) -> int:
    return sum(max(0, min(e, hi) - max(s, lo)) for s, e in spans)


def _gpu_ops(rank: int, kernels_only: bool = False) -> list[tuple[int, int]]:
    rows = oracle_rows(rank, "cuda_gpu_trace")
    return [(int(x["Start (ns)"]), int(x["Start (ns)"]) + int(x["Duration (ns)"]))
            for x in rows if not (kernels_only and x["Name"].startswith("[CUDA mem"))]


def _allreduce(rank: int) -> list[tuple[int, int]]:
    return _merged([(int(x["Start (ns)"]), int(x["End (ns)"]))
                    for x in oracle_rows(rank, "nvtx_pushpop_trace")
                    if x["Name"] == ":allreduce"])


def test_idle_gaps_are_the_gaps_between_the_gpu_operations_nsys_printed(run: RunAnalysis):
    for r in RANKS:
        busy = _merged(_gpu_ops(r))
        gaps = [(a[1], b[0]) for a, b in itertools.pairwise(busy) if b[0] - a[1]
                >= TIMELINE_THRESHOLDS.large_gap_ns]
        got = run.ranks[r].gaps
        assert int(got["gaps"].sum()) == len(gaps), r
        assert int(got["ns"].sum()) == sum(e - s for s, e in gaps), r
        # A gap is "communication" when the rank's allreduce ranges cover half of it.
        comm = [(s, e) for s, e in gaps if 2 * _covered(_allreduce(r), s, e) >= e - s]
        row = got.filter(pl.col("cause") == "communication").row(0, named=True)
        assert (row["gaps"], row["ns"]) == (len(comm), sum(e - s for s, e in comm)), r
    # The others idle in the collective far longer than the straggler, who keeps them waiting.
    comm_ns = {r: run.ranks[r].gaps.filter(pl.col("cause") == "communication")["ns"].item()
               for r in RANKS}
    assert all(comm_ns[2] * 3 < comm_ns[r] for r in (0, 1, 3))


def test_overlap_of_compute_with_the_collectives(run: RunAnalysis):
    for r in RANKS:
        kernels = _merged(_gpu_ops(r, kernels_only=True))
        inside = sum(_covered(kernels, s, e) for s, e in _allreduce(r))
        summary = run.ranks[r]
        assert summary.compute_ns == sum(e - s for s, e in kernels)
        assert summary.overlap_ns == inside, r
        # gloo reduces on the CPU: the GPU is all but idle during the all-reduce.
        assert summary.overlap_pct is not None and summary.overlap_pct < 1.0


def test_the_heatmap_columns_hold_the_busy_time_nsys_printed(run: RunAnalysis):
    for r in RANKS:
        summary = run.ranks[r]
        assert summary.gpu_start_ns is not None and summary.gpu_end_ns is not None
        off = run.clock.offsets_ns[r]
        whole = rank_utilization(summary, off, summary.gpu_start_ns + off,
                                 summary.gpu_end_ns + off, 1)
        assert whole == [pytest.approx(summary.gpu_busy_ns
                                       / (summary.gpu_end_ns - summary.gpu_start_ns))]
        # Each of 64 columns: the busy time of the merged operations in it, to the curve's
        # resolution (4,096 points over the GPU span: two points' worth of time per column).
        busy = _merged(_gpu_ops(r))
        span = summary.gpu_end_ns - summary.gpu_start_ns
        step = span / 4096
        cols = rank_utilization(summary, off, summary.gpu_start_ns + off,
                                summary.gpu_end_ns + off, 64)
        for i, value in enumerate(cols):
            lo = summary.gpu_start_ns + span * i // 64
            hi = summary.gpu_start_ns + span * (i + 1) // 64
            assert value * (hi - lo) == pytest.approx(_covered(busy, lo, hi), abs=2 * step)
    grid = heatmap(run, width=40)
    assert sorted(grid) == list(RANKS) and all(len(v) == 40 for v in grid.values())


# -- a slower GPU --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def slow_run(rank_dir: Path, cache_dir: Path, tmp_path_factory: pytest.TempPathFactory
             ) -> RunAnalysis:
    """The sample with every kernel of rank 1 lasting 30 % longer."""
    out = tmp_path_factory.mktemp("slow-gpu")
    for r in RANKS:
        target = out / f"rank{r}.sqlite"
        shutil.copyfile(rank_dir / f"rank{r}.sqlite", target)
        target.chmod(0o644)
    with sqlite3.connect(out / "rank1.sqlite") as conn:
        conn.execute(f'UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start + '
                     f'CAST(("end" - start) * {SLOWER} AS INTEGER)')
    return analyse_run([out], options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)


def test_a_rank_with_slower_kernels_is_flagged(slow_run: RunAnalysis, run: RunAnalysis):
    slow = {row["rank"]: row for row in slow_run.slow_ranks.iter_rows(named=True)}
    assert [r for r, row in slow.items() if row["slow"]] == [1]
    assert slow[1]["ratio"] == pytest.approx(SLOWER, rel=0.05)
    assert all(slow[r]["ratio"] < 1.05 for r in (0, 2, 3))
    flagged = slow_run.families.filter(pl.col("flagged"))
    assert flagged.height and set(flagged["slowest_rank"].to_list()) == {1}
    assert flagged["ratio"].to_list() == pytest.approx([SLOWER] * flagged.height, rel=0.05)
    # The three families with the most kernel time are among them (the unaltered run flags
    # none, test_straggler_vs_oracle); a family whose durations are bimodal may not be: its
    # median can move by less than the stretch.
    heaviest = run.families.filter(~pl.col("comm")).sort("total_ns", descending=True)
    assert set(heaviest["name"].head(3).to_list()) <= set(flagged["name"].to_list())
    assert slow_run.straggler is not None and slow_run.straggler.rank == 2


def test_the_slower_gpu_is_said_headless(slow_run: RunAnalysis, capsys):
    from kernelscope.export.summary import make_console
    from kernelscope.export.writer import ExportOptions
    from kernelscope.kinds.ranks.export.ranks import print_run_summary, render_run_md

    print_run_summary(slow_run, make_console(None))
    out = capsys.readouterr().out
    assert "Slower GPU: rank 1's kernels run 1.28x" in out
    assert "Slower kernel on rank 1: nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT 1.30x" in out
    md = render_run_md(slow_run, ExportOptions(fmt="md"))
    assert "Rank 1's kernels run 1.28x" in md and "a slower GPU" in md


# -- ranks on different hosts --------------------------------------------------------------
def test_traces_from_another_host_make_the_alignment_unsafe(rank_dir: Path, cache_dir: Path,
                                                            tmp_path: Path, capsys):
    for r in RANKS:
        target = tmp_path / f"rank{r}.sqlite"
        shutil.copyfile(rank_dir / f"rank{r}.sqlite", target)
        target.chmod(0o644)
    with sqlite3.connect(tmp_path / "rank3.sqlite") as conn:
        assert conn.execute("UPDATE TARGET_INFO_SYSTEM_ENV SET value = 'node-b' "
                            "WHERE name = 'Hostname'").rowcount == 1
    run = analyse_run([tmp_path], options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)
    assert run.clock.method == "session start" and not run.clock.safe
    assert run.clock.hosts == ["node-b", "vm"]
    assert "ranks ran on 2 hosts (node-b, vm)" in run.clock.note
    assert run.straggler is not None and run.straggler.rank == 2  # still said, with the caveat
    assert main(["summary", str(tmp_path), "--workers", "0", "--cache-dir",
                 str(cache_dir)]) == 0
    out = capsys.readouterr().out
    assert "ranks ran on 2 hosts" in out and "clock difference" in out


def test_every_gap_cause_of_a_rank_is_catalogued(run: RunAnalysis) -> None:
    """The ranks view names gap causes from the one catalogue, with its own two
    (``communication``, ``not explained``)."""
    causes = {c for rank in run.ranks.values() for c in rank.gaps["cause"].to_list()}
    assert causes and causes <= set(GAP_CAUSES)


def _expected_breakdown(rank: int) -> dict[str, int]:
    """HTA's temporal breakdown from the GPU operations ``nsys stats`` printed: the span from
    the first start to the last end, the idle time in it, and the computation kernels'
    merged time (the gloo sample has no NCCL kernel: every kernel computes)."""
    ops = _gpu_ops(rank)
    span = max(e for _, e in ops) - min(s for s, _ in ops)
    idle = span - sum(e - s for s, e in _merged(ops))
    compute = sum(e - s for s, e in _merged(_gpu_ops(rank, kernels_only=True)))
    return {"idle_ns": idle, "compute_ns": compute, "non_compute_ns": span - idle - compute,
            "kernel_ns": span}


def test_every_rank_has_htas_temporal_breakdown(run: RunAnalysis, rank_dir: Path,
                                                 cache_dir: Path, capsys):
    main(["export", str(rank_dir), "--format", "json", "--workers", "0",
          "--cache-dir", str(cache_dir)])
    doc = json.loads(capsys.readouterr().out)
    for r in RANKS:
        expected = _expected_breakdown(r)
        assert run.ranks[r].temporal is not None and run.ranks[r].temporal.as_ns() == expected
        row = doc["ranks"][r]
        assert {k: row["temporal_breakdown"][k] for k in expected} == expected, r
        span, idle = expected["kernel_ns"], expected["idle_ns"]
        assert row["temporal_breakdown"]["idle_pct"] == round(100 * idle / span, 2)
        assert row["comm_comp_overlap_pct"] is None  # no communication kernel


def test_one_rank_as_a_timeline_has_the_same_breakdown(rank_dir: Path, capsys):
    assert main(["export", str(rank_dir / "rank2.sqlite"), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    expected = _expected_breakdown(2)
    assert {k: doc["temporal_breakdown"][k] for k in expected} == expected
    assert doc["comm_comp_overlap_pct"] is None
