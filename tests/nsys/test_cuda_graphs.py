"""CUDA graph launches of the real traces (``graph_replay``, ``gpu_metrics``) against SQL:
which kernels each ``cudaGraphLaunch`` ran (correlationId, graphNodeId)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from kernelscope.timeline.analysis.gap_causes import explain_gaps
from kernelscope.timeline.analysis.graphs import compare_graphs, graph_launches
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.export.timeline_json import to_export_dict
from kernelscope.timeline.export.timeline_markdown import render_timeline_markdown
from kernelscope.timeline.model.model import TimelineReport

LAUNCH_SQL = """
SELECT r.correlationId, r.start, r.end,
  (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k
     WHERE k.correlationId = r.correlationId AND k.graphNodeId IS NOT NULL),
  (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET m
     WHERE m.correlationId = r.correlationId AND m.graphNodeId IS NOT NULL),
  (SELECT min(start) FROM (SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL
     WHERE correlationId = r.correlationId UNION ALL SELECT start FROM CUPTI_ACTIVITY_KIND_MEMSET
     WHERE correlationId = r.correlationId)),
  (SELECT max(end) FROM (SELECT end FROM CUPTI_ACTIVITY_KIND_KERNEL
     WHERE correlationId = r.correlationId UNION ALL SELECT end FROM CUPTI_ACTIVITY_KIND_MEMSET
     WHERE correlationId = r.correlationId))
FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId
WHERE s.value LIKE 'cudaGraphLaunch%' ORDER BY r.start
"""


@pytest.mark.parametrize("name", ["graph_replay", "gpu_metrics"])
def test_launches_match_sql(name: str, sample_sqlite: Callable[[str], Path],
                            sample_report: Callable[[str], TimelineReport]) -> None:
    report = sample_report(name)
    with sqlite3.connect(f"file:{sample_sqlite(name)}?mode=ro", uri=True) as db:
        expected = db.execute(LAUNCH_SQL).fetchall()
        graph_kernels = db.execute(
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE graphNodeId IS NOT NULL"
        ).fetchone()[0]
    launches = graph_launches(report)
    assert launches.height == len(expected) == 40
    got = launches.select("correlation_id", "api_start", "api_end", "kernels", "memops",
                          "gpu_start", "gpu_end").rows()
    assert got == [tuple(r) for r in expected]
    assert int(launches["kernels"].sum()) == graph_kernels == 1120
    assert set(launches["kernels"]) == {28} and set(launches["memops"]) == {8}
    assert launches["graph"].n_unique() == 1
    assert (launches["busy_ns"] <= launches["span_ns"]).all()
    assert (launches["idle_ns"] == launches["span_ns"] - launches["busy_ns"]).all()
    assert launches["gap_before_ns"].null_count() == 1


def test_graph_against_eager(sample_report: Callable[[str], TimelineReport],
                             sample_sqlite: Callable[[str], Path]) -> None:
    report = sample_report("gpu_metrics")
    (g,) = compare_graphs(report)
    assert g.replays == 40 and g.kernels_per_replay == 28 and g.graph_kernels == 1120
    names = report.kernels.filter(pl.col("graph_node_id").is_not_null())["name"].unique()
    with sqlite3.connect(f"file:{sample_sqlite('gpu_metrics')}?mode=ro", uri=True) as db:
        placeholders = ", ".join("?" * names.len())
        eager = db.execute(
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
            "ON s.id = k.demangledName WHERE k.graphNodeId IS NULL "
            f"AND s.value IN ({placeholders})",
            [str(n) for n in names],
        ).fetchone()[0]
    assert g.eager_kernels == eager > 1000
    # The graph removed the launch gaps: kernels run back to back inside a replay.
    assert g.inner_gap_ns is not None and g.eager_gap_ns is not None
    assert g.inner_gap_ns < g.eager_gap_ns / 4
    assert g.graph_busy_pct > 75 > 50 > g.eager_busy_pct  # type: ignore[operator]
    assert g.eager_equivalent_ns > g.replay_span_ns  # type: ignore[operator]
    # One launch call for 28 kernels costs less than 28 eager launch calls.
    assert g.launch_call_ns < 28 * g.eager_launch_call_ns  # type: ignore[operator]


def test_gap_causes_know_graphs(sample_report: Callable[[str], TimelineReport]) -> None:
    report = sample_report("graph_replay")
    launches = graph_launches(report)
    gaps = explain_gaps(report, min_gap_ns=1_000, limit=None)
    inside = [g for g in gaps if g.cause == "in-graph"]
    assert len(inside) > 500
    windows = list(zip(launches["gpu_start"], launches["gpu_end"], strict=True))
    for g in inside:
        assert g.graph == "inside"
        assert any(a <= g.start_ns and g.end_ns <= b for a, b in windows)
    assert any(g.cause == "graph-launch" for g in gaps)
    eager = explain_gaps(sample_report("graph_eager"), min_gap_ns=1_000, limit=None)
    assert not any(g.graph or g.cause in ("in-graph", "graph-launch") for g in eager)


def test_graph_exports(sample_report: Callable[[str], TimelineReport]) -> None:
    data = TimelineData(sample_report("graph_replay"))
    doc = to_export_dict(data)["cuda_graphs"]
    assert len(doc["launches"]) == 40 and doc["launches"][0]["kernels"] == 28
    assert doc["graphs"][0]["replays"] == 40
    text = render_timeline_markdown(data)
    assert "## CUDA graphs" in text and "| Median gap between kernels |" in text
    plain = render_timeline_markdown(TimelineData(sample_report("graph_eager")))
    assert "No CUDA graph launches." in plain
