"""Replaying a graph: every node's start and end from its edges and durations (a forward
pass in time order), what decided each, and how late each could end before a step's end
moves (a backward pass). Both passes step over the calls of a chain (``chains.py``).

Events are a node's start (every node) and, for a synchronising call that waited, its end.
They are replayed in measured time order: every edge points forward in measured time, so
that order is a topological order of the graph (ties: a waiting call's end, then a run's
collective markers, then a CPU start, then a GPU start; then the node's number).
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from kernelscope.timeline.analysis.critical_path.chains import (
    Chains,
    Folded,
    chains_of,
    fold,
    latest_of,
    pair_decided,
    read_back,
)
from kernelscope.timeline.analysis.critical_path.eager import filled, take
from kernelscope.timeline.analysis.critical_path.graph import Graph
from kernelscope.timeline.analysis.critical_path.ints import column, ints, lent
from kernelscope.timeline.analysis.critical_path.overlap import in_blocks
from kernelscope.timeline.analysis.critical_path.run_sums import RunKeys
from kernelscope.timeline.analysis.critical_path.streams import (
    Streams,
    backward,
    latest,
    pair_time,
    scan_of,
    start_state,
    streams_of,
)
from kernelscope.timeline.analysis.critical_path.streams import times as pair_times
from kernelscope.timeline.analysis.critical_path.vocabulary import GPU, MARK

INF = 1 << 62
"""No bound: a time at or above INF // 2 is unbounded (a bound minus durations stays above)."""
SCAN_EVENTS = 10_000
"""The fewest events for the backward pass alone (an export's slack) to make the pairs' chains
to scan: below, making them costs more than the loop over every event saves (~15 million
instructions more on the samples' 1,000-3,500 events; 65 million fewer on the 40,000-kernel
trace's 40,000)."""


@dataclass(eq=False)
class Plan:
    """A graph as sequences for the passes (``ints``: views of its columns): per node its
    start edges (``s_*``, from ``s_ptr[n]`` to ``s_ptr[n + 1]``: their gaps and rows of
    ``Graph.edges``) and end edges (``e_*``); ``chains``: what the passes step over
    (``chains.py``)."""

    start: Sequence[int]
    end: Sequence[int]
    dur: Sequence[int]
    s_ptr: Sequence[int]
    s_gap: Sequence[int]
    s_edge: Sequence[int]
    e_ptr: Sequence[int]
    e_gap: Sequence[int]
    e_edge: Sequence[int]
    finish: list[int]
    chains: Chains
    columns: tuple[pl.Series, pl.Series, pl.Series, pl.Series, pl.Series]
    """``dur``, ``s_gap``, ``e_gap``, ``s_edge`` and ``e_edge`` as Int64 series."""
    by_dst: tuple[pl.DataFrame, pl.DataFrame]
    """The start and the end edges in the lists' order (src, dst, from_start)."""
    _measured: Folded | None = None
    _walk: WalkLists | None = None
    _streams: Streams | bool | None = False
    run_keys: RunKeys | None = None
    """What the paths' runs are summed by (``run_sums.py``; made by the first walk)."""
    families: pl.DataFrame | None = None
    """Per kernel family what every replay shares: family, node (its first launch's),
    launches, gpu_ns (``path.family_slack``; made by the first)."""

    def folded(self, dur: Sequence[int] | None, s_gap: Sequence[int] | None) -> Folded:
        """The chains' lists for ``dur`` and ``s_gap`` (the measured ones: made once)."""
        durs, gaps, e_gaps = self.columns[:3]
        if dur is None and s_gap is None:
            if self._measured is None:
                self._measured = fold(self.chains, durs, gaps, e_gaps)
            return self._measured
        return fold(self.chains, durs if dur is None else column(dur),
                    gaps if s_gap is None else column(s_gap), e_gaps)

    def streams(self, *, make: bool = True) -> Streams | None:
        """The pairs' chains (``streams.py``; made once), None where the plan has none (or,
        without ``make``, where they are not made yet)."""
        if self._streams is False and make:
            finish = take(self.chains.head_pos, pl.Series(self.finish, dtype=pl.Int64))
            self._streams = streams_of(self.chains, self.by_dst[0]["dst"],
                                       self.by_dst[1]["dst"], finish)
        return None if self._streams is False else self._streams  # type: ignore[return-value]

    def walk_lists(self, edges: pl.DataFrame) -> WalkLists:
        """The lists a walk reads (``edges``: the graph's; made once)."""
        if self._walk is None:
            chains = self.chains
            self._walk = WalkLists(ints(edges["src"]), ints(edges["from_start"]),
                                   ints(chains.member), chains.head_list,
                                   chains.member_pos_list)
        return self._walk


