"""Per-rank Kineto traces as the ranks of one run: straggler, waits, mixed runs refused."""

from __future__ import annotations

import shutil
from pathlib import Path

from kernelscope.kinds import kind_for
from kernelscope.kinds.kineto.analysis.ranks import open_kineto_run
from tests.conftest import SAMPLES
from tests.kineto.test_kineto_inputs import run_cli

RANKS = SAMPLES / "kineto" / "ranks"


def test_folder_of_traces_is_a_run() -> None:
    assert kind_for([RANKS]).name == "kineto-ranks"


def test_the_slowed_rank_is_the_straggler() -> None:
    run = open_kineto_run([RANKS])
    assert run.source == "backend-ranges"
    assert [c.straggler for c in run.collectives] == [2, 2, 2, 2]
    assert [c.late_by_ns for c in run.collectives] == [31760928, 29022863, 30087349, 30615855]
    assert run.straggler == (2, 4, 30351602)
    assert run.collectives[2].waits_ns == {0: 30605087, 1: 30087349, 2: 0, 3: 29968258}


def test_the_straggler_is_late_by_the_sleep() -> None:
    # kineto_ranks.py sleeps 30 ms on rank 2 right before every all-reduce: rank 2 is late
    # by the sleep, within 20 %, at every collective and in the median.
    run = open_kineto_run([RANKS])
    assert all(24_000_000 <= c.late_by_ns <= 36_000_000 for c in run.collectives)
    straggler = run.straggler
    assert straggler is not None and straggler[0] == 2
    assert 24_000_000 <= straggler[2] <= 36_000_000


def test_ranks_of_different_runs_are_refused(tmp_path: Path) -> None:
    for name in ("rank1.pt.trace.json.xz", "rank2.pt.trace.json.xz"):
        shutil.copy(RANKS / name, tmp_path / name)
    shutil.copy(SAMPLES / "kineto" / "other_run" / "rank0.pt.trace.json.xz",
                tmp_path / "rank0.pt.trace.json.xz")
    out = run_cli("export", str(tmp_path), "--format", "json")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().endswith("they are ranks of different runs.")
    assert len(out.stderr.strip().splitlines()) == 1


def test_run_json_has_each_ranks_breakdown() -> None:
    import json

    out = run_cli("export", str(RANKS), "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["ranks"][2]["temporal_breakdown"]["kernel_ns"] == 117319000
    assert doc["ranks"][2]["comm_comp_overlap_pct"] is None
    assert doc["straggler"] == {"rank": 2, "collectives_last": 4, "median_late_ns": 30351602}


def test_heatmap_rows_per_rank() -> None:
    out = run_cli("export", str(RANKS), "--format", "md")
    assert out.returncode == 0, out.stderr
    assert "GPU busy per rank over 158.64 ms (aligned clock; blank idle, █ busy):" in out.stdout
    # The ranks keep the GPU under 8 % busy in every column: each row is blank (░ needs 12.5 %).
    assert "rank   2 |" + " " * 60 + "|" in out.stdout
    # The busy columns themselves: the four profiled steps, 15 columns (about 40 ms) apart.
    heat = open_kineto_run([RANKS]).heatmap[2]
    assert [i for i, share in enumerate(heat) if share > 0.01] == [0, 2, 15, 17, 30, 32, 45, 47]


def test_a_folder_with_logs_beside_the_traces_is_still_a_run(tmp_path: Path) -> None:
    for rank in range(4):
        name = f"rank{rank}.pt.trace.json.xz"
        shutil.copy(RANKS / name, tmp_path / name)
        (tmp_path / f"rank{rank}.log").write_text("step 0 loss 2.3\n")
    assert kind_for([tmp_path]).name == "kineto-ranks"
    assert open_kineto_run([tmp_path]).straggler == (2, 4, 30351602)
