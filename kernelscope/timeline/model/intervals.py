"""Interval arithmetic on sorted, merged busy intervals (all integer nanoseconds).

The central structure is :class:`Coverage`: the union of a set of intervals kept as sorted,
non-overlapping ``starts``/``ends`` plus the running total of covered time before each
interval, so "how much of [a, b) is covered" is two binary searches, for any number of
windows at once.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import polars as pl

if TYPE_CHECKING:
    from polars._typing import PolarsDataType


def merge_intervals(df: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """Union of the [start, end) intervals in ``df``, per group of ``by`` columns.

    Overlapping or touching intervals are merged. Returns columns ``*by, start, end``,
    sorted by ``by`` then start. Rows with a null end or end < start are ignored.

    One sort and one running maximum, with no per-group window: each group's times are
    shifted by ``group_index * stride`` (stride > the whole time range) so groups cannot
    overlap, then a block starts wherever a start exceeds the running maximum of the ends.
    """
    keys = list(by)
    valid = df.select(*keys, "start", "end").filter(
        pl.col("end").is_not_null() & pl.col("start").is_not_null()
        & (pl.col("end") >= pl.col("start"))
    )
    schema: dict[str, PolarsDataType] = {
        **{k: valid.schema[k] for k in keys}, "start": pl.Int64, "end": pl.Int64
    }
    if not valid.height:
        return pl.DataFrame(schema=schema)
    if valid.height <= SMALL_MERGE and all(
            valid.schema[k].is_integer() or valid.schema[k] == pl.String for k in keys):
        return _merged_rows(valid, len(keys), schema)
    valid = valid.sort([*keys, "start"])
    lo = int(valid["start"].min())  # type: ignore[arg-type]
    stride = int(valid["end"].max()) - lo + 2  # type: ignore[arg-type]
    if keys:
        changed = pl.any_horizontal([pl.col(k).ne_missing(pl.col(k).shift(1)) for k in keys])
        group = changed.fill_null(True).cum_sum().cast(pl.Int64) - 1
    else:
        group = pl.lit(0, pl.Int64)
    offset = group * stride
    # One query: a block's end is the running maximum at its last row, filled back to its
    # first row, which the filter keeps.
    return (
        valid.lazy()
        .select(*keys, pl.col("start").cast(pl.Int64), pl.col("end").cast(pl.Int64),
                offset.alias("_off"))
        .with_columns((pl.col("end") - lo + pl.col("_off")).cum_max().alias("_reach"))
        .with_columns(((pl.col("start") - lo + pl.col("_off")) > pl.col("_reach").shift(1))
                      .fill_null(True).alias("_new"))
        .with_columns(pl.when(pl.col("_new").shift(-1).fill_null(True))
                      .then(pl.col("_reach") - pl.col("_off") + lo)
                      .fill_null(strategy="backward").alias("end"))
        .filter(pl.col("_new"))
        .select(*keys, "start", "end")
        .collect(engine="in-memory")
    )


KeyT = TypeVar("KeyT")

SMALL_MERGE = 512
"""Up to this many intervals, :func:`merge_intervals` merges them in Python: polars' fixed
cost per operation (about ten of them) is more than the work on so few rows."""


def _merged_rows(valid: pl.DataFrame, nkeys: int,
                 schema: dict[str, PolarsDataType]) -> pl.DataFrame:
    """:func:`merge_intervals` of ``valid`` (its key columns, then start and end; integer or
    string keys) row by row: the same rows in the same order (nulls first, as polars sorts)."""
    def order(row: tuple[object, ...]) -> tuple[object, ...]:
        return (*((v is not None, v) for v in row[:nkeys]), row[nkeys])

    rows = ((row[:nkeys], int(row[nkeys]), int(row[nkeys + 1]))
            for row in sorted(valid.iter_rows(), key=order))
    keys, starts, ends = merged_in_order(rows)
    columns = {name: [k[i] for k in keys] for i, name in enumerate(list(schema)[:nkeys])}
    return pl.DataFrame({**columns, "start": starts, "end": ends}, schema=schema)


def merged_in_order(
    rows: Iterable[tuple[KeyT, int, int]],
) -> tuple[list[KeyT], list[int], list[int]]:
    """(key, start, end) rows sorted by key then start, merged where one starts at or before
    the end of the last with its key (touching intervals merge): the keys, starts and ends."""
    keys: list[KeyT] = []
    starts: list[int] = []
    ends: list[int] = []
    for key, start, end in rows:
        if keys and keys[-1] == key and start <= ends[-1]:
            ends[-1] = max(ends[-1], end)
        else:
            keys.append(key)
            starts.append(start)
            ends.append(end)
    return keys, starts, ends


@dataclass(frozen=True)
class Coverage:
    """Sorted, non-overlapping intervals with prefix sums of their lengths."""

    starts: pl.Series
    ends: pl.Series
    before: pl.Series  # covered time before interval i

    @classmethod
    def from_intervals(cls, df: pl.DataFrame) -> Coverage:
        """Build from a frame with start/end columns (merged here if needed)."""
        merged = merge_intervals(df) if df.height else pl.DataFrame(
            schema={"start": pl.Int64, "end": pl.Int64}
        )
        starts = merged["start"].cast(pl.Int64)
        ends = merged["end"].cast(pl.Int64)
        lengths = ends - starts
        before = (lengths.cum_sum() - lengths) if lengths.len() else lengths
        return cls(starts.rename("start"), ends.rename("end"), before.rename("before"))

    @property
    def count(self) -> int:
        return self.starts.len()

    @property
    def total(self) -> int:
        if not self.count:
            return 0
        return int(self.before[-1] + self.ends[-1] - self.starts[-1])

    def covered_until(self, times: pl.Series) -> pl.Series:
        """Covered time in (-inf, t) for each t of ``times`` (Int64)."""
        times = times.cast(pl.Int64)
        if not self.count:
            return pl.zeros(times.len(), pl.Int64, eager=True)
        idx = (self.starts.search_sorted(times, side="right").cast(pl.Int64) - 1).rename("i")
        safe = idx.clip(lower_bound=0)
        s = self.starts.gather(safe)
        length = self.ends.gather(safe) - s
        part = (times - s).clip(lower_bound=0)
        part = part.zip_with(part < length, length)
        out: pl.Series = self.before.gather(safe) + part
        covered: pl.Series = out.zip_with(idx >= 0, pl.zeros(times.len(), pl.Int64, eager=True))
        return covered

    def covered_at(self, t: int) -> int:
        """:meth:`covered_until` of one time, without a frame operation per step (a gap's
        cause asks it a few times a gap)."""
        i = int(self.starts.search_sorted(t, side="right")) - 1 if self.count else -1
        if i < 0:
            return 0
        start = int(self.starts[i])
        return int(self.before[i]) + min(max(t - start, 0), int(self.ends[i]) - start)

    def covered_at_each(self, times: Sequence[int | None]) -> list[int]:
        """:meth:`covered_at` of each of a few hundred times (0 for a null one), looked up in
        Python: a lookup in frames is ten frame operations, each with a fixed cost above this
        whole loop's (not so for thousands of times: :meth:`covered_until` then)."""
        if not self.count:
            return [0] * len(times)
        starts, ends, before = self.starts.to_list(), self.ends.to_list(), self.before.to_list()
        out: list[int] = []
        for t in times:
            i = -1 if t is None else bisect_right(starts, t) - 1
            out.append(0 if t is None or i < 0
                       else before[i] + min(max(t - starts[i], 0), ends[i] - starts[i]))
        return out

    def busy_between(self, t0: int, t1: int) -> int:
        """Covered time within [t0, t1)."""
        if t1 <= t0:
            return 0
        return self.covered_at(t1) - self.covered_at(t0)

    def busy_per_bin(self, edges: pl.Series) -> pl.Series:
        """Covered time inside each [edges[i], edges[i+1]) (len(edges) - 1 values)."""
        cum = self.covered_until(edges)
        return cum.diff().slice(1)

    def gaps(self, t0: int | None = None, t1: int | None = None) -> pl.DataFrame:
        """Uncovered stretches between consecutive intervals (start, end, duration).

        Only gaps between the first and last interval are returned; ``t0``/``t1`` restrict
        them to those that overlap the window (gaps are clipped to it).
        """
        if self.count < 2:
            return pl.DataFrame(schema={"start": pl.Int64, "end": pl.Int64,
                                        "duration": pl.Int64})
        g = pl.DataFrame({"start": self.ends.slice(0, self.count - 1),
                          "end": self.starts.slice(1)})
        if t0 is not None:
            g = g.filter(pl.col("end") > t0).with_columns(pl.col("start").clip(lower_bound=t0))
        if t1 is not None:
            g = g.filter(pl.col("start") < t1).with_columns(pl.col("end").clip(upper_bound=t1))
        return g.with_columns((pl.col("end") - pl.col("start")).alias("duration"))


def overlap_sum_until(df: pl.DataFrame, times: pl.Series, origin: int = 0) -> pl.Series:
    """For each t, the sum over every interval of its length inside (-inf, t), NOT merged.

    Overlapping intervals count twice (this is how ``nsys analyze gpu_time_util`` adds up
    concurrent work). Computed from sorted starts and ends with prefix sums:
    ``sum(t - s for s < t) - sum(t - e for e < t)``. Times are shifted by ``origin`` to keep
    the products small.
    """
    starts = (df["start"].cast(pl.Int64) - origin).sort()
    ends = (df["end"].cast(pl.Int64) - origin).sort()
    t = times.cast(pl.Int64) - origin
    if not starts.len():
        return pl.zeros(t.len(), pl.Int64, eager=True)
    s_cum = pl.concat([pl.Series([0], dtype=pl.Int64), starts.cum_sum()])
    e_cum = pl.concat([pl.Series([0], dtype=pl.Int64), ends.cum_sum()])
    ns = starts.search_sorted(t, side="left").cast(pl.Int64)
    ne = ends.search_sorted(t, side="left").cast(pl.Int64)
    covered: pl.Series = (ns * t - s_cum.gather(ns)) - (ne * t - e_cum.gather(ne))
    return covered
