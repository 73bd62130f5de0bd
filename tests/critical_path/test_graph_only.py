"""The what-if reads a trace only for its graph (``OpenOptions.graph_only``): the graph, and
so every answer, is the one the whole read gives, on every Nsight Systems sample."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.analysis.critical_path.graph import build_graph
from kernelscope.timeline.analysis.critical_path.whatif import Faster, Model
from kernelscope.timeline.model.model import TimelineReport

SAMPLES = ["timeline_plain", "timeline_torch", "many_tiny", "join_trace", "graph_eager",
           "gpu_metrics", "zoo"]


def _same(left: pl.DataFrame, right: pl.DataFrame) -> None:
    """Equal frames, categorical columns compared by their text."""
    def text(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.with_columns(pl.col(pl.Categorical).cast(pl.String))
    assert text(left).equals(text(right))


@pytest.mark.parametrize("name", SAMPLES)
def test_the_graph_read_alone_is_the_graph_of_the_whole_read(
        name: str, sample_sqlite: Callable[[str], Path],
        sample_report: Callable[[str], TimelineReport]) -> None:
    whole = build_graph(sample_report(name))
    alone = build_graph(open_report(sample_sqlite(name), kernel_details=False, graph_only=True))
    for part in ("nodes", "edges", "steps", "ranges"):
        _same(getattr(alone, part), getattr(whole, part))
    assert alone.launch_latency_ns == whole.launch_latency_ns


def test_the_graph_read_leaves_out_what_only_other_views_read(
        sample_sqlite: Callable[[str], Path]) -> None:
    report = open_report(sample_sqlite("timeline_torch"), kernel_details=False, graph_only=True)
    assert "context_id" not in report.kernels.columns
    assert "graph_node_id" not in report.kernels.columns
    assert "name" not in report.cuda_api.columns
    assert report.cuda_api["api"].dtype == pl.Categorical
    assert report.osrt.is_empty() and report.overhead.is_empty()


def test_a_whatif_of_the_graph_read_predicts_what_the_whole_read_does(
        sample_sqlite: Callable[[str], Path],
        sample_report: Callable[[str], TimelineReport]) -> None:
    change = [Faster.parse(".=2")]
    whole = Model(build_graph(sample_report("many_tiny"))).whatif(change)
    alone = Model(build_graph(open_report(sample_sqlite("many_tiny"), kernel_details=False,
                                          graph_only=True))).whatif(change)
    assert alone.steps.equals(whole.steps)
    assert alone.after.breakdown.equals(whole.after.breakdown)
