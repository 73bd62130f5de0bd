"""Who arrives last at each collective, by how much, and how long the others wait.

For a collective matched across ranks by what identifies it (``matching.py``), with each
rank's *arrival* on the common clock (docs/ranks.md):

- ``wait_ns`` of a rank = last arrival - its arrival: the time it spent inside the collective
  waiting for the last rank (0 for the last one), at most its time inside the collective;
- ``late_ns`` of a rank = its arrival - the median arrival of the *other* ranks, at most the
  median time the other ranks spent inside the collective (what they can have waited);
- the last rank's ``delay_ns`` = its arrival - the next latest arrival: how long it alone held
  the collective up.

Per step these add up over the step's collectives. The run's **straggler** is the rank that
held the collectives up the longest in total (sum of its ``delay_ns``); it is named when its
median lateness per step exceeds both the alignment uncertainty (the median spread of the
ranks' exits from the collectives) and 1 % of the median step time.
"""

from __future__ import annotations

import polars as pl

from kernelscope.core.findings import Evidence, Finding
from kernelscope.core.severity import Severity
from kernelscope.kinds.ranks.analysis.matching import Matching, match_collectives
from kernelscope.kinds.ranks.analysis.model import ClockAlignment, RankSummary, Straggler
from kernelscope.kinds.ranks.analysis.thresholds import RANKS_THRESHOLDS

I64 = pl.Int64
TOP_INSTEAD = 8


def _calls_of(ranks: dict[int, RankSummary], clock: ClockAlignment,
              source: str | None) -> pl.DataFrame:
    """The collective calls of every rank that uses ``source``, on the first common clock."""
    parts = []
    for rank, s in ranks.items():
        if s.comm_source != source or not s.collectives.height:
            continue
        off = clock.offsets_ns.get(rank, 0)
        parts.append(s.collectives.filter(pl.col("collective")).select(
            pl.lit(rank, I64).alias("rank"), "op", "seq", "key", "recorded_seq", "step",
            (pl.col("start") + off).alias("start"), (pl.col("end") + off).alias("end")))
    if not parts:
        return pl.DataFrame(schema={"rank": I64, "op": pl.String, "seq": I64,
                                    "key": pl.String, "recorded_seq": I64, "step": I64,
                                    "start": I64, "end": I64})
    return pl.concat(parts)


