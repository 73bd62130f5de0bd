"""The forward pass's pairs in closed form: a stream's operations as a max-plus scan.

Most events of a replay are pairs (``Chains.pair``): a GPU operation's start, from its
stream's operation before it (the ``link``) and from its launch. Where a pair's link is the
one pair before it on a chain (a pair is the link of at most one other, and reads at most
one pair of a chain: the few others the loop replays), a chain's times are a scan: with
``C`` the links' gaps summed along the chain (0 at its first pair) and ``V[j]`` the time
pair ``j``'s other edge allows minus ``C[j]``, ``t[i] = C[i] + max(V[j] for j <= i)`` (the
pair's ``max`` of its two edges, unrolled along the chain). The other edges leave events
that are not pairs of chains, which the Python loop replays: it goes over those only,
computes a pair's time only where one of them reads it (``Streams.needs``), and every
pair's time is read at the end in columns (``times``).

A chain's pairs are cut into runs of those whose other edge leaves the same event (the
kernels one CPU thread's run launched), each ending at the latest where the loop reads one:
folding a run into the scan's maximum is one step (that event's time plus the run's largest
gap minus ``C``), so a pair read in the loop costs a step per run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

import polars as pl

from kernelscope.timeline.analysis.critical_path.chains import Chains
from kernelscope.timeline.analysis.critical_path.eager import positions, take, where
from kernelscope.timeline.analysis.critical_path.ints import column, ints


@dataclass(eq=False)
class Streams:
    """The pairs' chains of a plan, in chain order (each chain's pairs in replay order), as
    columns of ``frame``: ``slot``; ``link``, which of its two edges (0 or 1) leaves the
    pair before it on its chain, -1 for a chain's first; ``chain``, its chain's number;
    ``first``, its chain's first pair's place (in ``frame``); ``x`` and ``y``, the sources'
    slots of its other edges (both the same but at a chain's first); ``run``, its run's
    number (runs numbered in chain order). Per run its first pair's place (``run_at``, one
    more: the end), its chain (``run_chain``) and its pairs' ``x`` and ``y``
    (``run_x``, ``run_y``); per chain its first run (``chain_runs``); per slot its pair's
    place (``place``, -1: not a pair); per slot of an event that is not a pair the pair
    slots it reads (``needs``) and the runs whose other edges leave it (``feeds``:
    ``2 * run`` for ``x``, ``2 * run + 1`` for a chain's first's ``y``; the runs last
    first); the slots of the events that are not pairs (``loop_slots``); ``slot`` as a
    sequence (``slots``). ``chain_runs`` has one more: the end."""

    frame: pl.DataFrame
    run: Sequence[int]
    run_at: Sequence[int]
    run_chain: Sequence[int]
    run_x: Sequence[int]
    run_y: Sequence[int]
    chain_runs: Sequence[int]
    place: Sequence[int]
    needs: Mapping[int, list[int]]
    loop_slots: Sequence[int]
    feeds: Mapping[int, list[int]]
    slots: Sequence[int]
    at: tuple[pl.Series, pl.Series, pl.Series]
    """``frame``'s ``slot``, ``x`` and ``y`` as ``positions``."""


