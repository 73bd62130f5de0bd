"""The passes' views of the graph's columns (``ints.py``) hold the columns' values, a slice
of a column included (its buffer starts before the slice), and a writable copy of one changes
the copy only."""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from kernelscope.timeline.analysis.critical_path import ints as ints_module
from kernelscope.timeline.analysis.critical_path.ints import column, ints, writable
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.model import TimelineReport
from tests.processes import fresh_command


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
    """``column`` copies the bytes of an array into an Int64 series, and gives a view back
    its own column: the same values as the series made one int at a time, and changing the
    array later leaves it."""
    ends = TimelineData(sample_report("timeline_torch")).critical_model.graph.nodes["end"]
    copy = writable(ints(ends))
    made = column(copy)
    assert made.dtype == pl.Int64
    assert made.to_list() == ends.to_list() == column(ints(ends)).to_list()
    view = ints(ends)
    assert column(view) is column(view)  # the view's own column, not a copy
    copy[0] += 1
    assert made[0] == ends[0]
    assert column([3, -1]).to_list() == [3, -1]


def test_a_view_of_a_chunked_column_outlives_it_and_a_null_is_refused(
        sample_report: Callable[[str], TimelineReport]) -> None:
    """A column in several chunks is read whole; the view keeps the column's buffer after
    the series is gone; a column with a null has no value to give there: ValueError."""
    starts = TimelineData(sample_report("timeline_torch")).critical_model.graph.nodes["start"]
    chunked = pl.concat([starts.slice(0, 10), starts.slice(10)], rechunk=False)
    assert chunked.n_chunks() > 1
    view = ints(chunked)
    del chunked
    assert list(view) == starts.to_list()
    assert view.readonly
    with pytest.raises(ValueError, match="1 nulls"):
        ints(pl.Series("gap", [1, None, 3], dtype=pl.Int64))


def test_a_lent_array_is_given_back_when_its_column_goes(
        sample_report: Callable[[str], TimelineReport]) -> None:
    """polars releases what ``column`` lent it once the series is gone (no array kept)."""
    ends = TimelineData(sample_report("timeline_torch")).critical_model.graph.nodes["end"]
    before = len(ints_module._LENT)
    made = column(writable(ints(ends)))
    assert len(ints_module._LENT) == before + 1
    del made
    gc.collect()
    assert len(ints_module._LENT) == before


def test_a_timeline_export_imports_no_pyarrow(sample_sqlite: Callable[[str], Path]) -> None:
    """A fresh JSON export of a trace, its critical path and what-if included, runs without
    importing pyarrow (~0.035 s of CPU it would cost every export)."""
    code, out, imported = fresh_command(
        ["export", str(sample_sqlite("timeline_torch")), "-f", "json"], "pyarrow")
    assert (code, '"critical_path"' in out, imported) == (0, True, False)
