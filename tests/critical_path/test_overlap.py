"""The backward pass run on a thread of its own beside the paths' polars work
(``overlap.py``): the answers are those of the passes run one after the other, and the
passes' blocks go over every event once, in order."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
import pytest

from kernelscope.core.errors import ReportError
from kernelscope.timeline.analysis.critical_path import graph, result, whatif
from kernelscope.timeline.analysis.critical_path.overlap import BLOCK, in_blocks
from kernelscope.timeline.analysis.critical_path.result import critical_path
from kernelscope.timeline.analysis.critical_path.schedule import INF, latest_ends
from kernelscope.timeline.analysis.critical_path.whatif import Faster, Model
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.model import TimelineReport

NSYS = ["timeline_torch", "graph_eager", "join_trace", "zoo"]


@pytest.fixture(params=NSYS)
def report(request: pytest.FixtureRequest, sample_report: Callable[[str], TimelineReport],
           monkeypatch: pytest.MonkeyPatch) -> TimelineReport:
    """A sample's report, its passes and its graph's sync edges made on a thread of their
    own however few its events and nodes (the samples are smaller than the thresholds)."""
    monkeypatch.setattr(result, "BESIDE_EVENTS", 0)
    monkeypatch.setattr(whatif, "BESIDE_EVENTS", 0)
    monkeypatch.setattr(graph, "SYNC_BESIDE_NODES", 0)
    return sample_report(request.param)


def _fresh(report: TimelineReport) -> Model:
    """A model of ``report`` whose measured path is not made yet."""
    return Model(TimelineData(report).critical_model.graph)


def test_a_graph_with_its_sync_edges_made_beside_is_the_one_made_in_line(
        report: TimelineReport, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same nodes and, edge for edge but for the order among the sync edges (their
    ``unique`` keeps no order either way), the same edges."""
    together = graph.build_graph(report)
    monkeypatch.setattr(graph, "SYNC_BESIDE_NODES", 1 << 62)
    apart = graph.build_graph(report)
    assert together.nodes.equals(apart.nodes)
    assert together.steps.equals(apart.steps)
    every = together.edges.columns
    assert together.edges.sort(every).equals(apart.edges.sort(every))


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


def test_a_refused_whatif_leaves_the_model_answering(report: TimelineReport) -> None:
    """A what-if that matches nothing is refused after the measured path's pass ends; the
    model then answers as one never refused."""
    model = _fresh(report)
    with pytest.raises(ReportError, match="matches no GPU operation"):
        model.whatif([Faster("^no kernel is named this$", 2.0)])
    assert model.whatif([Faster(".", 2.0)]).steps.equals(
        _fresh(report).whatif([Faster(".", 2.0)]).steps)


@pytest.mark.parametrize("n", [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 5])
def test_the_blocks_go_over_every_place_once_in_order(n: int) -> None:
    places = list(range(n))
    assert list(in_blocks(n, lambda lo, hi: places[lo:hi])) == places
    assert list(in_blocks(n, lambda lo, hi: places[lo:hi][::-1], backward=True)) == places[::-1]
