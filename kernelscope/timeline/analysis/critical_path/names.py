"""The names a path's segments carry, as numbers: one table of every distinct name (the nodes'
own, ``launch overhead``, the CPU ranges', ``UNTRACED``) and, per node and per range, its
place in it. A path is summed by name on these numbers and only its totals are named: a
path has about as many segments as the graph has nodes, and naming each one costs more
than the sums.

A CPU segment is named by the innermost CPU range around a point of it (``innermost_rows``);
the ranges, nested on each thread, are ordered once per graph with their parents."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from kernelscope.timeline.analysis.critical_path.eager import filled, positions, take, where

UNTRACED = "(no range)"
LAUNCH_NAME = "launch overhead"


@dataclass(eq=False)
class Names:
    """``table``: every distinct name; ``node``: per node its name's place in it; ``launch``
    and ``untraced``: the places of ``launch overhead`` and ``UNTRACED``; ``ranges``: the
    graph's CPU ranges but the steps' own, ordered with their parents (``_with_parents``),
    with ``name_id``, their name's place."""

    table: pl.Series
    node: pl.Series
    launch: int
    untraced: int
    ranges: pl.DataFrame


def names_of(nodes: pl.DataFrame, ranges: pl.DataFrame, steps: pl.DataFrame) -> Names:
    """The name table of a graph's ``nodes`` and CPU ``ranges`` (those not a step of
    ``steps``)."""
    steps = steps.select("global_tid", "start", "end")
    ranked = ranges.join(steps, on=["global_tid", "start", "end"], how="anti")
    ranked = _with_parents(ranked) if ranked.height else ranked.select(
        pl.lit(0, pl.Int64).alias("r"), "global_tid", "start", "end", "name",
        pl.lit(0, pl.Int64).alias("depth"), pl.lit(0, pl.Int64).alias("parent"))
    own = nodes["name"]  # Categorical: its distinct names, then each node's by its code
    uniques = own.unique()
    distinct = uniques.cast(pl.String).fill_null("")
    every = pl.concat([distinct, pl.Series([LAUNCH_NAME, UNTRACED]), ranked["name"]])
    table = every.unique(maintain_order=True)
    ids = pl.DataFrame({"name": every}).join(
        table.to_frame().with_row_index("id"), on="name", how="left", maintain_order="left"
    )["id"].cast(pl.Int64)
    k = distinct.len()
    codes, physical = (_code_or_none(series.to_physical()) for series in (uniques, own))
    node = _by_code(physical, codes, ids.head(k))
    return Names(table, node, int(ids[k]), int(ids[k + 1]),
                 ranked.with_columns(ids.slice(k + 2).alias("name_id")))


def _code_or_none(physical: pl.Series) -> pl.Series:
    """A categorical's ``physical`` codes as Int64, -1 for a null."""
    codes = physical.cast(pl.Int64)
    return where(codes >= 0, codes, -1)  # a null compares to null: -1


def _by_code(physical: pl.Series, codes: pl.Series, ids: pl.Series) -> pl.Series:
    """Per node the id of its name's ``physical`` code (-1 for none): ``ids`` of ``codes``
    read from a table indexed by code (a gather) where the codes are small, as a
    categorical's are, else replaced by a hash lookup."""
    top = int(codes.max() or 0)  # type: ignore[arg-type]
    if top > 2 * physical.len() + 1024:
        replaced: pl.Series = physical.replace_strict(codes, ids, return_dtype=pl.Int64)
        return replaced
    table = filled(-1, top + 2).scatter(codes + 1, ids)
    return take(table, physical + 1).alias(physical.name)


