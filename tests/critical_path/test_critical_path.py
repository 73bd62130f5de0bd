"""The critical path on the committed timelines: the graph replays every measured time, each
step's path adds up to the step, slack is never negative, and a what-if that changes nothing
predicts the measured steps."""

from __future__ import annotations

import re
from collections.abc import Callable

import polars as pl
import pytest

from kernelscope.kinds.kineto.analysis.timeline import KinetoTimelineData, open_kineto
from kernelscope.timeline.analysis.critical_path.schedule import INF, latest_ends, replay
from kernelscope.timeline.analysis.critical_path.whatif import Faster, Model
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.model import TimelineReport
from tests.conftest import SAMPLES

NSYS = ["timeline_torch", "graph_eager", "join_trace", "zoo"]
KINETO = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


@pytest.fixture(scope="module")
def kineto() -> KinetoTimelineData:
    return open_kineto(KINETO)


def _data(name: str, sample_report: Callable[[str], TimelineReport],
          kineto: KinetoTimelineData) -> TimelineData:
    return kineto if name == "kineto_step" else TimelineData(sample_report(name))


@pytest.fixture(params=[*NSYS, "kineto_step"])
def model(request: pytest.FixtureRequest, sample_report: Callable[[str], TimelineReport],
          kineto: KinetoTimelineData) -> Model:
    return _data(request.param, sample_report, kineto).critical_model


def test_replaying_the_measured_durations_gives_back_every_measured_time(model: Model) -> None:
    """The forward pass over the measured durations gives back every measured time, and
    decides each start and end by the same edge as the columns do (``measured_replay``)."""
    nodes = model.graph.nodes
    run = replay(model.plan)
    assert list(run.start) == nodes["start"].to_list()
    assert list(run.end) == nodes["end"].to_list()
    assert run.start_by == model.measured.start_by
    assert run.end_by == model.measured.end_by


def test_every_steps_path_adds_up_to_the_step(model: Model) -> None:
    steps = model.critical_path.steps
    assert steps.height >= 1
    assert steps["path_ns"].to_list() == steps["step_ns"].to_list()
    assert (steps["step_ns"] == steps["end"] - steps["start"]).all()