def streams_of(chains: Chains, s_dst: pl.Series, e_dst: pl.Series, finish: pl.Series
               ) -> Streams | None:
    """The chains of ``chains``' pairs (``s_dst``, ``e_dst``: the start and end edges'
    destinations; ``finish``: the slots the backward pass starts from), None where it has
    no pairs. A pair that reads two pairs of chains, and one whose link is already another
    pair's, is left to the loop (``_linked``)."""
    first, second = chains.pair_slot_series
    n = first.len()
    every = pl.int_range(n, eager=True, dtype=pl.Int64)
    if not (first >= 0).any():
        return None
    scanned, pairs = _linked(every, first, second)
    linked = pairs.filter(pl.col("pred") >= 0)
    root = every.cast(pl.UInt32).scatter(linked["slot"], linked["pred"])  # polars' index type
    while True:  # pointer doubling: every slot to its chain's first
        further = take(root, root)  # ``positions``: no query, no conversion
        if (further == root).all():
            break
        root = further
    left = every.filter((first >= 0) & ~scanned)  # pairs the loop replays: it reads both
    needs = pl.concat([_reads(chains, s_dst, e_dst),
                       pl.DataFrame({"reader": left, "slot": take(first, left)}),
                       pl.DataFrame({"reader": left, "slot": take(second, left)})])
    read = needs.filter(take(scanned, needs["slot"])).unique(maintain_order=True)
    chain = take(root, pairs["slot"]).cast(pl.Int64)  # its first's slot: sorted by one key
    pairs = _numbered(pairs.with_columns(chain=chain).sort(chain * n + pairs["slot"]),
                      pl.concat([read["slot"], finish]), n)
    runs = pairs.with_row_index("at").group_by("run", maintain_order=True).agg(
        pl.col("at", "chain", "x", "y").first())
    chain_runs = runs.group_by("chain", maintain_order=True).agg(pl.col("run").first())
    place = pl.repeat(-1, n, eager=True, dtype=pl.Int64).scatter(
        pairs["slot"], pl.int_range(pairs.height, eager=True, dtype=pl.Int64))
    wants = read.group_by("reader", maintain_order=True).agg("slot")
    run_at = pl.concat([runs["at"].cast(pl.Int64), pl.Series([pairs.height], dtype=pl.Int64)])
    chain_end = pl.concat([chain_runs["run"], pl.Series([runs.height], dtype=pl.Int64)])
    return Streams(pairs, ints(pairs["run"]), ints(run_at), ints(runs["chain"]),
                   ints(runs["x"]), ints(runs["y"]), ints(chain_end), ints(place),
                   dict(zip(wants["reader"].to_list(), wants["slot"].to_list(), strict=True)),
                   every.filter(~scanned).to_list(), _feeds(runs), ints(pairs["slot"]),
                   (positions(pairs["slot"]), positions(pairs["x"]), positions(pairs["y"])))


def _feeds(runs: pl.DataFrame) -> dict[int, list[int]]:
    """Per slot the runs (run, x, y) whose other edges leave it, coded as ``Streams.feeds``
    says, the last run first."""
    run = pl.col("run").cast(pl.Int64)
    codes = pl.concat([runs.select(src="x", code=2 * run),
                       runs.filter(pl.col("x") != pl.col("y")).select(src="y", code=2 * run + 1)])
    fed = codes.sort("code", descending=True).group_by("src", maintain_order=True).agg("code")
    return dict(zip(fed["src"].to_list(), fed["code"].to_list(), strict=True))


def _linked(every: pl.Series, first: pl.Series, second: pl.Series
            ) -> tuple[pl.Series, pl.DataFrame]:
    """Per slot whether its event is a pair of a chain, and those pairs (slot, a, b: their
    edges' sources; link: which leaves a pair of a chain, -1 for none; pred: that
    source). Left out: a pair whose two sources are both pairs, and one whose link
    another pair (of a smaller slot) has too; what is left out no longer links, so the
    rounds go on until none is."""
    scanned = first >= 0
    pairs = pl.DataFrame({"slot": every, "a": first, "b": second}).filter(scanned)
    while True:  # each round leaves some out: ends
        flag = scanned.cast(pl.Int8)
        a_pair, b_pair = take(flag, pairs["a"]) == 1, take(flag, pairs["b"]) == 1
        pairs = pairs.with_columns(
            link=pl.when(a_pair).then(0).when(b_pair).then(1).otherwise(-1),
            pred=pl.when(a_pair).then("a").when(b_pair).then("b").otherwise(-1))
        out = a_pair & b_pair
        if _shared(pairs, len(scanned)):
            out = out | ((pairs["pred"] >= 0) & ~pairs["pred"].is_first_distinct())
        out_slots = pairs.filter(out)["slot"]
        if not out_slots.len():
            break
        scanned = scanned.scatter(out_slots, False)
        pairs = pairs.filter(~out)
    return scanned, pairs.select("slot", "a", "b", "link", "pred")


def _shared(pairs: pl.DataFrame, n: int) -> bool:
    """Whether two of ``pairs`` (slot, pred) link the same pair: each pair's slot written at
    its link's, one of two that share it is overwritten (no hashing of every pair)."""
    linked = pairs.filter(pl.col("pred") >= 0)
    written = pl.repeat(-1, n, eager=True, dtype=pl.Int64).scatter(linked["pred"],
                                                                   linked["slot"])
    return not (take(written, linked["pred"]) == linked["slot"]).all()


