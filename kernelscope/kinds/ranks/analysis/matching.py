"""Which call on each rank is the same collective, and how far apart the ranks' clocks are.

A collective is identified by what the ranks record about it, never by its position in a
rank's list (ranks whose captures start or stop at different points fill their lists
differently). Each call carries a ``key`` (collectives.py: for a PyTorch trace the process
group, collective, message size and dtype; for an NCCL kernel its name after the prefix; for
MPI calls and NVTX ranges their name). Within one key, calls are paired:

- by **sequence number** where every call of the key carries the one the trace records
  (newer PyTorch's ``Seq``, numbered per process group);
- else by **time** on a clock the ranks share: a collective is in progress on every rank
  when its last rank arrives, so the calls of one collective overlap. The key's reference
  rank is the one with the most calls of it; every other rank's call is paired with the
  reference call whose end is nearest, when the two overlap (a reference call takes at most
  one call of each rank);
- by **order** within the key only to estimate clocks that do not agree (below).

Clocks (:func:`match_collectives`): the calls arrive on a first common clock (nsys: each
trace's session start; Kineto: each trace's base time). Ranks known to share a clock (one
trace file, or one host) are left as they are. Otherwise each rank's offset from the lowest
rank is estimated from the collectives both saw, since a collective ends on every rank at
about the same moment: the median of (its end - the reference's end), with the median
absolute deviation from it as the **residual**. Ranks on hosts not known to differ whose
calls already pair in time keep their clock; a shift is applied only where it is consistent
(the residual at most a quarter of it), and said.

    found = match_collectives(calls, shared_clock=None)
    found.calls          # the input columns + ``match`` (one id per collective, null: unpaired)
    found.clocks[3]      # RankClock(shift_ns, estimate_ns, residual_ns, pairs, how)

The critical-path analysis reads ``found.calls`` too: one ``match`` id names one collective
on every rank that took part.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

I64 = pl.Int64
AGREE_SHARE = 0.5
"""A rank's clock agrees with the others when at least this share of its calls pair in time."""
CONSISTENT_SHARE = 0.25
"""A shift is applied when its residual is at most this share of it."""
MIN_SHIFT_NS = 100_000
"""Nor when it is under this (100 us): ranks leave a collective that far apart on one clock
(gloo's and NCCL's algorithms release them in turn), while hosts' clocks that matter differ
by more."""


@dataclass(frozen=True)
class RankClock:
    """How one rank's clock was put beside the others'."""

    rank: int
    shift_ns: int
    """Subtracted from the rank's times (0 when not applied)."""
    estimate_ns: int | None
    """The offset the collectives give (its end minus the reference's, median)."""
    residual_ns: int | None
    """The median distance of the single collectives' offsets from the estimate."""
    pairs: int
    how: str
    """``reference``, ``shared clock``, ``clocks agree``, ``shifted``, ``inconsistent``
    or ``no pairs``."""


@dataclass(frozen=True)
class Matching:
    calls: pl.DataFrame
    """The calls given (times with the shifts applied) and ``match``: Int64, one id per
    collective, null for a call no other rank's call pairs with."""
    clocks: dict[int, RankClock]
    reference: int | None
    """The rank the clocks are compared with (the lowest that made calls)."""
    paired_by: str
    """``sequence number``, ``time`` or ``sequence number and time``."""


def _has_seq() -> pl.Expr:
    return pl.col("recorded_seq").is_not_null().all().over("key")


def _ids(*parts: pl.Expr) -> pl.Expr:
    text = pl.concat_str([p.cast(pl.String) for p in parts], separator="\x1f")
    return text.rank("dense").cast(I64)


def pair_by_order(calls: pl.DataFrame) -> pl.DataFrame:
    """``calls`` + ``match``: the n-th call of a key on every rank is one collective (the
    recorded sequence number instead, where the key's calls all carry one)."""
    order = pl.int_range(pl.len()).over("rank", "key", order_by="start")
    nth = pl.when(_has_seq()).then(pl.col("recorded_seq")).otherwise(order)
    return calls.with_columns(_ids(pl.col("key"), nth).alias("match"))


def pair_by_time(calls: pl.DataFrame) -> pl.DataFrame:
    """``calls`` + ``match``: within a key, calls that overlap the reference rank's nearest
    call (by end) are one collective; keys whose calls all carry a recorded sequence number
    are paired by it."""
    indexed = calls.with_row_index("_row").with_columns(pl.col("_row").cast(I64))
    seq = indexed.filter(_has_seq())
    timed = indexed.filter(~_has_seq())
    counts = timed.group_by("key", "rank").len().sort(["key", "len", "rank"],
                                                       descending=[False, True, False])
    reference = counts.group_by("key", maintain_order=True).agg(
        pl.col("rank").first().alias("_ref"))
    timed = timed.join(reference, on="key", how="left")
    ref = timed.filter(pl.col("rank") == pl.col("_ref")).select(
        "key", pl.col("_row").alias("_match"), pl.col("start").alias("_rs"),
        pl.col("end").alias("_re"), pl.col("end").alias("_on")).sort("_on")
    others = timed.filter(pl.col("rank") != pl.col("_ref")).sort("end")
    near = others.join_asof(ref, left_on="end", right_on="_on", by="key", strategy="nearest",
                            check_sortedness=False)  # both sorted by end, grouped by key
    near = near.with_columns(pl.when((pl.col("start") <= pl.col("_re"))
                                     & (pl.col("_rs") <= pl.col("end")))
                             .then(pl.col("_match")).alias("_match"),
                             (pl.col("end") - pl.col("_re")).abs().alias("_gap"))
    # a reference call takes at most one call of each rank: the one ending nearest
    best = near.filter(pl.col("_match").is_not_null()).sort("_gap").unique(
        ["rank", "_match"], keep="first").select("_row", "_match")
    own = timed.filter(pl.col("rank") == pl.col("_ref")).select(
        "_row", pl.col("_row").alias("_match"))
    matched = pl.concat([own, best])
    timed_ids = timed.join(matched, on="_row", how="left").select(
        "_row", pl.col("_match").cast(pl.String).alias("_id"))
    seq_ids = seq.select("_row", pl.concat_str([pl.lit("s"), pl.col("key"), pl.lit("\x1f"),
                                                pl.col("recorded_seq").cast(pl.String)])
                         .alias("_id"))
    ids = pl.concat([timed_ids, seq_ids])
    out = indexed.join(ids, on="_row", how="left").sort("_row")
    # a collective only one rank made is no match
    alone = pl.col("_id").is_null() | (pl.col("rank").n_unique().over("_id") < 2)
    return out.with_columns(pl.when(alone).then(None).otherwise(pl.col("_id")).rank("dense")
                            .cast(I64).alias("match")).drop("_row", "_id")


