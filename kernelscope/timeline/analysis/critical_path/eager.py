"""Small column operations computed straight on the series, not as a polars query.

A polars expression on a series (``Series.clip``, ``Series.gather``, ``pl.select(pl.when(…))``,
``pl.repeat(…, eager=True)``) runs as a query of a one-column frame: 30-100 µs of fixed cost
each, which the critical path's many small steps pay hundreds of times per trace. These give
the same values through the series' own methods (``zip_with``, ``new_from_index``, indexing by
a series), which run no query."""

from __future__ import annotations

import polars as pl

INDEX = pl.get_index_type()
"""Polars' own type of row positions (UInt32): indexing by a series of any other integer
type converts it first (a cast of the whole column and scans for negative positions,
which cost more than the gather itself)."""


def filled(value: int | bool | None, n: int, dtype: type[pl.DataType] = pl.Int64) -> pl.Series:
    """``n`` times ``value`` (``pl.repeat(value, n, eager=True, dtype=dtype)``)."""
    every: pl.Series = pl.Series("literal", [value], dtype=dtype).new_from_index(0, n)
    return every


def where(mask: pl.Series, yes: pl.Series | int, no: pl.Series | int) -> pl.Series:
    """Per row ``yes`` where ``mask`` holds, else ``no`` (a number stands for every row;
    ``mask`` has no nulls), named after ``yes`` where it is a series."""
    if not isinstance(yes, pl.Series):
        yes = pl.Series("literal", [yes], dtype=pl.Int64)
    if not isinstance(no, pl.Series):
        no = pl.Series(yes.name, [no], dtype=yes.dtype)
    chosen: pl.Series = (no.zip_with(~mask, yes).alias(yes.name)  # ``yes`` a number: the
                         if yes.len() == 1 and mask.len() != 1  # length comes from ``no``
                         else yes.zip_with(mask, no))
    return chosen


def at_least(values: pl.Series, low: int) -> pl.Series:
    """``values.clip(low)`` (no nulls)."""
    return where(values >= low, values, low)


INDEX_END = 1 << (32 if pl.UInt32 == INDEX else 64)
"""One past the greatest position ``INDEX`` holds."""


def positions(at: pl.Series) -> pl.Series:
    """``at`` (integers, none below 0) as ``INDEX``: what ``take`` reads without converting
    it, for the positions read more than once."""
    cast: pl.Series = _narrowed(at) if _fits(at) else at.cast(INDEX)
    return cast


def take(values: pl.Series, at: pl.Series) -> pl.Series:
    """``values.gather(at)`` (``at``: integers; a null gives a null; read as they are where
    they are ``positions``)."""
    if at.null_count() == at.len():  # indexing reads the greatest index: there is none
        return values.gather(at)
    if at.dtype != INDEX and _fits(at):
        at = _narrowed(at)
    return values[at]


def _fits(at: pl.Series) -> bool:
    """Whether ``at`` holds integers and each one not null is a position ``INDEX`` holds."""
    if not at.dtype.is_integer():
        return False
    low, high = at.min(), at.max()
    return isinstance(low, int) and isinstance(high, int) and low >= 0 and high < INDEX_END


def _narrowed(at: pl.Series) -> pl.Series:
    """``at`` (``_fits``) as ``INDEX`` by a cast without overflow checks: every value fits, so
    the same values, at ~1 instruction a value instead of the checked cast's ~28 (which
    indexing by any other type runs, after scanning for negative positions)."""
    cast: pl.Series = at.cast(INDEX, wrap_numerical=True)
    return cast


def run_starts(values: pl.Series) -> pl.Series:
    """Per row whether it differs from the row before (the first row does): the first of each
    run of equal values (``(values != values.shift(1)).fill_null(True)``, no nulls)."""
    if values.is_empty():
        return pl.Series(values.name, [], dtype=pl.Boolean)
    n = values.len()
    return pl.concat([pl.Series(values.name, [True]), values.slice(1) != values.head(n - 1)])


def shifted(values: pl.Series, fill: int) -> pl.Series:
    """``values.shift(1, fill_value=fill)``: each row the one before it, ``fill`` first."""
    return pl.concat([pl.Series(values.name, [fill], dtype=values.dtype), values]).head(
        values.len())