def _numbered(pairs: pl.DataFrame, read: pl.Series, n: int) -> pl.DataFrame:
    """``pairs`` (slot, a, b, link, chain: its first's slot; in chain order) with their
    chains numbered from 0, each chain's first's place, the other edges' sources and the
    runs: a chain's first alone, then each stretch of one source, cut after each pair of
    ``read`` (the slots the loop reads: each a run's last, read once its run is folded; of
    ``n``)."""
    link = pl.col("link")
    read_flag = pl.repeat(False, n, eager=True, dtype=pl.Boolean).scatter(read, True)
    starts = (pl.col("chain") != pl.col("chain").shift(1)).fill_null(True)
    pairs = pairs.with_columns(
        chain=starts.cum_sum().cast(pl.Int64) - 1,
        first=pl.when(starts).then(pl.int_range(pl.len(), dtype=pl.Int64)).forward_fill(),
        x=pl.when(link == 0).then("b").otherwise("a"),
        y=pl.when(link == 1).then("a").otherwise("b"))
    new_run = (starts | (pl.col("x") != pl.col("x").shift(1)) | (link == -1)
               | (link.shift(1) == -1) | pl.lit(read_flag).gather(pl.col("slot")).shift(1)
               ).fill_null(True)
    return pairs.with_columns(run=new_run.cum_sum().cast(pl.Int64) - 1).select(
        "slot", "link", pl.col("chain").set_sorted(), "first", "x", "y",
        pl.col("run").set_sorted())  # both numbered in order: sorted (a group-by partitions)


def _reads(chains: Chains, s_dst: pl.Series, e_dst: pl.Series) -> pl.DataFrame:
    """Per event that is not a pair (``reader``: its slot) the slots it reads: a start's
    edges (``Chains.single``), a waiting call's end's own start and its edges."""
    single = chains.single
    ends = chains.end_pos.filter(chains.has_end)
    return pl.concat([
        pl.DataFrame({"reader": chains.head_pos.gather(s_dst.gather(single)),
                      "slot": pl.Series(list(chains.single_enc.values()), dtype=pl.Int64)}),
        pl.DataFrame({"reader": chains.end_pos.gather(e_dst), "slot": column(chains.e_enc)}),
        pl.DataFrame({"reader": ends, "slot": chains.head_pos.filter(chains.has_end)}),
    ])


@dataclass(eq=False)
class Scan:
    """One pass's columns of ``Streams`` (in its order): per pair the links' gaps
    summed along its chain up to it (``total``) and its other edges' gaps minus that
    (``kx``, ``ky``, in ``frame`` with the pairs' slot, chain, x, y); per run the largest
    ``kx`` (``run_kx``), and ``ky`` as a sequence (a chain's first's run is itself)."""

    total: Sequence[int]
    run_kx: Sequence[int]
    ky: Sequence[int]
    frame: pl.DataFrame
    chain_at: list[int]
    at: tuple[pl.Series, pl.Series, pl.Series]
    """``Streams.at``."""
    """Each chain's first place, and one more: the end."""


def scan_of(streams: Streams, first_eff: pl.Series, second_eff: pl.Series) -> Scan:
    """The columns of a pass whose pairs' gaps are ``first_eff`` and ``second_eff`` (per
    event of ``Chains.order``)."""
    frame, slot = streams.frame, streams.at[0]
    a, b = take(first_eff, slot), take(second_eff, slot)
    link = pl.col("link")
    step = pl.when(link == 0).then(a).when(link == 1).then(b).otherwise(0)
    f = frame.select("slot", "chain", "x", "y", "first", step=step.cum_sum(),
                     x_eff=pl.when(link == 0).then(b).otherwise(a),
                     y_eff=pl.when(link == 1).then(a).otherwise(b))
    f = f.select("slot", "chain", "x", "y", "x_eff", "y_eff",
                 total=pl.col("step") - pl.col("step").gather("first")).with_columns(
        kx=pl.col("x_eff") - pl.col("total"), ky=pl.col("y_eff") - pl.col("total"))
    run_kx = f.select("kx", run=frame["run"]).group_by("run", maintain_order=True).agg(
        pl.col("kx").max())["kx"]
    chain_at = [streams.run_at[run] for run in streams.chain_runs]
    return Scan(ints(f["total"]), ints(run_kx), ints(f["ky"]), f, chain_at, streams.at)


CHAIN_SLICES = 64
"""The most chains whose running maximum is taken slice by slice (a window over more)."""


def _within_chains(values: pl.Series, scan: Scan, *, least: bool) -> pl.Series:
    """``values`` (in ``scan``'s order) as their running maximum within each chain, or
    with ``least`` their running minimum from each chain's end."""
    bounds = scan.chain_at
    if len(bounds) - 1 > CHAIN_SLICES:
        within = pl.col("v").cum_min(reverse=True) if least else pl.col("v").cum_max()
        return pl.DataFrame({"chain": scan.frame["chain"], "v": values}).select(
            within.over("chain")).to_series()
    parts = [values.slice(lo, hi - lo) for lo, hi in pairwise(bounds)]
    return pl.concat([part.cum_min(reverse=True) if least else part.cum_max()
                      for part in parts])


