"""The critical path and the what-if of a run of several ranks (issue 37): every rank's graph
joined at the collectives the ranks analysis matched. Replaying the measured times gives back
every rank's measured steps, and making the straggler's own work faster moves the last
arrival earlier, so the other ranks wait less."""

from __future__ import annotations

import json

import polars as pl
import pytest

from kernelscope.core.errors import ReportError
from kernelscope.export.whatif import render_whatif
from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.analysis.run import analyse_run
from kernelscope.kinds.ranks.analysis.run_whatif import RunModel, run_model
from kernelscope.timeline.analysis.critical_path.schedule import replay
from kernelscope.timeline.analysis.critical_path.whatif import Faster
from tests.conftest import SAMPLES
from tests.ranks.conftest import cache_dir, rank_dir
from tests.ranks.test_nccl_path import nccl_dir, nccl_run

__all__ = ["cache_dir", "nccl_dir", "nccl_run", "rank_dir"]  # the NCCL run's fixtures

RUNS = {"kineto_ranks": SAMPLES / "kineto" / "ranks",
        "kineto_uneven": SAMPLES / "kineto" / "uneven", "nsys_ranks": SAMPLES / "nsys" / "ranks"}
STRAGGLER_WORK = {"kineto_ranks": "ProfilerStep", "nsys_ranks": "data"}
"""What the straggler does in each run: a PyTorch step's CPU work, the NVTX range ``data``
(the one the ranks analysis names as where the straggler spends longer)."""


@pytest.fixture(scope="module", params=list(RUNS))
def run_case(request: pytest.FixtureRequest) -> tuple[str, RunModel, int | None]:
    run = analyse_run([RUNS[request.param]], workers=0)
    straggler = run.straggler.rank if run.straggler is not None else None
    return request.param, run_model(run), straggler


def test_replaying_a_run_gives_back_every_rank_s_measured_steps(
        run_case: tuple[str, RunModel, int | None]) -> None:
    _, model, _ = run_case
    replayed = replay(model.plan)
    assert list(replayed.start) == list(model.plan.start)
    assert list(replayed.end) == list(model.plan.end)
    assert replayed.start_by == model.measured.start_by  # decided by the same edges
    assert replayed.end_by == model.measured.end_by
    steps = model.critical_path.steps
    assert steps["rank"].n_unique() == model.graph.nodes["rank"].n_unique() >= 2
    assert steps["step_ns"].to_list() == (steps["end"] - steps["start"]).to_list()
    assert steps["path_ns"].to_list() == steps["step_ns"].to_list()
    assert model.calls.height >= 4  # the collectives were joined


def test_every_collective_edge_keeps_the_time_after_the_last_arrival(
        run_case: tuple[str, RunModel, int | None]) -> None:
    _, model, _ = run_case
    calls = model.calls
    assert (calls["after"] >= 0).all()
    assert (calls["end"] >= calls["last_arrival"]).all()
    kinds = model.critical_path.kinds["kind"].to_list()
    assert "communication" in kinds


def test_a_faster_straggler_shortens_the_other_ranks_waits(
        run_case: tuple[str, RunModel, int | None]) -> None:
    name, model, straggler = run_case
    if name not in STRAGGLER_WORK:  # the two ranks' captures differ: no straggler is named
        assert straggler is None
        return
    assert straggler is not None
    answer = model.whatif([Faster(STRAGGLER_WORK[name], 2.0, rank=straggler)])
    waits = model.waits(answer.after_start)
    others = waits.filter(pl.col("rank") != straggler)
    assert (others["predicted_ns"] < others["measured_ns"]).all()
    mine = answer.steps.filter(pl.col("rank") == straggler)
    assert mine["predicted_ns"].sum() < mine["measured_ns"].sum()


def test_the_whatif_command_on_a_run_folder_gives_each_rank_its_steps_and_waits() -> None:
    doc = json.loads(render_whatif(RUNS["kineto_ranks"], ["ProfilerStep=2@2"], "json"))
    assert {row["rank"] for row in doc["steps"]} == {0, 1, 2, 3}
    assert [row["rank"] for row in doc["waits"]] == [0, 1, 2, 3]
    assert doc["changes"][0]["range_instances"] == 4  # rank 2's four steps only
    text = render_whatif(RUNS["kineto_ranks"], ["ProfilerStep=2@2"], "md")
    assert "| rank 2: ProfilerStep#2 |" in text
    assert "Each rank's wait at the collectives" in text


