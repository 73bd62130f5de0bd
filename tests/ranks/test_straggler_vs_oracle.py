"""The four-rank gloo sample: the straggler, its lateness per step and the others' waits,
against the NVTX ranges ``nsys stats -r nvtx_pushpop_trace`` printed for each rank."""

from __future__ import annotations

import statistics
from pathlib import Path

import polars as pl
import pytest

from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.render.ranks import straggler_verdict
from tests.ranks.conftest import oracle_rows, session_start

RANKS = range(4)


@pytest.fixture(scope="module")
def oracle(rank_dir: Path) -> dict[str, dict[int, list[int]]]:
    """Per rank, the allreduce range starts and ends and the step durations nsys printed, the
    starts put on the earliest session's clock."""
    starts = {r: session_start(rank_dir / f"rank{r}.sqlite") for r in RANKS}
    base = min(starts.values())
    out: dict[str, dict[int, list[int]]] = {"arrival": {}, "exit": {}, "step": {}}
    for r in RANKS:
        rows = oracle_rows(r, "nvtx_pushpop_trace")
        ar = sorted((int(x["Start (ns)"]), int(x["End (ns)"])) for x in rows
                    if x["Name"] == ":allreduce")
        out["arrival"][r] = [s + starts[r] - base for s, _ in ar]
        out["exit"][r] = [e + starts[r] - base for _, e in ar]
        out["step"][r] = [int(x["Duration (ns)"]) for x in rows if x["Name"].startswith(":step")]
    return out


def test_ranks_numbered_from_the_environment_and_aligned_on_one_host(run: RunAnalysis,
                                                                       rank_dir: Path):
    assert list(run.ranks) == [0, 1, 2, 3]
    assert "RANK" in run.rank_source
    assert run.clock.method == "session start" and run.clock.safe
    starts = {r: session_start(rank_dir / f"rank{r}.sqlite") for r in RANKS}
    assert run.clock.offsets_ns == {r: starts[r] - min(starts.values()) for r in RANKS}
    assert run.comm_source == "nvtx"


def test_rank_2_is_the_straggler(run: RunAnalysis, oracle):
    s = run.straggler
    assert s is not None and s.rank == 2
    last = [max(RANKS, key=lambda r: oracle["arrival"][r][k]) for k in range(8)]
    assert s.last_count == last.count(2) == 7
    assert s.collectives == 8
    assert "rank 2 arrives last at 7 of 8" in straggler_verdict(s)


def test_lateness_per_step_equals_the_nvtx_ranges(run: RunAnalysis, oracle):
    s = run.straggler
    assert s is not None
    expected = []
    for k in range(8):
        others = [oracle["arrival"][r][k] for r in RANKS if r != 2]
        expected.append(oracle["arrival"][2][k] - statistics.median(others))
    got = s.steps.sort("step")
    assert got["step"].to_list() == list(range(8))
    assert got["late_ns"].to_list() == pytest.approx(expected, abs=0.5)
    assert s.late_ns_per_step == pytest.approx(statistics.median(expected), abs=0.5)
    # It alone held each collective up by its arrival minus the next latest one.
    delays = []
    for k in range(8):
        arrivals = sorted(oracle["arrival"][r][k] for r in RANKS)
        is_last = oracle["arrival"][2][k] == arrivals[-1]
        delays.append(arrivals[-1] - arrivals[-2] if is_last else 0)
    assert got["delay_ns"].to_list() == delays


def test_the_others_wait_for_the_last_rank(run: RunAnalysis, oracle):
    waits = run.step_waits.pivot(on="rank", index="step", values="wait_ns").sort("step")
    for k in range(8):
        last = max(oracle["arrival"][r][k] for r in RANKS)
        for r in RANKS:
            assert waits[str(r)][k] == last - oracle["arrival"][r][k], (k, r)
    # The straggler hardly waits; every other rank waits tens of milliseconds a step.
    median_wait = {r: statistics.median(last_minus for last_minus in
                                        (waits[str(r)].to_list())) for r in RANKS}
    assert median_wait[2] == 0
    assert all(median_wait[r] > 20e6 for r in (0, 1, 3))


