"""The backward pass run on a thread of its own beside the paths' polars work
(``overlap.py``): the answers are those of the passes run one after the other, and the
interpreter's switch interval is given back however the work ends."""

from __future__ import annotations

import sys
from collections.abc import Callable

import polars as pl
import pytest

from kernelscope.core.errors import ReportError
from kernelscope.timeline.analysis.critical_path.result import critical_path
from kernelscope.timeline.analysis.critical_path.schedule import INF, latest_ends
from kernelscope.timeline.analysis.critical_path.whatif import Faster, Model
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.model import TimelineReport

NSYS = ["timeline_torch", "graph_eager", "join_trace", "zoo"]


@pytest.fixture(params=NSYS)
def report(request: pytest.FixtureRequest, sample_report: Callable[[str], TimelineReport]
           ) -> TimelineReport:
    return sample_report(request.param)


def _fresh(report: TimelineReport) -> Model:
    """A model of ``report`` whose measured path is not made yet."""
    return Model(TimelineData(report).critical_model.graph)


def test_the_slack_made_beside_the_sums_is_the_backward_pass_run_alone(
        report: TimelineReport) -> None:
    model = _fresh(report)
    graph, plan, run = model.graph, model.plan, model.measured
    alone = latest_ends(plan, run, nodes=graph.step_ops["node"])
    end = run.series()[1].gather(graph.step_ops["node"])
    slack = graph.step_ops.with_columns(
        pl.when(alone < INF // 2).then(alone - end).alias("slack")).join(
        graph.nodes.select("node", pl.col("name").cast(pl.String)), on="node").group_by(
        "family").agg(pl.col("name").first(), pl.col("slack").min())
    families = critical_path(graph, plan, run).families
    assert dict(slack.select("name", "slack").iter_rows()) == dict(
        families.select("name", "slack_ns").iter_rows())


def test_a_whatif_with_its_measured_path_made_beside_it_is_the_one_made_after_it(
        report: TimelineReport) -> None:
    changes = [Faster(".", 2.0)]
    serial = _fresh(report)
    assert serial.critical_path.steps.height  # made first, alone: the what-if replays only
    together, apart = _fresh(report).whatif(changes), serial.whatif(changes)
    assert together.steps.equals(apart.steps)
    for name in ("steps", "breakdown", "kinds", "families"):
        assert getattr(together.before, name).equals(getattr(apart.before, name)), name
        assert getattr(together.after, name).equals(getattr(apart.after, name)), name


def test_a_refused_whatif_gives_the_switch_interval_back(report: TimelineReport) -> None:
    interval = sys.getswitchinterval()
    with pytest.raises(ReportError, match="matches no GPU operation"):
        _fresh(report).whatif([Faster("^no kernel is named this$", 2.0)])
    assert sys.getswitchinterval() == interval