def gap_middles(nodes: pl.DataFrame, src: pl.Series, dst: pl.Series) -> pl.DataFrame:
    """Per thread edge (``src`` -> ``dst``): its measured ``gap``, and its thread
    (``global_tid``) and the middle of the gap (``at``), where the range that names a CPU
    segment that is the whole gap is looked up (``innermost_rows``)."""
    start = take(nodes["start"].cast(pl.Int64), dst)
    gap = start - take(nodes["end"].cast(pl.Int64), src)
    return pl.DataFrame([gap.alias("gap"), take(nodes["lane"], dst).alias("global_tid"),
                         (start - gap // 2).alias("at")])


def thread_gaps(names: Names, nodes: pl.DataFrame, src: pl.Series, dst: pl.Series
                ) -> tuple[pl.Series, pl.Series]:
    """Per thread edge (``src`` -> ``dst``) its measured gap and the name id of the innermost
    range around its middle (``gap_middles``): looked up for the edges read only (the
    chains' calls, once per plan), not for every edge of the graph."""
    middles = gap_middles(nodes, src, dst)
    return middles["gap"], innermost_rows(names, middles.select("global_tid", "at"))


def innermost_rows(names: Names, at: pl.DataFrame) -> pl.Series:
    """Per row of ``at`` (global_tid, at), in its order, the place in ``names.table`` of the
    innermost range's name around it, ``names.untraced`` where none is."""
    ranked = names.ranges
    if not ranked.height:
        return filled(names.untraced, at.height)
    starts = ranked.select("global_tid", "start", "r").sort("start")
    tid, times = at["global_tid"], at["at"]
    if tid.is_sorted() and ((times.slice(1) >= times.head(-1))
                            | (tid.slice(1) != tid.head(-1))).all():
        current = at.join_asof(  # each thread's points in order (a thread's gaps are)
            starts, left_on="at", right_on="start", by="global_tid", strategy="backward",
            check_sortedness=False)["r"]
    else:
        found = at.with_row_index("_p").sort("at").join_asof(
            starts, left_on="at", right_on="start", by="global_tid", strategy="backward",
            check_sortedness=False)
        current = filled(None, at.height).scatter(
            found["_p"], found["r"])  # back in the order of ``at``
    current = positions(current)  # read two or three times a level
    ends, parents = ranked["end"], positions(ranked["parent"])
    for _ in range(int(ranked["depth"].max() or 0) + 1):  # type: ignore[arg-type]
        outside = take(ends, current) <= times  # null (not outside) where none is around
        if not outside.any():
            break
        current = where(outside, take(parents, current), current)
    named = take(ranked["name_id"], current)
    return where(current >= 0, named, names.untraced).alias("name_id")


def _with_parents(ranges: pl.DataFrame) -> pl.DataFrame:
    """``ranges`` sorted by thread and start, with ``r`` (the row), ``depth`` (how many
    ranges of the thread are open at its start) and ``parent`` (the range around it)."""
    ordered = ranges.sort("global_tid", "start", pl.col("end"), descending=[False, False, True])
    ordered = ordered.with_row_index("r").with_columns(pl.col("r").cast(pl.Int64))
    opens = ordered.select("global_tid", pl.col("start").alias("t"), pl.lit(1).alias("d"),
                           pl.lit(1).alias("o"), "r")
    closes = ordered.select("global_tid", pl.col("end").alias("t"), pl.lit(-1).alias("d"),
                            pl.lit(0).alias("o"), "r")
    events = pl.concat([opens, closes]).sort("global_tid", "t", "o", "r").with_columns(
        pl.col("d").cum_sum().over("global_tid").alias("open"))
    depth = events.filter(pl.col("o") == 1).select("r", (pl.col("open") - 1).alias("depth"))
    ordered = ordered.join(depth, on="r").sort("r")
    parents = ordered.select(pl.col("global_tid"), pl.col("depth"),
                             pl.col("start").alias("p_start"), pl.col("r").alias("parent"))
    probe = ordered.with_columns((pl.col("depth") - 1).alias("pd"))
    return probe.sort("start").join_asof(
        parents.sort("p_start"), left_on="start", right_on="p_start",
        by_left=["global_tid", "pd"], by_right=["global_tid", "depth"],
        strategy="backward", check_sortedness=False, allow_exact_matches=True,
    ).sort("r").with_columns(
        pl.when(pl.col("parent") == pl.col("r")).then(None).otherwise(pl.col("parent"))
        .alias("parent")).select("r", "global_tid", "start", "end", "name", "depth", "parent")
