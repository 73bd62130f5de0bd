"""Who arrives last at each collective, by how much, and how long the others wait.

For a collective matched across ranks (the ``seq``-th call of the same operation on every
rank), with each rank's *arrival* on the common clock (docs/ranks.md):

- ``wait_ns`` of a rank = last arrival - its arrival: the time it spent inside the collective
  waiting for the last rank (0 for the last one);
- ``late_ns`` of a rank = its arrival - the median arrival of the *other* ranks;
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
from kernelscope.kinds.ranks.analysis.model import ClockAlignment, RankSummary, Straggler
from kernelscope.kinds.ranks.analysis.thresholds import RANKS_THRESHOLDS

I64 = pl.Int64
TOP_INSTEAD = 8


def match_collectives(ranks: dict[int, RankSummary], clock: ClockAlignment,
                      source: str | None) -> pl.DataFrame:
    """Every collective call of every rank that uses ``source``, matched across ranks.

    Columns: rank, op, seq, step, arrival, exit, wait_ns, late_ns, last, delay_ns, ranks.
    Only collectives seen on at least two ranks are kept.
    """
    parts = []
    for rank, s in ranks.items():
        if s.comm_source != source or not s.collectives.height:
            continue
        off = clock.offsets_ns.get(rank, 0)
        parts.append(s.collectives.filter(pl.col("collective")).select(
            pl.lit(rank, I64).alias("rank"), "op", "seq", "step",
            (pl.col("start") + off).alias("arrival"), (pl.col("end") + off).alias("exit")))
    schema = {"rank": I64, "op": pl.String, "seq": I64, "step": I64, "arrival": I64,
              "exit": I64, "wait_ns": I64, "late_ns": pl.Float64, "last": pl.Boolean,
              "delay_ns": I64, "ranks": I64}
    if len(parts) < 2:
        return pl.DataFrame(schema=schema)
    calls = pl.concat(parts).sort("op", "seq", "arrival", "rank")
    key = ["op", "seq"]
    calls = calls.with_columns(pl.len().over(key).cast(I64).alias("ranks"),
                               pl.int_range(pl.len()).over(key).cast(I64).alias("i")
                               ).filter(pl.col("ranks") >= 2)
    # Median of the others: the sorted arrivals without this rank's, from four order
    # statistics of the group (those around the middle of n - 1 values).
    k = pl.col("ranks") - 1
    a, b = (k - 1) // 2, k // 2
    stats = calls.group_by(key).agg(
        pl.col("arrival").max().alias("last_arrival"),
        pl.col("arrival").sort().get((pl.len() - 2) // 2).alias("sa"),
        pl.col("arrival").sort().get((pl.len() - 2) // 2 + 1).alias("sa1"),
        pl.col("arrival").sort().get((pl.len() - 1) // 2).alias("sb"),
        pl.col("arrival").sort().get(pl.min_horizontal((pl.len() - 1) // 2 + 1, pl.len() - 1))
        .alias("sb1"),
        pl.col("arrival").sort().get(pl.len() - 2).alias("second_last"),
        pl.col("step").drop_nulls().first().alias("group_step"),
    )
    calls = calls.join(stats, on=key, how="left")
    ra = pl.when(a < pl.col("i")).then(pl.col("sa")).otherwise(pl.col("sa1"))
    rb = pl.when(b < pl.col("i")).then(pl.col("sb")).otherwise(pl.col("sb1"))
    is_last = pl.col("i") == pl.col("ranks") - 1
    return calls.select(
        "rank", "op", "seq", pl.col("group_step").alias("step"), "arrival", "exit",
        (pl.col("last_arrival") - pl.col("arrival")).alias("wait_ns"),
        (pl.col("arrival") - (ra + rb) / 2).alias("late_ns"),
        is_last.alias("last"),
        pl.when(is_last).then(pl.col("arrival") - pl.col("second_last")).otherwise(0)
        .cast(I64).alias("delay_ns"),
        "ranks",
    ).sort("op", "seq", "rank").cast(schema)  # type: ignore[arg-type]


def step_waits(calls: pl.DataFrame) -> pl.DataFrame:
    """Per rank and step (collectives outside any step are keyed by op and seq): summed wait,
    lateness and delay. Columns: rank, step, collectives, wait_ns, late_ns, delay_ns, last."""
    keyed = calls.with_columns(
        pl.col("step").fill_null(-1 - pl.col("seq")).alias("step"))
    return keyed.group_by("rank", "step").agg(
        pl.len().cast(I64).alias("collectives"),
        pl.col("wait_ns").sum(), pl.col("late_ns").sum(), pl.col("delay_ns").sum(),
        pl.col("last").sum().cast(I64).alias("last"),
    ).sort("step", "rank")


def exit_spread(calls: pl.DataFrame) -> float | None:
    """Median over collectives of (latest exit - earliest exit) across ranks."""
    if not calls.height:
        return None
    spread = calls.group_by("op", "seq").agg((pl.col("exit").max() - pl.col("exit").min())
                                             .alias("spread"))["spread"]
    value = spread.median()
    return None if value is None else float(value)  # type: ignore[arg-type]


def _instead(ranks: dict[int, RankSummary], calls: pl.DataFrame, who: int) -> pl.DataFrame:
    """What the straggler did before arriving, against the others: per lead-in item
    (``window``, ``gpu`` busy, time in each NVTX range) the median over the matched
    collectives, its value and the median of the other ranks' values."""
    matched = calls.filter(pl.col("rank") == who).select("op", "seq")
    medians = []
    for rank, s in ranks.items():
        if not s.lead_in.height:
            continue
        mine = s.lead_in.join(matched, on=["op", "seq"], how="semi")
        full = matched.join(mine.select("what", "name").unique(), how="cross").join(
            mine, on=["op", "seq", "what", "name"], how="left").with_columns(
            pl.col("ns").fill_null(0))
        medians.append(full.group_by("what", "name").agg(
            pl.col("ns").median().alias("ns")).with_columns(pl.lit(rank, I64).alias("rank")))
    schema = {"what": pl.String, "name": pl.String, "ns": pl.Float64,
              "others_ns": pl.Float64, "extra_ns": pl.Float64}
    if not medians:
        return pl.DataFrame(schema=schema)
    per_rank = pl.concat(medians, how="vertical_relaxed")
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
