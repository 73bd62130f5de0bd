"""Chains: the passes step over the calls that only follow the call before them.

A node whose one start edge is its thread's order from the node just before it (its number
minus one) with no sync edges (most CUDA calls, the step markers) starts at a fixed offset
from the first node of its run, its ``head``: the offset is the durations and gaps between
them. The passes replay only the heads and the synchronising calls' ends, an edge from a node
inside a run counts from its head's start plus the node's offset, and every start is read
back at once (``starts``).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import polars as pl

from kernelscope.timeline.analysis.critical_path.ints import ints, lent
from kernelscope.timeline.analysis.critical_path.vocabulary import THREAD


@dataclass(eq=False)
class Chains:
    """Per node its ``head``, whether it is a ``member`` of its head's run (and its one
    edge's position in the start lists, ``member_pos``; -1 for a head), whether it has sync
    edges (``has_end``); per start and end edge its source node and side; ``order``: the
    events the passes replay (``2 * head``: a head's start, ``2 * node + 1``: a sync end);
    ``pair``: per event of ``order``, the first of its two start edges where it is a start
    with exactly two (most GPU operations: their stream's and their launch's), else -1."""

    head: pl.Series
    member: pl.Series
    member_pos: pl.Series
    has_end: pl.Series
    s_src: pl.Series
    s_from_start: pl.Series
    e_src: pl.Series
    e_from_start: pl.Series
    order: Sequence[int]
    pair: pl.Series

    @cached_property
    def head_list(self) -> Sequence[int]:
        return ints(self.head)

    @cached_property
    def member_pos_list(self) -> Sequence[int]:
        return ints(self.member_pos)

    @cached_property
    def s_slots(self) -> pl.Series:
        """Per start edge its source's slot (the same in every pass)."""
        return _slots(self, self.s_src, self.s_from_start)

    @cached_property
    def s_enc(self) -> Sequence[int]:
        return ints(self.s_slots)

    @cached_property
    def pair_lists(self) -> tuple[Sequence[int], Sequence[int], Sequence[int]]:
        """``pair`` and, per event, the slots of its pair of edges (0 for none)."""
        first, second = _pair_of(self.pair, self.s_slots)
        return ints(self.pair), ints(first), ints(second)

    @cached_property
    def s_lag(self) -> pl.Series:
        """Per start edge where ``fold`` reads its lag (``_lag_index``)."""
        return _lag_index(self, self.s_src, self.s_from_start)

    @cached_property
    def e_lag(self) -> pl.Series:
        """Per end edge where ``fold`` reads its lag."""
        return _lag_index(self, self.e_src, self.e_from_start)

    @cached_property
    def e_enc(self) -> Sequence[int]:
        """Per end edge its source's slot."""
        return ints(_slots(self, self.e_src, self.e_from_start))


@dataclass(eq=False)
class Folded:
    """The lists of one pass: per node its offset from its head; per edge its source's
    slot (``2 * head`` or ``2 * node + 1``) and the gap from that slot's time."""

    head: Sequence[int]
    off: Sequence[int]
    s_enc: Sequence[int]
    s_eff: Sequence[int]
    e_enc: Sequence[int]
    e_eff: Sequence[int]
    pair_eff: tuple[Sequence[int], Sequence[int]]
    """Per event of ``Chains.order``, the gaps of its pair of edges (``Chains.pair``)."""
    columns: tuple[pl.Series, pl.Series]
    """``off`` and the pass's durations as Int64 series."""


def chains_of(n: int, starts: pl.DataFrame, ends: pl.DataFrame, s_ptr: pl.Series,
              events: pl.DataFrame) -> Chains:
    """``starts``/``ends``: the start and end edges sorted by destination (src, dst, etype,
    from_start); ``s_ptr``: each node's first start edge (``n + 1`` offsets); ``events``:
    every event (node, side: 1 for a waiting call's end) with its place in replay order
    (the columns at, rank, node: no two events alike), the starts in order of node and
    then the ends in order of node (a start and an end never share a rank)."""
    every = pl.int_range(n, eager=True, dtype=pl.Int64)
    has_end = every.is_in(ends["dst"].implode())
    first = s_ptr.head(n)
    count = s_ptr.tail(n) - first
    some = first.clip(0, max(starts.height - 1, 0))
    one = count == 1
    if starts.height:
        src = starts["src"].gather(some)
        one = (one & (starts["etype"].gather(some) == THREAD) & ~has_end.gather(src)
               & (src == every - 1))
    member = one.alias("member")
    head = pl.select(pl.when(member).then(None).otherwise(every).forward_fill()).to_series()
    member_pos = pl.select(pl.when(member).then(first).otherwise(-1)).to_series()
    kept = events.filter((pl.col("side") == 1) | (head.gather(events["node"]) == events["node"])
                         ).sort("at", "rank", maintain_order=True)  # ties: in order of node
    lo, hi = s_ptr.gather(kept["node"]), s_ptr.gather(kept["node"] + 1)
    pair = pl.select(pl.when((kept["side"] == 0) & (hi - lo == 2)).then(lo).otherwise(-1)
                     ).to_series()
    kept = 2 * kept["node"] + kept["side"]
    return Chains(head, member, member_pos, has_end, starts["src"], starts["from_start"],
                  ends["src"], ends["from_start"], ints(kept), pair)


def _pair_of(pair: pl.Series, per_edge: pl.Series) -> tuple[pl.Series, pl.Series]:
    """``per_edge`` at each event's pair of edges (``Chains.pair``; 0 where it has none)."""
    if per_edge.len() < 2:
        none = pl.repeat(0, pair.len(), eager=True, dtype=pl.Int64)
        return none, none
    first = pair.clip(0, per_edge.len() - 2)
    return tuple(pl.select(pl.when(pair >= 0).then(per_edge.gather(at)).otherwise(0)
                           ).to_series() for at in (first, first + 1))  # type: ignore[return-value]


def fold(chains: Chains, durs: pl.Series, gaps: pl.Series, e_gap: pl.Series) -> Folded:
    """The lists of a pass with durations ``durs`` and gaps ``gaps``/``e_gap`` (Int64)."""
    step = pl.select(pl.when(chains.member).then(
        durs.shift(1, fill_value=0) + gaps.gather(chains.member_pos.clip(0)))
        .otherwise(0)).to_series()
    total = step.cum_sum()  # a run is contiguous and its head's step is 0
    off = total - total.gather(chains.head)
    lags = pl.concat([off, off + durs, pl.Series([0], dtype=pl.Int64)])  # ``_lag_index``
    s_eff = gaps + lags.gather(chains.s_lag)
    pair_eff = _pair_of(chains.pair, s_eff)
    return Folded(chains.head_list, ints(off), chains.s_enc, ints(s_eff), chains.e_enc,
                  ints(e_gap + lags.gather(chains.e_lag)),
                  (ints(pair_eff[0]), ints(pair_eff[1])), (off, durs))


def _slots(chains: Chains, src: pl.Series, from_start: pl.Series) -> pl.Series:
    """Per edge its source's slot: a waiting call's end (``2 * src + 1``) or its chain's
    head's start (``2 * head``)."""
    synced = ~from_start & chains.has_end.gather(src)
    return pl.select(pl.when(synced).then(2 * src + 1).otherwise(2 * chains.head.gather(src))
                     ).to_series()


def _lag_index(chains: Chains, src: pl.Series, from_start: pl.Series) -> pl.Series:
    """Per edge where ``fold`` reads its lag: the source's offset (``src``), its
    offset plus its duration (``n + src``: from its end) or 0 (``2 * n``: from a waiting
    call's end, its own slot)."""
    n = chains.head.len()
    at_end = ~from_start
    synced = at_end & chains.has_end.gather(src)
    return pl.select(pl.when(synced).then(2 * n).when(at_end).then(src + n).otherwise(src)
                     ).to_series()


def read_back(chains: Chains, folded: Folded, times: array[int]
              ) -> tuple[pl.Series, pl.Series]:
    """Every node's start (its head's replayed start plus its offset) and end (a waiting
    call's replayed end, else its start plus its duration)."""
    off, durs = folded.columns
    start = lent(times[0::2]).gather(chains.head) + off
    end = pl.select(pl.when(chains.has_end).then(lent(times[1::2]))
                    .otherwise(start + durs)).to_series()
    return start, end


def latest_of(chains: Chains, folded: Folded, late: array[int], inf: int, nodes: pl.Series
              ) -> pl.Series:
    """The latest end of each of ``nodes`` from the backward pass's slots (``inf`` where
    unbounded): read where asked, not for every node (the slack reads the GPU operations)."""
    slots = lent(late)
    head_late = slots.gather(2 * chains.head.gather(nodes))
    off, durs = folded.columns
    own = head_late + off.gather(nodes) + durs.gather(nodes)
    return pl.select(pl.when(chains.has_end.gather(nodes)).then(slots.gather(2 * nodes + 1))
                     .when(head_late < inf // 2).then(own).otherwise(inf)).to_series()
