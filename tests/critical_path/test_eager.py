"""``eager.py``'s column steps give what the polars expressions they stand for give, on a real
graph's columns (nulls, negative numbers and empty columns included)."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
import pytest

from kernelscope.timeline.analysis.critical_path.eager import (
    INDEX,
    at_least,
    filled,
    positions,
    run_starts,
    shifted,
    take,
    where,
)
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.model import TimelineReport


def _same(got: pl.Series, expected: pl.Series) -> None:
    assert (got.dtype, got.len(), got.to_list()) == (expected.dtype, expected.len(),
                                                     expected.to_list())


def test_each_step_gives_what_its_polars_expression_gives(
        sample_report: Callable[[str], TimelineReport]) -> None:
    graph = TimelineData(sample_report("timeline_torch")).critical_model.graph
    src, dst, start = graph.edges["src"], graph.edges["dst"], graph.nodes["start"]
    assert src.len() > 100
    late = (dst % 3 == 0).alias("late")
    lanes = graph.nodes["lane"].gather(src)  # runs of equal values, as the edges give them
    gappy = pl.select(pl.when(late).then(None).otherwise(src - 50)).to_series()  # nulls, < 0
    kept = gappy.filter(gappy >= 0)
    for got, expected in (
            (where(late, src, dst), pl.select(pl.when(late).then(src).otherwise(dst))),
            (where(late, src, -1), pl.select(pl.when(late).then(src).otherwise(-1))),
            (where(late, 7, dst), pl.select(pl.when(late).then(7).otherwise(dst))),
            (where(gappy > 0, src, dst), pl.select(pl.when(gappy > 0).then(src).otherwise(dst))),
            (at_least(src - 50, 0), (src - 50).clip(0)),
            (take(start, dst), start.gather(dst)),
            (take(start, gappy), start.gather(gappy)),
            (take(start, positions(dst)), start.gather(dst)),
            (take(start, positions(kept)), start.gather(kept)),
            (take(start, gappy.filter(gappy.is_null())), start.gather(gappy.filter(late))),
            (run_starts(lanes), (lanes != lanes.shift(1)).fill_null(True)),
            (run_starts(lanes.head(0)), (lanes != lanes.shift(1)).fill_null(True).head(0)),
            (shifted(start, 0), start.shift(1, fill_value=0)),
            (shifted(start.head(0), 0), start.head(0).shift(1, fill_value=0)),
            (filled(-1, 9), pl.repeat(-1, 9, eager=True, dtype=pl.Int64)),
            (filled(None, 3), pl.repeat(None, 3, eager=True, dtype=pl.Int64)),
            (filled(False, 4, pl.Boolean), pl.repeat(False, 4, eager=True))):
        _same(got, expected if isinstance(expected, pl.Series) else expected.to_series())


@pytest.mark.skipif(pl.UInt32 != INDEX, reason="polars' index type holds every Int64")
def test_a_position_past_the_index_type_is_refused_not_wrapped_onto_a_row() -> None:
    """``take`` and ``positions`` narrow their positions without overflow checks only where
    each fits ``INDEX``: one past its range is refused as polars refuses it, not read as the
    row it would wrap to (1)."""
    values, past = pl.Series([10, 20, 30]), pl.Series([1, (1 << 32) + 1], dtype=pl.Int64)
    with pytest.raises(ValueError, match="smaller than 2"):
        take(values, past)
    with pytest.raises(pl.exceptions.InvalidOperationError):
        positions(past)
    with pytest.raises(pl.exceptions.OutOfBoundsError):
        take(values, pl.Series([0, 1 << 31], dtype=pl.Int64))