@dataclass(eq=False)
class WalkLists:
    """What a walk along the paths reads, as lists: per edge (row of ``Graph.edges``) its
    source and whether it leaves the source's start; per node the chain's ``member``,
    ``head`` and ``member_pos`` (``chains.py``)."""

    src: Sequence[int]
    from_start: Sequence[int]
    member: Sequence[int]
    head: Sequence[int]
    member_pos: Sequence[int]


@dataclass(eq=False)
class Replay:
    """A forward pass: per node its start and end and the edge (row of ``Graph.edges``)
    that decided each (-1: its own measured start, or its duration)."""

    start: Sequence[int]
    end: Sequence[int]
    start_by: Sequence[int]
    end_by: Sequence[int]
    columns: tuple[pl.Series, pl.Series] | None = None
    """``start`` and ``end`` as Int64 series, where the pass made them."""

    def series(self) -> tuple[pl.Series, pl.Series]:
        """``start`` and ``end`` as Int64 series (made once)."""
        if self.columns is None:
            self.columns = (column(self.start), column(self.end))
        return self.columns


def plan_of(graph: Graph) -> Plan:
    """The lists the passes read, with the graph's measured durations and gaps."""
    nodes, n = graph.nodes, graph.nodes.height
    edges = graph.edges.with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("edge"))
    starts, ends = _split(edges)
    # stable sorts: an edge's place among those of its destination decides a tie the same way
    # in every run
    if not starts["dst"].is_sorted():  # ``bind`` left them in order of destination
        starts = starts.sort("dst", maintain_order=True)
    ends = ends.sort("dst", maintain_order=True)
    s_ptr = _pointers(starts["dst"], n)
    return Plan(
        start=ints(nodes["start"]), end=ints(nodes["end"]), dur=ints(nodes["dur"]),
        s_ptr=ints(s_ptr), s_gap=ints(starts["gap"]), s_edge=ints(starts["edge"]),
        e_ptr=ints(_pointers(ends["dst"], n)), e_gap=ints(ends["gap"]), e_edge=ints(ends["edge"]),
        finish=nodes.filter((pl.col("cls") == MARK) & (pl.col("kind") == "step end"))["node"]
        .to_list(),
        chains=chains_of(n, starts, ends, s_ptr, lambda heads, ends: _events(nodes, heads, ends)),
        columns=(nodes["dur"].cast(pl.Int64), starts["gap"].cast(pl.Int64),
                 ends["gap"].cast(pl.Int64), starts["edge"], ends["edge"]),
        by_dst=(starts.select("src", "dst", "from_start"), ends.select("src", "dst", "from_start")),
    )


def _events(nodes: pl.DataFrame, heads: pl.Series, ends: pl.Series) -> pl.DataFrame:
    """The events of the nodes where ``heads`` (their starts) and ``ends`` (their ends) are
    set, with their place in replay order (``chains_of``): node, at, rank, side (one query)."""
    starts = nodes.lazy().select("node", "start", "cls", "kind", heads.alias("_kept")).filter(
        pl.col("_kept")).select(
        "node", pl.col("start").alias("at"),
        pl.when(pl.col("cls") == GPU).then(3).when(pl.col("kind").cat.starts_with("collective"))
        .then(1).otherwise(2).alias("rank"),
        pl.lit(0).alias("side"))
    if not ends.any():
        return starts.collect(engine="in-memory")
    return pl.concat([starts, nodes.lazy().select("node", "end", ends.alias("_kept")).filter(
        pl.col("_kept")).select(
        "node", pl.col("end").alias("at"), pl.lit(0).alias("rank"), pl.lit(1).alias("side"))],
        how="vertical_relaxed").collect(engine="in-memory")


