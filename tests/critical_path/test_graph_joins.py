"""``gaps.asof_by`` gives the rows of polars' as-of join by a column, on a real graph's nodes:
without the column where every row holds one value of it, with it where they hold several."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from kernelscope.timeline.analysis.critical_path.gaps import asof_by, one_value
from kernelscope.timeline.analysis.critical_path.graph import build_graph
from kernelscope.timeline.analysis.critical_path.vocabulary import GPU
from kernelscope.timeline.model.model import TimelineReport


def _by_join(left: pl.LazyFrame, right: pl.LazyFrame, by: str) -> pl.DataFrame:
    return left.join_asof(right, left_on="start", right_on="other_end", by=by,
                          strategy="backward", check_sortedness=False).collect()


def test_asof_by_gives_the_join_by_the_column(
        sample_report: Callable[[str], TimelineReport]) -> None:
    nodes = build_graph(sample_report("timeline_torch")).nodes
    ops = nodes.filter(pl.col("cls") == GPU)
    assert ops.height > 100 and one_value(ops["pid"]) and not one_value(ops["lane"])
    left = ops.select("node", "pid", "lane", "start").lazy().sort("start")
    right = ops.select(pl.col("node").alias("other"), "pid", "lane",
                       pl.col("end").alias("other_end")).lazy().sort("other_end")
    for by in ("pid", "lane"):  # one value (joined without it), then several (with it)
        got = asof_by(left, right, {by: one_value(ops[by])}, left_on="start",
                      right_on="other_end").collect()
        expected = _by_join(left, right, by)
        assert got.columns == expected.columns
        assert got.equals(expected)
        assert got["other"].null_count() < got.height  # the join found rows
    both = asof_by(left, right, {"pid": True, "lane": False}, left_on="start",
                   right_on="other_end").collect()
    expected = left.join_asof(right, left_on="start", right_on="other_end", by=["pid", "lane"],
                              strategy="backward", check_sortedness=False).collect()
    assert both.equals(expected)


def test_one_value() -> None:
    assert one_value(pl.Series([3, 3, 3]))
    assert not one_value(pl.Series([3, 4, 3]))
    assert not one_value(pl.Series([3, None, 3]))
