"""The passes' views of the graph's columns (``ints.py``) hold the columns' values, a slice
of a column included (its buffer starts before the slice), and a writable copy of one changes
the copy only."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from kernelscope.timeline.analysis.critical_path.ints import column, ints, writable
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.model import TimelineReport


def test_a_view_holds_the_column_a_slice_and_a_flag(
        sample_report: Callable[[str], TimelineReport]) -> None:
    graph = TimelineData(sample_report("timeline_torch")).critical_model.graph
    edges = graph.edges
    assert edges.height > 100
    assert list(ints(edges["src"])) == edges["src"].to_list()
    assert list(ints(edges["from_start"])) == [int(x) for x in edges["from_start"].to_list()]
    middle = graph.nodes["start"].slice(37, 50)
    assert list(ints(middle)) == middle.to_list()
    assert list(ints(middle.slice(50, 0))) == []


def test_a_writable_copy_leaves_the_view_as_it_was(
        sample_report: Callable[[str], TimelineReport]) -> None:
    starts = TimelineData(sample_report("timeline_torch")).critical_model.graph.nodes["start"]
    view = ints(starts)
    copy = writable(view)
    copy[0] = -1
    assert view[0] == starts[0] != -1
    assert pl.Series(copy, dtype=pl.Int64).slice(1).to_list() == starts.slice(1).to_list()


def test_a_column_of_an_array_or_a_view_holds_their_values_and_keeps_none_of_them(
        sample_report: Callable[[str], TimelineReport]) -> None:
    """``column`` copies the bytes of an array or a view into an Int64 series: the same
    values as the series made one int at a time, and changing the array later leaves it."""
    ends = TimelineData(sample_report("timeline_torch")).critical_model.graph.nodes["end"]
    copy = writable(ints(ends))
    made = column(copy)
    assert made.dtype == pl.Int64
    assert made.to_list() == ends.to_list() == column(ints(ends)).to_list()
    copy[0] += 1
    assert made[0] == ends[0]
    assert column([3, -1]).to_list() == [3, -1]