def _split(edges: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``edges``' start edges and end edges (``to_end``), each in the order of ``edges``,
    without the flag: slices where the end edges come last, as ``build_graph`` leaves them
    (no copy of the ~1.4 million start edges of the 300k-kernel trace), else filters."""
    at = edges["to_end"].arg_true()
    first = edges.height - at.len()
    if not at.len() or at[0] == first:  # the flags' ``first`` last ones set: the tail
        edges = edges.drop("to_end")
        return edges.slice(0, first), edges.slice(first)
    return (edges.filter(~pl.col("to_end")).drop("to_end"),
            edges.filter(pl.col("to_end")).drop("to_end"))


def _pointers(dst: pl.Series, n: int) -> pl.Series:
    """CSR offsets of edges sorted by ``dst``: node i's edges are [ptr[i], ptr[i + 1]) (the
    counts of each run of ``dst`` summed)."""
    runs = dst.cast(pl.Int64).rle().struct.unnest()
    counts = filled(0, n + 1).scatter(
        runs["value"] + 1, runs["len"].cast(pl.Int64))
    return counts.cum_sum()


def replay(plan: Plan, dur: Sequence[int] | None = None, s_gap: Sequence[int] | None = None,
           *, scan: bool = True) -> Replay:
    """The forward pass, with ``dur`` and ``s_gap`` (start edges' gaps) in place of the
    measured ones where given. An event's time is kept in its slot (its place in
    ``Chains.order``); what decided each start of a pair is read after, in columns. The
    pairs' times come from their chains' scans (``streams.py``) where the plan has them and
    ``scan``, else from the loop over every event."""
    folded = plan.folded(dur, s_gap)
    dur = plan.dur if dur is None else dur
    order = plan.chains.order
    times = array("q", [0]) * len(order)
    decided: tuple[list[int], list[int], list[int], list[int]] = ([], [], [], [])
    """The nodes whose start (then end) was decided in the loop, and by which edge."""
    streams = plan.streams() if scan else None
    if streams is None:
        first, second = plan.chains.pair_slots
        first_eff, second_eff = folded.pair_eff
        events = in_blocks(len(order), lambda lo, hi: zip(  # the lock given up between blocks
            range(lo, hi), order[lo:hi], first[lo:hi], first_eff[lo:hi], second[lo:hi],
            second_eff[lo:hi], strict=True))
        for slot, event, a, a_eff, b, b_eff in events:
            if a >= 0:  # most GPU operations: their stream's and their launch's edge
                best = times[a] + a_eff
                value = times[b] + b_eff
                times[slot] = value if value > best else best
            else:
                _other(plan, folded, dur, times, decided, slot, event)
        slots = lent(times)
    else:
        columns = scan_of(streams, *folded.pair_columns)
        state = start_state(streams, -INF)
        needs, loop_slots = streams.needs, streams.loop_slots
        first, second = plan.chains.pair_slots
        first_eff, second_eff = folded.pair_eff
        for slot in in_blocks(len(loop_slots), lambda lo, hi: loop_slots[lo:hi]):
            for read in needs.get(slot, ()):
                times[read] = pair_time(streams, columns, state, times, read)
            if first[slot] >= 0:  # a pair left out of the chains
                times[slot] = max(times[first[slot]] + first_eff[slot],
                                  times[second[slot]] + second_eff[slot])
            else:
                _other(plan, folded, dur, times, decided, slot, order[slot])
        slots = pair_times(columns, lent(times))
    start, end = read_back(plan.chains, folded, slots)
    start_by = pair_decided(plan.chains, folded, slots, decided[0], decided[1])
    end_by = filled(-1, len(dur)).scatter(decided[2], decided[3])
    return Replay(ints(start), ints(end), ints(start_by), ints(end_by), (start, end))


def _other(plan: Plan, folded: Folded, dur: Sequence[int], times: array[int],
           decided: tuple[list[int], list[int], list[int], list[int]], slot: int, event: int
           ) -> None:
    """The time of an event that is not a pair, set in ``times[slot]``: a waiting call's
    end (its own start plus its return, or its latest end edge) or a start (its latest start
    edge; a head without edges: its measured start); ``decided``: what decided it."""
    n = event >> 1
    if event & 1:
        best, by = _latest_edge(times, folded.e_enc, folded.e_eff, plan.e_ptr[n],
                                plan.e_ptr[n + 1], times[folded.head_pos[n]] + folded.off[n]
                                + dur[n], -1)
        times[slot] = best
        decided[2].append(n)
        decided[3].append(by)
        return
    lo, hi = plan.s_ptr[n], plan.s_ptr[n + 1]
    if lo == hi:  # a head without edges: its measured start (``start_by`` is -1)
        times[slot] = plan.start[n]
        return
    s_enc, s_eff = folded.s_enc, folded.s_eff
    best, by = _latest_edge(times, s_enc, s_eff, lo + 1, hi, times[s_enc[lo]] + s_eff[lo], lo)
    times[slot] = best
    decided[0].append(n)
    decided[1].append(by)


Indexed = Mapping[int, int] | Sequence[int]
"""An edge column as the passes read it: a list, or a dict of a chain's single edges."""


def _latest_edge(times: array[int], enc: Indexed, eff: Indexed, lo: int, hi: int, best: int,
                 by: int) -> tuple[int, int]:
    """The later of ``best`` and the times edges [lo, hi) give (``times[enc[k]] + eff[k]``),
    with the edge that gives it (``by`` when none is later: the first wins a tie)."""
    for k in range(lo, hi):
        value = times[enc[k]] + eff[k]
        if value > best:
            best, by = value, k
    return best, by


