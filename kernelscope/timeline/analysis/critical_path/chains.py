"""Chains: the passes step over the calls that only follow the call before them.

A node whose one start edge is its thread's order from the node just before it (its number
minus one) with no sync edges (most CUDA calls, the step markers) starts at a fixed offset
from the first node of its run, its ``head``: the offset is the durations and gaps between
them. The passes replay only the heads and the synchronising calls' ends, an edge from a node
inside a run counts from its head's start plus the node's offset, and every start is read
back at once (``starts``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import polars as pl

from kernelscope.timeline.analysis.critical_path.eager import (
    at_least,
    filled,
    positions,
    take,
    where,
)
from kernelscope.timeline.analysis.critical_path.ints import column, ints
from kernelscope.timeline.analysis.critical_path.vocabulary import THREAD


@dataclass(eq=False)
class Chains:
    """Per node its ``head``, whether it is a ``member`` of its head's run (and its one
    edge's position in the start lists, ``member_pos``; -1 for a head), whether it has sync
    edges (``has_end``); per start and end edge its source node and side; ``order``: the
    events the passes replay (``2 * head``: a head's start, ``2 * node + 1``: a sync end),
    whose times the passes keep by their place in ``order`` (an event's slot): per node its
    head's start's slot (``head_pos``) and its end's (``end_pos``, -1 for none);
    ``pair``: per event of ``order``, the first of its two start edges where it is a start
    with exactly two (most GPU operations: their stream's and their launch's), else -1;
    ``single``: the start edges of the other starts (positions in the start lists). The
    passes read no other start edge: a member's moves with its head."""

    head: pl.Series
    member: pl.Series
    member_pos: pl.Series
    has_end: pl.Series
    s_src: pl.Series
    s_from_start: pl.Series
    e_src: pl.Series
    e_from_start: pl.Series
    order: Sequence[int]
    head_pos: pl.Series
    end_pos: pl.Series
    pair: pl.Series
    single: pl.Series

    @cached_property
    def head_list(self) -> Sequence[int]:
        return ints(self.head)

    @cached_property
    def head_pos_list(self) -> Sequence[int]:
        return ints(self.head_pos)

    @cached_property
    def member_pos_list(self) -> Sequence[int]:
        return ints(self.member_pos)

    @cached_property
    def member_at(self) -> pl.Series:
        """``member_pos`` where a gather can read it (0 for a head: read, then not used)."""
        return positions(at_least(self.member_pos, 0))

    @cached_property
    def end_at(self) -> pl.Series:
        """``end_pos`` where a gather can read it (0 for a node without an end event)."""
        return positions(at_least(self.end_pos, 0))

    @cached_property
    def head_at(self) -> pl.Series:
        """``head`` as ``positions``."""
        return positions(self.head)

    @cached_property
    def head_pos_at(self) -> pl.Series:
        """``head_pos`` as ``positions``."""
        return positions(self.head_pos)

    @cached_property
    def single_at(self) -> pl.Series:
        """``single`` as ``positions``."""
        return positions(self.single)

    @cached_property
    def pair_at(self) -> tuple[pl.Series, pl.Series] | None:
        """Per event the positions of its pair of edges (any two edges where it has none);
        None where no event has a pair."""
        if not (self.pair >= 0).any():
            return None
        first = positions(at_least(self.pair, 0))  # a pair: two start edges or more, 0 and 1
        return first, first + 1

    @cached_property
    def pair_slots(self) -> tuple[Sequence[int], Sequence[int]]:
        """Per event the slots of its pair of edges' sources (-1 where it has none)."""
        return ints(self.pair_slot_series[0]), ints(self.pair_slot_series[1])

    @cached_property
    def pair_slot_series(self) -> tuple[pl.Series, pl.Series]:
        """``pair_slots`` as series."""
        if self.pair_at is None:
            none = filled(-1, self.pair.len())
            return none, none
        has = self.pair >= 0
        return tuple(where(  # type: ignore[return-value]
            has, _slots(self, take(self.s_src, at), take(self.s_from_start, at)), -1)
            for at in self.pair_at)

    @cached_property
    def paired(self) -> tuple[pl.Series, pl.Series, pl.Series, pl.Series, pl.Series]:
        """The events with a pair (``pair_at`` not None): which they are (a mask of
        ``order``), their nodes, their first edges' positions (``pair``), and the slots of
        their two edges' sources as ``positions``."""
        has = self.pair >= 0
        first, second = (positions(slot.filter(has)) for slot in self.pair_slot_series)
        return has, column(self.order).filter(has) // 2, self.pair.filter(has), first, second

    @cached_property
    def pair_lag(self) -> tuple[pl.Series, pl.Series] | None:
        """Per event where ``fold`` reads its pair of edges' lags (``_lag_index``)."""
        if self.pair_at is None:
            return None
        return tuple(positions(_lag_index(  # type: ignore[return-value]
            self, take(self.s_src, at), take(self.s_from_start, at))) for at in self.pair_at)

    @cached_property
    def single_lag(self) -> pl.Series:
        """Per edge of ``single`` where ``fold`` reads its lag."""
        return positions(_lag_index(self, take(self.s_src, self.single_at),
                                    take(self.s_from_start, self.single_at)))

    @cached_property
    def single_enc(self) -> dict[int, int]:
        """Per edge of ``single`` (by its position) its source's slot."""
        slots = _slots(self, take(self.s_src, self.single_at),
                       take(self.s_from_start, self.single_at))
        return dict(zip(self.single.to_list(), slots.to_list(), strict=True))

    @cached_property
    def e_lag(self) -> pl.Series:
        """Per end edge where ``fold`` reads its lag."""
        return positions(_lag_index(self, self.e_src, self.e_from_start))

    @cached_property
    def e_enc(self) -> Sequence[int]:
        """Per end edge its source's slot."""
        return ints(_slots(self, self.e_src, self.e_from_start))


@dataclass(eq=False)
class Folded:
    """The lists of one pass: per node its head's start's slot (``Chains.head_pos``) and its
    offset from its head; per start edge that the passes read (``Chains.single``, by
    position) and per end edge its source's slot (its head's start's, or a waiting call's
    end's) and the gap from that slot's time."""

    head_pos: Sequence[int]
    off: Sequence[int]
    s_enc: Mapping[int, int]
    s_eff: Mapping[int, int]
    e_enc: Sequence[int]
    e_eff: Sequence[int]
    pair_eff: tuple[Sequence[int], Sequence[int]]
    """Per event of ``Chains.order``, the gaps of its pair of edges (``Chains.pair``)."""
    columns: tuple[pl.Series, pl.Series]
    """``off`` and the pass's durations as Int64 series."""
    pair_columns: tuple[pl.Series, pl.Series]
    """``pair_eff`` as series."""


def chains_of(n: int, starts: pl.DataFrame, ends: pl.DataFrame, s_ptr: pl.Series,
              events: Callable[[pl.Series, pl.Series], pl.DataFrame]) -> Chains:
    """``starts``/``ends``: the start and end edges sorted by destination (src, dst, etype,
    from_start); ``s_ptr``: each node's first start edge (``n + 1`` offsets); ``events``:
    given which nodes are heads and which have an end event, those events (node, side: 1
    for a waiting call's end) with their place in replay order (the columns at, rank, node:
    no two events alike), the starts in order of node and then the ends in order of node (a
    start and an end never share a rank)."""
    every = pl.int_range(n, eager=True, dtype=pl.Int64)
    has_end = pl.Series([False]).new_from_index(0, n).scatter(ends["dst"], True)
    first = s_ptr.head(n)
    count = s_ptr.tail(n) - first
    one = count == 1
    if starts.height:
        some = where(first < starts.height, at_least(first, 0), starts.height - 1)
        src = take(starts["src"], some)
        one = (one & (take(starts["etype"], some) == THREAD) & ~take(has_end, src)
               & (src == every - 1))
    member = one.alias("member")
    head = every.zip_with(~member, pl.Series([None], dtype=pl.Int64)).forward_fill()
    member_pos = where(member, first, -1)
    kept = events(~member, has_end).sort("at", "rank", maintain_order=True)  # ties: by node
    lo, hi = take(s_ptr, kept["node"]), take(s_ptr, kept["node"] + 1)
    paired = (kept["side"] == 0) & (hi - lo == 2)
    pair = where(paired, lo, -1)
    other = (kept["side"] == 0) & ~paired
    single = pl.int_ranges(lo.filter(other), hi.filter(other), dtype=pl.Int64, eager=True
                           ).explode().drop_nulls()
    head_pos, end_pos = _places(kept, head)
    kept = 2 * kept["node"] + kept["side"]
    return Chains(head, member, member_pos, has_end, starts["src"], starts["from_start"],
                  ends["src"], ends["from_start"], ints(kept), head_pos, end_pos, pair, single)


def _places(kept: pl.DataFrame, head: pl.Series) -> tuple[pl.Series, pl.Series]:
    """Per node the place in ``kept`` (the events in replay order: node, side) of its head's
    start and of its own end (-1 for none)."""
    n = head.len()
    place = pl.int_range(kept.height, eager=True, dtype=pl.Int64)
    start = kept["side"] == 0
    none = filled(-1, n)
    starts = none.clone().scatter(kept["node"].filter(start), place.filter(start))
    ends = none.scatter(kept["node"].filter(~start), place.filter(~start))
    return take(starts, head), ends


def fold(chains: Chains, durs: pl.Series, gaps: pl.Series, e_gap: pl.Series) -> Folded:
    """The lists of a pass with durations ``durs`` and gaps ``gaps``/``e_gap`` (Int64): the
    gaps of the start edges the passes read only (``Chains.pair``, ``Chains.single``)."""
    before = pl.concat([filled(0, 1), durs]).head(durs.len())  # each node's previous's
    step = where(chains.member, before + take(gaps, chains.member_at), 0)
    total = step.cum_sum()  # a run is contiguous and its head's step is 0
    off = total - take(total, chains.head_at)
    lags = pl.concat([off, off + durs, pl.Series([0], dtype=pl.Int64)])  # ``_lag_index``
    single = take(gaps, chains.single_at) + take(lags, chains.single_lag)
    pair_eff = _pair_eff(chains, gaps, lags)
    return Folded(chains.head_pos_list, ints(off), chains.single_enc,
                  dict(zip(chains.single.to_list(), single.to_list(), strict=True)),
                  chains.e_enc, ints(e_gap + take(lags, chains.e_lag)),
                  (ints(pair_eff[0]), ints(pair_eff[1])), (off, durs), pair_eff)


def _pair_eff(chains: Chains, gaps: pl.Series, lags: pl.Series) -> tuple[pl.Series, pl.Series]:
    """Per event the gaps of its pair of edges from their sources' slots (0 where it has
    none)."""
    if chains.pair_at is None or chains.pair_lag is None:
        none = filled(0, chains.pair.len())
        return none, none
    has = chains.pair >= 0
    return tuple(where(has, take(gaps, at) + take(lags, lag), 0)  # type: ignore[return-value]
                 for at, lag in zip(chains.pair_at, chains.pair_lag, strict=True))


def _slots(chains: Chains, src: pl.Series, from_start: pl.Series) -> pl.Series:
    """Per edge its source's slot: a waiting call's end's or its chain's head's start's."""
    synced = ~from_start & take(chains.has_end, src)
    return where(synced, take(chains.end_pos, src), take(chains.head_pos, src))


def _lag_index(chains: Chains, src: pl.Series, from_start: pl.Series) -> pl.Series:
    """Per edge where ``fold`` reads its lag: the source's offset (``src``), its
    offset plus its duration (``n + src``: from its end) or 0 (``2 * n``: from a waiting
    call's end, its own slot)."""
    n = chains.head.len()
    at_end = ~from_start
    synced = at_end & take(chains.has_end, src)
    return where(synced, 2 * n, where(at_end, src + n, src))


def read_back(chains: Chains, folded: Folded, slots: pl.Series
              ) -> tuple[pl.Series, pl.Series]:
    """Every node's start (its head's replayed start plus its offset) and end (a waiting
    call's replayed end, else its start plus its duration)."""
    off, durs = folded.columns
    start = take(slots, chains.head_pos_at) + off
    end = where(chains.has_end, take(slots, chains.end_at), start + durs)
    return start, end


def pair_decided(chains: Chains, folded: Folded, slots: pl.Series, nodes: list[int],
                 by: list[int]) -> pl.Series:
    """Per node the start edge (its position in the start lists) that decided its start in
    a forward pass (``slots``: its times): a member's own edge, ``by`` for ``nodes``, and
    for the start of a pair (``Chains.pair``) the second where it allows a later start than
    the first, else the first (as the pass would have chosen); -1 for the others."""
    decided: pl.Series = chains.member_pos.clone()  # ``scatter`` changes the one it is given
    if nodes:
        decided.scatter(nodes, by)
    if chains.pair_at is None:
        return decided
    has, node, pair, first, second = chains.paired
    first_eff, second_eff = (eff.filter(has) for eff in folded.pair_columns)
    later = (take(slots, second) + second_eff) > (take(slots, first) + first_eff)
    decided.scatter(node, pair + later.cast(pl.Int64))
    return decided


def latest_of(chains: Chains, folded: Folded, slots: pl.Series, inf: int, nodes: pl.Series
              ) -> pl.Series:
    """The latest end of each of ``nodes`` from the backward pass's slots (``inf`` where
    unbounded): read where asked, not for every node (the slack reads the GPU operations)."""
    nodes = positions(nodes)  # read five times
    head_late = take(slots, take(chains.head_pos_at, nodes))
    off, durs = folded.columns
    own = head_late + take(off, nodes) + take(durs, nodes)
    end_late = take(slots, at_least(take(chains.end_pos, nodes), 0))
    return where(take(chains.has_end, nodes), end_late,
                 where(head_late < inf // 2, own, inf))