def pair_time(streams: Streams, scan: Scan, state: list[list[int]], times: Sequence[int],
              slot: int) -> int:
    """The time of the pair in ``slot`` (a run's last), read mid-pass (``times``: the slots
    of the events that are not pairs, those before ``slot`` set); ``state``: per chain the
    next run to fold and the maximum of those folded (advanced here, to ``slot``'s run)."""
    at = streams.place[slot]
    target = streams.run[at]
    chain = streams.run_chain[target]
    run_at, run_x, run_y, run_kx = streams.run_at, streams.run_x, streams.run_y, scan.run_kx
    cursor, best = state[chain]
    while cursor <= target:
        value = times[run_x[cursor]] + run_kx[cursor]
        if value > best:
            best = value
        if run_y[cursor] != run_x[cursor]:  # a chain's first, alone in its run: its two edges
            value = times[run_y[cursor]] + scan.ky[run_at[cursor]]
            if value > best:
                best = value
        cursor += 1
    state[chain] = [cursor, best]
    return best + scan.total[at]


def start_state(streams: Streams, low: int) -> list[list[int]]:
    """Per chain its first run and no maximum yet (``low``: below every time)."""
    return [[first, low] for first in streams.chain_runs]


def times(scan: Scan, loop_times: pl.Series) -> pl.Series:
    """Every slot's time: ``loop_times``' (the loop's) where not a pair of a chain, else
    its chain's scan's."""
    _, x, y = scan.at
    f = scan.frame.with_columns(
        v=pl.max_horizontal(take(loop_times, x) + scan.frame["x_eff"],
                            take(loop_times, y) + scan.frame["y_eff"])
        - pl.col("total"))
    value = _within_chains(f["v"], scan, least=False) + f["total"]
    every: pl.Series = loop_times.clone().scatter(f["slot"], value)
    return every


@dataclass(eq=False)
class Backward:
    """The backward pass's chains (``Streams``, ``Scan``: the pass's gaps): the latest
    each pair may start, ``total`` plus the least over the runs from its own on of a run's
    last's bound minus its ``total`` (a pair's bound is set by the loop only on a run's
    last: the pairs it reads, the steps' ends). ``fold``: per chain the lowest run folded
    (its end where none is) and that least; ``suffix``: per folded run its least."""

    streams: Streams
    scan: Scan
    late: Sequence[int]
    unbounded: int
    fold: list[list[int]]
    suffix: list[int]

    def bound(self, code: int) -> int:
        """The latest time the run's other edge (``Streams.feeds``' ``code``) allows its
        source's slot, ``self.unbounded`` or more where none; read when the loop reaches
        that slot (every bound of the run's chain from the run on is set by then)."""
        streams, scan, late = self.streams, self.scan, self.late
        target = code >> 1
        state = self.fold[streams.run_chain[target]]
        cursor, best = state
        while cursor > target:
            cursor -= 1
            last = streams.run_at[cursor + 1] - 1
            value = late[streams.slots[last]]
            if value < self.unbounded and value - scan.total[last] < best:
                best = value - scan.total[last]
            self.suffix[cursor] = best
        state[0], state[1] = cursor, best
        best = self.suffix[target]
        if best >= self.unbounded:
            return best
        if code & 1:
            return best - scan.ky[streams.run_at[target]]
        return best - scan.run_kx[target]


def backward(streams: Streams, scan: Scan, late: Sequence[int], inf: int) -> Backward:
    """A backward pass's state over ``late`` (its slots), nothing folded (``inf``: none)."""
    ends = streams.chain_runs
    return Backward(streams, scan, late, inf // 2,
                    [[ends[chain + 1], inf] for chain in range(len(ends) - 1)],
                    [inf] * len(streams.run_chain))


def latest(scan: Scan, late: pl.Series, inf: int) -> pl.Series:
    """Every slot's latest start: ``late``'s (the loop's) where not a pair of a chain, else
    its chain's (``inf`` where none bounds it)."""
    total = scan.frame["total"]
    bound = take(late, scan.at[0])
    least = _within_chains(where(bound < inf // 2, bound - total, inf), scan, least=True)
    value = where(least < inf, least + total, inf)
    every: pl.Series = late.clone().scatter(scan.frame["slot"], value)
    return every