def test_no_event_ends_later_than_its_latest_end(model: Model) -> None:
    late = latest_ends(model.plan, model.measured)
    assert all(x >= e for x, e in zip(late, model.measured.end, strict=True) if x < INF // 2)
    slack = model.critical_path.families["slack_ns"].drop_nulls()
    assert (slack >= 0).all()


def test_a_factor_of_one_predicts_the_measured_steps(model: Model) -> None:
    answer = model.whatif([Faster(".", 1.0)])
    assert answer.steps["predicted_ns"].to_list() == answer.steps["measured_ns"].to_list()
    assert answer.predicted_step_ns == answer.measured_step_ns


def test_faster_work_never_ends_the_steps_later(model: Model) -> None:
    """One step can lengthen (the previous one's GPU work now trails into it), but the steps
    together end no later."""
    answer = model.whatif([Faster(".", 2.0)])
    steps = answer.steps
    assert int(steps["predicted_ns"].sum()) <= int(steps["measured_ns"].sum())
    assert answer.changes[0].launches == model.graph.nodes.filter(pl.col("cls") == 2).height


def test_a_kernel_on_no_critical_path_saves_nothing(model: Model) -> None:
    """Shortening work off every longest path leaves every longest path as it was."""
    families = model.critical_path.families
    off = families.filter((pl.col("kind") == "kernel") & (pl.col("path_ns") == 0)
                          & ~pl.col("name").is_in(families.filter(pl.col("path_ns") > 0)["name"]
                                                  .implode()))
    if not off.height:
        pytest.skip("every kernel family of this trace is on a critical path")
    pattern = "|".join("^" + re.escape(name) + "$" for name in off["name"].head(5).to_list())
    answer = model.whatif([Faster(pattern, 4.0)])
    assert answer.steps["predicted_ns"].to_list() == answer.steps["measured_ns"].to_list()


def test_the_steps_are_the_profiler_steps_of_a_kineto_trace(kineto: KinetoTimelineData) -> None:
    steps = kineto.critical_path.steps
    assert steps["name"].to_list() == [f"ProfilerStep#{n}" for n in steps["step"].to_list()]
    ranges = kineto.trace.cpu.filter(pl.col("name").str.starts_with("ProfilerStep#")
                                     & (pl.col("cat") == "user_annotation"))
    assert sorted(steps["step_ns"].to_list()) == sorted((ranges["end"] - ranges["start"]).to_list())


def test_a_cpu_operator_made_faster_shortens_its_step(kineto: KinetoTimelineData) -> None:
    answer = kineto.critical_model.whatif([Faster("aten::randn", 4.0)])
    saved = (answer.steps["measured_ns"] - answer.steps["predicted_ns"]).to_list()
    assert max(saved) > 0 and min(saved) >= 0
    assert answer.changes[0].range_instances > 0 and answer.changes[0].launches == 0


def test_whole_trace_is_one_step_without_step_ranges(sample_report: Callable[[str], TimelineReport]
                                                     ) -> None:
    data = TimelineData(sample_report("zoo"))
    steps = data.critical_path.steps
    assert steps.height == 1 and steps["name"].item(0) is None
    ops = data.report.gpu_ops
    assert steps["end"].item(0) >= int(ops["end"].max())  # type: ignore[arg-type]


def test_path_names_the_cpu_ranges_it_runs_through(kineto: KinetoTimelineData) -> None:
    cpu = kineto.critical_path.breakdown.filter(pl.col("kind") == "cpu")
    names = set(kineto.trace.cpu["name"].to_list())
    assert cpu.height and set(cpu["name"].to_list()) <= names | {"(no range)"}




def test_a_trace_without_cuda_work_says_it_has_no_path(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """A Julia run traced with no CUDA call and no GPU work (JACC.jl's cg_trace) has no step:
    one sentence, not 'Median step — over 0 steps' above empty tables."""
    from kernelscope.tui.cli import main
    from tests.wild.conftest import require_wild

    trace = require_wild() / "nsys" / "D-W-Chiang__JACC.jl__cg_trace.sqlite.xz"
    assert main(["export", str(trace), "-f", "md"]) == 0
    section = capsys.readouterr().out.split("## Critical path\n\n")[1].split("\n\n")[0]
    assert section == ("No step to follow: the trace holds no CUDA call and no GPU work, so "
                       "it has no critical path.")


def test_the_breakdown_summed_by_number_is_the_one_summed_by_name(model: Model) -> None:
    """The breakdown is summed by name id and kind code, then named: the same table as the
    named segments summed by their strings; the predicted path's too."""
    answer = model.whatif([Faster(".", 2.0)])
    for cp in (model.critical_path, answer.after):
        segments = cp.segments
        total = max(int(segments["ns"].sum() or 0), 1)
        by_name = (segments.group_by("kind", "name").agg(
            pl.col("ns").sum(), (pl.col("ns") > 0).sum().cast(pl.UInt32).alias("count"))
            .filter(pl.col("ns") != 0).with_columns((100.0 * pl.col("ns") / total).alias("pct"))
            .sort(["ns", "kind", "name"], descending=[True, False, False]))
        assert cp.breakdown.height >= 1
        assert cp.breakdown.equals(by_name)


def test_each_steps_path_time_is_its_segments_summed(model: Model) -> None:
    """A step's ``path_ns`` (its chains' calls read from prefix sums over the calls, never
    expanded run by run: ``run_sums.py``) is its named segments summed, one by one; the
    predicted path's too, where the halved gaps are looked up part by part."""
    answer = model.whatif([Faster(".", 2.0)])
    for cp in (model.critical_path, answer.after):
        summed = cp.segments.group_by("step").agg(pl.col("ns").sum().alias("segments_ns"))
        steps = cp.steps.join(summed, on="step", how="left").with_columns(
            pl.col("segments_ns").fill_null(0))
        assert steps.height >= 1
        assert steps["path_ns"].to_list() == steps["segments_ns"].to_list()


def test_a_whole_cpu_gap_is_named_as_its_own_lookup_names_it(model: Model) -> None:
    """A CPU gap on a path is named by the range around the middle of its part on the path
    (as measured); a whole gap reads the name looked up once for its thread edge: the same
    name a lookup of that segment alone gives."""
    from kernelscope.timeline.analysis.critical_path.names import innermost_rows
    from kernelscope.timeline.analysis.critical_path.path import PathWalker

    graph, plan = model.graph, model.plan
    walker = PathWalker(graph, plan, model.measured, plan.dur)
    for step, begin, finish in graph.steps.select("step", "begin", "finish").iter_rows():
        walker.walk(step, begin, finish)
    coded = walker.coded()
    gaps = coded.filter(pl.col("edge") >= 0).join(
        graph.edges.with_row_index("edge").select(pl.col("edge").cast(pl.Int64), "etype"),
        on="edge").filter(pl.col("etype") == 0)  # THREAD: the CPU time between two calls
    assert gaps.height >= 1
    at = gaps.select(graph.nodes["lane"].gather(gaps["node"]).alias("global_tid"),
                     walker._measured_middle(gaps["node"], gaps["edge"], gaps["ns"]))
    assert gaps["name_id"].to_list() == innermost_rows(graph.names, at).to_list()