def _offsets(paired: pl.DataFrame, reference: int) -> dict[int, tuple[int, int, int]]:
    """Per rank: (median offset of its collectives' ends from the reference's, residual,
    pairs)."""
    ref = paired.filter((pl.col("rank") == reference) & pl.col("match").is_not_null()).select(
        "match", pl.col("end").alias("_ref_end")).unique("match")
    d = paired.filter(pl.col("rank") != reference).join(ref, on="match").with_columns(
        (pl.col("end") - pl.col("_ref_end")).alias("d"))
    stats = d.group_by("rank").agg(
        pl.col("d").median().alias("shift"), pl.len().alias("n"),
        (pl.col("d") - pl.col("d").median()).abs().median().alias("residual"))
    return {int(rank): (round(shift), round(residual), int(n))
            for rank, shift, n, residual in stats.iter_rows()}


def _agreeing(paired: pl.DataFrame) -> dict[int, bool]:
    """Whether at least :data:`AGREE_SHARE` of each rank's calls (of keys another rank made
    too) paired in time."""
    shared = paired.filter(pl.col("rank").n_unique().over("key") >= 2)
    share = shared.group_by("rank").agg(pl.col("match").is_not_null().mean().alias("s"))
    return {int(r): float(s or 0) >= AGREE_SHARE for r, s in share.iter_rows()}


def _shifted(calls: pl.DataFrame, shifts: dict[int, int]) -> pl.DataFrame:
    by = pl.col("rank").replace_strict(shifts, default=0, return_dtype=I64)
    return calls.with_columns(pl.col("start") - by, pl.col("end") - by)


def _clock(rank: int, estimate: tuple[int, int, int] | None, shared: bool) -> RankClock:
    """The rank's clock: left on a shared clock or where the offset is under the residual
    or :data:`MIN_SHIFT_NS`, shifted where the offset is consistent, else left and said."""
    if estimate is None:
        return RankClock(rank, 0, None, None, 0, "no pairs")
    shift, residual, pairs = estimate
    if shared:
        return RankClock(rank, 0, shift, residual, pairs, "shared clock")
    if abs(shift) <= max(MIN_SHIFT_NS, residual):
        return RankClock(rank, 0, shift, residual, pairs, "clocks agree")
    if residual <= CONSISTENT_SHARE * abs(shift):
        return RankClock(rank, shift, shift, residual, pairs, "shifted")
    return RankClock(rank, 0, shift, residual, pairs, "inconsistent")


def match_collectives(calls: pl.DataFrame, *, shared_clock: bool | None) -> Matching:
    """Pair the collective calls of every rank (``calls``: rank, key, recorded_seq, start,
    end and any other columns, on a first common clock) and put the ranks' clocks side by
    side. ``shared_clock``: True when the ranks are known to share a clock (one trace, one
    host), False when they are known not to (several hosts), None when unknown."""
    if not calls.height:
        return Matching(calls.with_columns(pl.lit(None, I64).alias("match")), {}, None, "time")
    reference = int(calls["rank"].min())  # type: ignore[arg-type]
    paired = pair_by_time(calls)
    clocks = {reference: RankClock(reference, 0, 0, 0, 0, "reference")}
    estimates = _offsets(paired, reference)
    ranks = sorted(int(r) for r in calls["rank"].unique().to_list() if r != reference)
    if shared_clock:
        clocks |= {r: _clock(r, estimates.get(r), True) for r in ranks}
    else:
        agree = _agreeing(paired)
        by_order = _offsets(pair_by_order(calls), reference)
        for r in ranks:
            clocks[r] = _clock(r, estimates.get(r) if agree.get(r) else by_order.get(r), False)
        shifts = {r: c.shift_ns for r, c in clocks.items() if c.shift_ns}
        if shifts:
            paired = pair_by_time(_shifted(calls, shifts))
    seq = calls["recorded_seq"].is_not_null()
    how = ("sequence number" if seq.all() else "time" if not seq.any()
           else "sequence number and time")
    return Matching(paired, clocks, reference, how)


def capture_counts(matching: Matching) -> tuple[int, dict[int, int]]:
    """(the collectives every rank made, each rank's number of collective calls): the
    captures line up when every rank's calls are all among the first."""
    calls = matching.calls
    if not calls.height:
        return 0, {}
    ranks = calls["rank"].n_unique()
    full = (calls.filter(pl.col("match").is_not_null()).group_by("match")
            .agg(pl.col("rank").n_unique().alias("n")).filter(pl.col("n") == ranks).height)
    counts = {int(r): int(n) for r, n in calls.group_by("rank").len().iter_rows()}
    return full, counts


__all__ = ["Matching", "RankClock", "capture_counts", "match_collectives", "pair_by_order",
           "pair_by_time"]