def test_a_rank_named_on_one_trace_is_one_sentence() -> None:
    with pytest.raises(ReportError, match="name a rank only in the what-if of a run"):
        render_whatif(SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz", ["aten=2@1"], "json")


def test_the_ranks_json_and_markdown_carry_the_run_s_critical_path() -> None:
    from kernelscope.export.writer import ExportOptions
    from kernelscope.kinds.ranks.export.ranks import render_run_json, render_run_md

    run = analyse_run([RUNS["nsys_ranks"]], workers=0)
    doc = json.loads(render_run_json(run, ExportOptions(fmt="json")))["critical_path"]
    assert doc["available"] is True
    assert [row["rank"] for row in doc["ranks"]] == [0, 1, 2, 3]
    straggler = run.straggler.rank if run.straggler is not None else None
    waits = {row["rank"]: row["collective_wait_ns"] for row in doc["ranks"]}
    assert min(waits, key=lambda rank: waits[rank]) == straggler  # the last to arrive waits least
    assert "communication" in {row["kind"] for row in doc["kinds"]}
    text = render_run_md(run, ExportOptions(fmt="md"))
    assert "## Critical path of the run" in text
    assert "| Rank | Steps | Median step | Collectives | Waited at them |" in text


def test_a_run_joined_at_its_nccl_kernels_replays_and_moves_with_the_straggler(
        nccl_run: RunAnalysis) -> None:
    """The NCCL stand-in of ``tests/ranks/test_nccl_path.py`` (the four ranks' one-per-step
    kernel renamed to an all-reduce that ends once the last rank's has run as long): each
    kernel's end waits on every rank's kernel's start."""
    model = run_model(nccl_run)
    assert nccl_run.comm_source == "nccl" and model.calls.height == 32
    replayed = replay(model.plan)
    assert list(replayed.start) == list(model.plan.start)
    assert list(replayed.end) == list(model.plan.end)
    straggler = nccl_run.straggler.rank if nccl_run.straggler is not None else None
    assert straggler == 2
    answer = model.whatif([Faster("data", 2.0, rank=straggler)])
    waits = model.waits(answer.after_start).filter(pl.col("rank") != straggler)
    assert (waits["predicted_ns"] < waits["measured_ns"]).all()


def test_a_run_too_large_for_the_ranks_export_says_where_its_path_is(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelscope.kinds.ranks.export import ranks_critical

    run = analyse_run([RUNS["kineto_uneven"]], workers=0)
    kernels = sum(summary.kernels for summary in run.ranks.values())
    monkeypatch.setattr(ranks_critical, "EXPORT_KERNELS", kernels - 1)
    member = ranks_critical.critical_path_member(run)
    assert member == {"available": False, "reason": (
        f"The run's {kernels:,} kernels are more than the ranks export reads whole for the "
        f"critical path ({kernels - 1:,}); 'kernelscope whatif RUN_DIR --faster ...' computes "
        "it.")}


def test_a_folder_of_one_trace_is_sent_to_that_trace(tmp_path) -> None:
    """One rank is no run to join: the sentence names its trace, not missing collectives."""
    name = "rank0.pt.trace.json.xz"
    (tmp_path / name).symlink_to(RUNS["kineto_ranks"] / name)
    with pytest.raises(ReportError, match=r"one rank \(rank0\.pt\.trace\.json\.xz\).*name the "
                       "trace itself"):
        run_model(analyse_run([tmp_path], workers=0))


def test_a_rank_the_run_lacks_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    from kernelscope.tui.cli import main

    assert main(["whatif", str(RUNS["kineto_ranks"]), "--faster", "data=2@9"]) == 2
    err = capsys.readouterr().err
    assert "the run has no rank 9 (its ranks: 0, 1, 2, 3)" in err and err.count("\n") == 1