def _others_median(frame: pl.DataFrame, value: str, alias: str) -> pl.DataFrame:
    """``frame`` + ``alias``: per row, the median of ``value`` over the *other* rows of its
    collective (``match``), from the sorted values without the row's own."""
    ranked = frame.with_columns(
        (pl.col(value).rank("ordinal").over("match") - 1).cast(I64).alias("_i"))
    ranked = ranked.join(frame.group_by("match").agg(pl.col(value).sort().alias("_v")),
                         on="match", how="left")
    m = pl.col("_v").list.len() - 1
    def nth(j: pl.Expr) -> pl.Expr:
        return pl.col("_v").list.get(pl.when(j < pl.col("_i")).then(j).otherwise(j + 1),
                                     null_on_oob=True)
    return ranked.with_columns(
        ((nth((m - 1) // 2) + nth(m // 2)) / 2).alias(alias)).drop("_i", "_v")


def collective_waits(ranks: dict[int, RankSummary], clock: ClockAlignment,
                     source: str | None, shared_clock: bool | None = True
                     ) -> tuple[pl.DataFrame, Matching]:
    """Every collective call of every rank that uses ``source``, matched across ranks by
    identity (``matching.py``), and the matching itself (its clocks).

    Columns: rank, op, key, seq (the rank's own numbering), match (the collective), step, arrival,
    exit, wait_ns, late_ns, last, delay_ns, ranks. Only collectives seen on at least two ranks
    are kept. A rank's wait is at most its own time inside the collective, and its lateness
    at most the median time the other ranks spent inside it: nobody can have waited longer
    than it was there.
    """
    schema = {"rank": I64, "op": pl.String, "key": pl.String, "seq": I64, "match": I64,
              "step": I64,
              "arrival": I64, "exit": I64, "wait_ns": I64, "late_ns": pl.Float64,
              "last": pl.Boolean, "delay_ns": I64, "ranks": I64}
    found = match_collectives(_calls_of(ranks, clock, source), shared_clock=shared_clock)
    calls = found.calls.filter(pl.col("match").is_not_null()).rename(
        {"start": "arrival", "end": "exit"})
    if calls["rank"].n_unique() < 2:
        return pl.DataFrame(schema=schema), found
    calls = calls.with_columns(pl.len().over("match").cast(I64).alias("ranks"),
                               (pl.col("exit") - pl.col("arrival")).alias("inside"))
    calls = _others_median(_others_median(calls, "arrival", "others_arrival"),
                           "inside", "others_inside")
    stats = calls.group_by("match").agg(
        pl.col("arrival").max().alias("last_arrival"),
        pl.col("arrival").sort().get(pl.len() - 2).alias("second_last"),
        pl.col("step").drop_nulls().first().alias("group_step"),
    )
    calls = calls.join(stats, on="match", how="left")
    is_last = (pl.col("arrival") == pl.col("last_arrival")) & (
        pl.col("rank") == pl.col("rank").filter(pl.col("arrival") == pl.col("last_arrival"))
        .max().over("match"))
    late = pl.min_horizontal(pl.col("arrival") - pl.col("others_arrival"),
                             pl.col("others_inside"))
    return calls.select(
        "rank", "op", "key", "seq", "match", pl.col("group_step").alias("step"), "arrival",
        "exit",
        pl.min_horizontal(pl.col("last_arrival") - pl.col("arrival"), "inside")
        .alias("wait_ns"),
        late.alias("late_ns"), is_last.alias("last"),
        pl.when(is_last).then(pl.min_horizontal(pl.col("arrival") - pl.col("second_last"),
                                                pl.max_horizontal(late, 0)))
        .otherwise(0).cast(I64).alias("delay_ns"),
        "ranks",
    ).sort("match", "rank").cast(schema), found  # type: ignore[arg-type]


def step_waits(calls: pl.DataFrame) -> pl.DataFrame:
    """Per rank and step (collectives outside any step are keyed by op and seq): summed wait,
    lateness and delay. Columns: rank, step, collectives, wait_ns, late_ns, delay_ns, last."""
    keyed = calls.with_columns(
        pl.col("step").fill_null(-1 - pl.col("match")).alias("step"))
    return keyed.group_by("rank", "step").agg(
        pl.len().cast(I64).alias("collectives"),
        pl.col("wait_ns").sum(), pl.col("late_ns").sum(), pl.col("delay_ns").sum(),
        pl.col("last").sum().cast(I64).alias("last"),
    ).sort("step", "rank")


def exit_spread(calls: pl.DataFrame) -> float | None:
    """Median over collectives of (latest exit - earliest exit) across ranks."""
    if not calls.height:
        return None
    spread = calls.group_by("match").agg((pl.col("exit").max() - pl.col("exit").min())
                                             .alias("spread"))["spread"]
    value = spread.median()
    return None if value is None else float(value)  # type: ignore[arg-type]


def _instead(ranks: dict[int, RankSummary], calls: pl.DataFrame, who: int) -> pl.DataFrame:
    """What the straggler did before arriving, against the others: per lead-in item
    (``window``, ``gpu`` busy, time in each NVTX range) the median over the matched
    collectives, its value and the median of the other ranks' values."""
    ids = calls.filter(pl.col("rank") == who).select("match")
    schema = {"what": pl.String, "name": pl.String, "ns": pl.Float64,
              "others_ns": pl.Float64, "extra_ns": pl.Float64}
    leads = [s.lead_in.hstack([pl.Series("rank", [rank] * s.lead_in.height, dtype=I64)])
             for rank, s in ranks.items() if s.lead_in.height]
    if not leads:
        return pl.DataFrame(schema=schema)
    # Every rank at once (a rank column), as the loop over the ranks it replaces did each.
    lead = pl.concat(leads, how="vertical_relaxed")
    matched = calls.filter(pl.col("rank").is_in(lead["rank"].unique().implode())).join(
        ids, on="match", how="semi").select(pl.col("rank").cast(I64), "op", "seq")
    mine = lead.join(matched, on=["rank", "op", "seq"], how="semi")
    full = matched.join(mine.select("rank", "what", "name").unique(), on="rank").join(
        mine, on=["rank", "op", "seq", "what", "name"], how="left").with_columns(
        pl.col("ns").fill_null(0))
    per_rank = full.group_by("rank", "what", "name").agg(pl.col("ns").median().alias("ns"))
    names = per_rank.select("what", "name").unique()
    grid = names.join(pl.DataFrame({"rank": list(ranks)}, schema={"rank": I64}), how="cross")
    per_rank = grid.join(per_rank, on=["what", "name", "rank"], how="left").with_columns(
        pl.col("ns").fill_null(0.0))
    mine = per_rank.filter(pl.col("rank") == who).select("what", "name", "ns")
    others = per_rank.filter(pl.col("rank") != who).group_by("what", "name").agg(
        pl.col("ns").median().alias("others_ns"))
    order = pl.col("what").replace_strict({"window": 0, "gpu": 1, "nvtx": 2}, default=3)
    return (mine.join(others, on=["what", "name"], how="left")
            .filter((pl.col("what") != "nvtx") | (pl.col("ns") > 0) | (pl.col("others_ns") > 0))
            .with_columns((pl.col("ns") - pl.col("others_ns")).alias("extra_ns"))
            .sort(order, -pl.col("extra_ns").abs(), "name")
            .head(TOP_INSTEAD + 2).cast(schema))  # type: ignore[arg-type]


STEP = "collectives"
"""The ``step`` of the evidence a straggler verdict rests on."""
LATEST_RANK = "latest rank"
LATENESS = "median lateness per step"
LAST_ARRIVALS = "collectives arrived at last"


def _verdict(fid: str, title: str, who: int, late: float, floor: float,
             *more: Evidence) -> Finding:
    """The straggler verdict: ``who`` is late by ``late`` against the ``floor`` that names a
    straggler."""
    return Finding(fid, Severity.WARNING if fid == "straggler" else Severity.INFO, title, (
        Evidence(STEP, LATEST_RANK, who),
        Evidence(STEP, LATENESS, late, ">", floor, "ns",
                 "after the others' median; the threshold is the alignment uncertainty or "
                 "1 % of a step"),
        *more,
    ), subject=f"rank {who}")


def find_straggler(ranks: dict[int, RankSummary], calls: pl.DataFrame, per_step: pl.DataFrame,
                   clock: ClockAlignment) -> tuple[Straggler | None, Finding]:
    """The straggler (or None) and the verdict: ``straggler``, ``no-straggler`` or
    ``no-collective``, with the readings it rests on."""
    if not calls.height:
        return None, Finding("no-collective", Severity.INFO,
                             "No collective matched across the ranks")
    held = calls.group_by("rank").agg(pl.col("delay_ns").sum(), pl.col("last").sum())
    who = int(held.sort(["delay_ns", "last", "rank"], descending=[True, True, False])["rank"][0])
    mine = per_step.filter(pl.col("rank") == who).sort("step")
    late = float(mine["late_ns"].median() or 0.0)  # type: ignore[arg-type]
    delay = float(mine["delay_ns"].median() or 0.0)  # type: ignore[arg-type]
    step_times = [t for s in ranks.values() if (t := s.step_time_ns) is not None]
    step_ns = sorted(step_times)[len(step_times) // 2] if step_times else None
    spread = clock.exit_spread_ns or 0.0
    limits = RANKS_THRESHOLDS
    floor = max(limits.min_late_ns, spread,
                limits.min_late_share * step_ns if step_ns else 0.0)
    summary = ranks[who]
    if late <= floor:
        return None, _verdict("no-straggler", "No straggler", who, late, floor)
    last_count = int(calls.filter((pl.col("rank") == who) & pl.col("last")).height)
    total = int(calls.filter(pl.col("rank") == who).height)
    verdict = _verdict("straggler", "Straggler", who, late, floor,
                       Evidence(STEP, LAST_ARRIVALS, last_count, note=f"of {total}"))
    steps = mine.select("step", "late_ns", "delay_ns", (pl.col("last") > 0).alias("last"),
                        "collectives")
    instead = _instead(ranks, calls, who)
    return Straggler(rank=who, file=summary.file, late_ns_per_step=late,
                     delay_ns_per_step=delay, last_count=last_count, collectives=total,
                     steps=steps, instead=instead, cpu_calls=pl.DataFrame()), verdict