def test_collective_exits_bound_the_alignment_error(run: RunAnalysis, oracle):
    spreads = [max(oracle["exit"][r][k] for r in RANKS) - min(oracle["exit"][r][k]
                                                              for r in RANKS)
               for k in range(8)]
    assert run.clock.exit_spread_ns == pytest.approx(statistics.median(spreads))
    assert run.clock.exit_spread_ns < 2e6  # well under the 30 ms lateness


def test_steps_and_communication_time_per_rank(run: RunAnalysis, oracle):
    for r in RANKS:
        summary = run.ranks[r]
        assert summary.step_source == "nvtx"
        assert summary.steps.height == 8
        assert summary.step_time_ns == statistics.median(oracle["step"][r])
        total = next(int(x["Total Time (ns)"]) for x in oracle_rows(r, "nvtx_sum")
                     if x["Range"] == ":allreduce")
        assert summary.comm_ns == total  # gloo: the collective's NVTX range, never nested


def test_what_the_straggler_did_instead(run: RunAnalysis):
    s = run.straggler
    assert s is not None
    data = s.instead.filter((pl.col("what") == "nvtx") & (pl.col("name") == "data")).row(
        0, named=True)
    assert data["extra_ns"] > 25e6  # ~40 ms of sleep, less the others' noisier data loading
    top = s.cpu_calls.row(0, named=True)
    assert (top["source"], top["name"]) == ("osrt", "clock_nanosleep")
    assert top["calls"] == s.last_count
    assert top["ns"] == pytest.approx(40e6 * s.last_count, rel=0.02)
    assert top["others_ns"] == 0
    sleeps = next(x for x in oracle_rows(2, "osrt_sum") if x["Name"] == "clock_nanosleep")
    assert top["ns"] <= int(sleeps["Total Time (ns)"])


def _merged_busy(rows: list[dict[str, str]]) -> int:
    spans = sorted((int(x["Start (ns)"]), int(x["Start (ns)"]) + int(x["Duration (ns)"]))
                   for x in rows)
    busy, end = 0, None
    for s, e in spans:
        if end is None or s > end:
            busy += e - s
            end = e
        elif e > end:
            busy += e - end
            end = e
    return busy


def test_gpu_busy_and_families_equal_nsys_stats(run: RunAnalysis):
    for r in RANKS:
        summary = run.ranks[r]
        trace = oracle_rows(r, "cuda_gpu_trace")
        assert summary.gpu_busy_ns == _merged_busy(trace)
        first = min(int(x["Start (ns)"]) for x in trace)
        last = max(int(x["Start (ns)"]) + int(x["Duration (ns)"]) for x in trace)
        assert summary.gpu_busy_pct == pytest.approx(100 * summary.gpu_busy_ns / (last - first))
        fams = {row["name"]: row for row in summary.families.iter_rows(named=True)}
        kern = oracle_rows(r, "cuda_gpu_kern_sum")
        assert len(fams) == len(kern)
        for k in kern:
            f = fams[k["Name"]]
            assert f["instances"] == int(k["Instances"])
            assert f["total_ns"] == int(k["Total Time (ns)"])
            assert (f["min_ns"], f["max_ns"]) == (int(k["Min (ns)"]), int(k["Max (ns)"]))
            assert f["med_ns"] == pytest.approx(float(k["Med (ns)"]), abs=0.05)


def test_no_rank_has_slower_kernels_on_the_shared_gpu(run: RunAnalysis):
    assert run.slow_ranks.height == 4
    assert not run.slow_ranks["slow"].any()
    assert not run.families["flagged"].any()
    assert run.slow_ranks["ratio"].to_list() == pytest.approx([1.0] * 4, abs=0.05)