def latest_ends(plan: Plan, run: Replay, dur: Sequence[int] | None = None,
                s_gap: Sequence[int] | None = None, nodes: pl.Series | None = None, *,
                scan: bool = True) -> pl.Series:
    """Per node of ``nodes`` (None: every node), the latest it could end with no step ending
    later than in ``run`` (INF // 2 or more for what no step's end waits on): the backward
    pass. A node of a chain moves with its head, so it has its head's slack. The pairs'
    chains in closed form (``streams.py``) where the plan has them made and ``scan``: alone
    (an export's slack) this pass makes them only from ``SCAN_EVENTS`` events on."""
    folded = plan.folded(dur, s_gap)
    dur = plan.dur if dur is None else dur
    head, off = folded.head_pos, folded.off
    late = array("q", [INF]) * len(plan.chains.order)
    for f in plan.finish:
        late[head[f]] = min(late[head[f]], run.start[f] - off[f])
    streams = plan.streams(make=len(plan.chains.order) >= SCAN_EVENTS) if scan else None
    if streams is None:
        slots = lent(_back_all(plan, folded, dur, late))
    else:
        back = backward(streams, scan_of(streams, *folded.pair_columns), late, INF)
        feeds, loop_slots = streams.feeds, streams.loop_slots
        for slot in in_blocks(len(loop_slots), lambda lo, hi: loop_slots[lo:hi][::-1],
                              backward=True):
            for code in feeds.get(slot, ()):
                value = back.bound(code)
                if value < late[slot]:
                    late[slot] = value
            _back_other(plan, folded, dur, late, slot)
        slots = latest(back.scan, lent(late), INF)
    if nodes is None:
        nodes = pl.int_range(len(dur), eager=True, dtype=pl.Int64)
    return latest_of(plan.chains, folded, slots, INF, nodes)


def _back_other(plan: Plan, folded: Folded, dur: Sequence[int], late: array[int], slot: int
                ) -> None:
    """The bounds an event the chains leave to the loop gives its edges' sources (its own
    bound, ``late[slot]``, set)."""
    bound = late[slot]
    if bound >= INF // 2:
        return
    a = plan.chains.pair_slots[0][slot]
    if a >= 0:  # a pair left out of the chains
        b = plan.chains.pair_slots[1][slot]
        a_eff, b_eff = folded.pair_eff[0][slot], folded.pair_eff[1][slot]
        late[a] = min(late[a], bound - a_eff)
        late[b] = min(late[b], bound - b_eff)
        return
    n = plan.chains.order[slot] >> 1
    enc: Mapping[int, int] | Sequence[int]  # a start's edges by position, an end's in a list
    eff: Mapping[int, int] | Sequence[int]
    if plan.chains.order[slot] & 1:
        own = folded.head_pos[n]
        late[own] = min(late[own], bound - dur[n] - folded.off[n])
        ptr, enc, eff = plan.e_ptr, folded.e_enc, folded.e_eff
    else:
        ptr, enc, eff = plan.s_ptr, folded.s_enc, folded.s_eff
    for k in range(ptr[n], ptr[n + 1]):
        value, source = bound - eff[k], enc[k]
        if value < late[source]:
            late[source] = value


def _back_all(plan: Plan, folded: Folded, dur: Sequence[int], late: array[int]) -> array[int]:
    """The backward pass's loop over every event (``late``: the steps' ends set)."""
    head, off, order = folded.head_pos, folded.off, plan.chains.order
    s_ptr, s_enc, s_eff = plan.s_ptr, folded.s_enc, folded.s_eff
    e_ptr, e_enc, e_eff = plan.e_ptr, folded.e_enc, folded.e_eff
    unbounded = INF // 2
    first, second = plan.chains.pair_slots
    first_eff, second_eff = folded.pair_eff
    slots = memoryview(late)  # a view reads each slot when its event comes
    events = in_blocks(len(order), lambda lo, hi: zip(  # reversed views: quicker than reversed
        slots[lo:hi][::-1], order[lo:hi][::-1], first[lo:hi][::-1], first_eff[lo:hi][::-1],
        second[lo:hi][::-1], second_eff[lo:hi][::-1], strict=True), backward=True)
    for bound, event, a, a_eff, b, b_eff in events:
        if bound >= unbounded:
            continue
        if a >= 0:  # most GPU operations (as in ``replay``)
            value = bound - a_eff
            if value < late[a]:
                late[a] = value
            value = bound - b_eff
            if value < late[b]:
                late[b] = value
            continue
        n = event >> 1
        if event & 1:
            own = head[n]
            if bound - dur[n] - off[n] < late[own]:
                late[own] = bound - dur[n] - off[n]
            for k in range(e_ptr[n], e_ptr[n + 1]):
                value, slot = bound - e_eff[k], e_enc[k]
                if value < late[slot]:
                    late[slot] = value
            continue
        for k in range(s_ptr[n], s_ptr[n + 1]):
            value, slot = bound - s_eff[k], s_enc[k]
            if value < late[slot]:
                late[slot] = value
    return late
