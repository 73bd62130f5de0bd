"""The dependency graph of a run of several ranks: each rank's graph (``graph.py``) on one
clock, joined at the collectives.

A collective ends when its last rank arrives: every rank leaves it some time after that
arrival (the transfer, and the release of the ranks in turn), and an earlier rank waits in
between. Each rank's collective call (a CPU range: gloo's ``gloo:all_reduce``, an NVTX or
MPI range) gets two markers, ``collective arrive`` at the call's start and ``collective
leave`` at its end, on the call's thread, or, where the rank's graph holds no event of that
thread (gloo runs the collective on its own threads), on the thread of the rank's steps,
which issued it and waits for it. A third marker, ``collective release``, goes where that
thread resumed once the last rank arrived (before its first event at or after the last
arrival, at the latest at the call's end): it waits on every rank's arrival (``collective``
edges, from each arrive marker) and on the event before it on its thread, each edge keeping
the time from the last arrival to the release (``after``; the thread edge at most its
measured gap). So the replay of the measured times gives every event back, and a
what-if that moves the last arrival moves every rank's release with it: the others' waits
shrink or grow, and their steps with them.

A rank whose call ended before the last arrival on the run's clock (clocks that disagree by
more than the transfer) keeps its measured times: its call joins nothing.
"""

from __future__ import annotations

import polars as pl

from kernelscope.timeline.analysis.critical_path.graph import Graph
from kernelscope.timeline.analysis.critical_path.vocabulary import (
    COLLECTIVE,
    GPU,
    MARK,
    OWN_KIND_ORDER,
    RANK_BITS,
    THREAD,
    WHOLE_TRACE_LANE,
)

CALL_SCHEMA = {"rank": pl.Int64, "match": pl.Int64, "op": pl.String, "global_tid": pl.Int64,
               "start": pl.Int64, "end": pl.Int64}


def run_graph(graphs: dict[int, Graph], offsets: dict[int, int], calls: pl.DataFrame
              ) -> tuple[Graph, pl.DataFrame]:
    """One graph of ``graphs`` (rank -> its graph, on its own clock) on the run's clock
    (``offsets``: rank -> ns added to its times), joined at ``calls`` (``CALL_SCHEMA``: one
    row per rank's call of a matched collective, on the run's clock; global_tid as in the
    rank's own graph). Also the calls joined: rank, match, op, arrive, leave (marker nodes),
    start, end, after (ns from the last arrival to the call's end)."""
    parts = [_moved(graphs[rank], rank, offsets.get(rank, 0)) for rank in sorted(graphs)]
    bases = [0]
    for graph in parts[:-1]:
        bases.append(bases[-1] + graph.nodes.height)
    nodes = pl.concat([g.nodes.with_columns(pl.col("node") + base)
                       for g, base in zip(parts, bases, strict=True)])
    edges = pl.concat([g.edges.with_columns(pl.col("src") + base, pl.col("dst") + base)
                       for g, base in zip(parts, bases, strict=True)])
    steps = pl.concat([g.steps.with_columns(pl.col("begin") + base, pl.col("finish") + base)
                       for g, base in zip(parts, bases, strict=True)])
    steps = steps.with_columns(pl.col("step").alias("rank_step")).with_columns(
        pl.int_range(pl.len(), dtype=pl.Int64).alias("step"))
    on_cpu = calls.filter(pl.col("global_tid").is_not_null())
    joined = _joined(_on_threads(on_cpu, nodes, steps))
    nodes, edges, joined = _with_markers(nodes, edges, joined)
    nodes, edges, kernels = _kernels_joined(nodes, edges, calls.filter(
        pl.col("global_tid").is_null()))
    joined = pl.concat([joined, kernels.select(joined.columns)], how="vertical_relaxed")
    graph = Graph(nodes, edges, steps, pl.concat([g.ranges for g in parts]),
                  parts[0].launch_latency_ns if parts else 0)
    return graph, joined


def lane_of(rank: int | pl.Expr, lane: pl.Expr) -> pl.Expr:
    """A rank's lane (thread id, or device and stream) in the run's graph."""
    return (pl.when(lane == WHOLE_TRACE_LANE).then(lane)
            .otherwise(lane % (1 << RANK_BITS) + rank * (1 << RANK_BITS)))


def _moved(graph: Graph, rank: int, offset: int) -> Graph:
    """``graph`` on the run's clock, its lanes the rank's, every row tagged with ``rank``."""
    tag = pl.lit(rank, pl.Int64).alias("rank")
    nodes = graph.nodes.with_columns(pl.col("start") + offset, pl.col("end") + offset,
                                     lane_of(rank, pl.col("lane")).alias("lane"), tag)
    steps = graph.steps.with_columns(pl.col("start") + offset, pl.col("end") + offset,
                                     lane_of(rank, pl.col("global_tid")).alias("global_tid"), tag)
    ranges = graph.ranges.with_columns(pl.col("start") + offset, pl.col("end") + offset,
                                       lane_of(rank, pl.col("global_tid")).alias("global_tid"))
    return Graph(nodes, graph.edges, steps, ranges, graph.launch_latency_ns)


def _on_threads(calls: pl.DataFrame, nodes: pl.DataFrame, steps: pl.DataFrame
                ) -> pl.DataFrame:
    """``calls`` + ``lane``: the call's own thread where the rank's graph holds events of it,
    else the thread of the rank's steps (a backend thread, as gloo's, runs the collective
    the step's thread issued and waits for)."""
    lanes = nodes.filter(pl.col("cls") != GPU)["lane"].unique().implode()
    step_lane = steps.group_by("rank").agg(pl.col("global_tid").first().alias("step_lane"))
    return calls.with_columns(lane_of(pl.col("rank"), pl.col("global_tid")).alias("lane")
                              ).with_columns(pl.col("lane").is_in(lanes).alias("held")).join(
        step_lane, on="rank", how="left").with_columns(
        pl.when(pl.col("held") | pl.col("step_lane").is_null()).then(pl.col("lane"))
        .otherwise(pl.col("step_lane")).alias("lane")).drop("held", "step_lane")


def _joined(calls: pl.DataFrame) -> pl.DataFrame:
    """The calls that join their collective: those of a collective at least two ranks made,
    ending no earlier than its last arrival; with ``after``."""
    calls = calls.with_columns(
        pl.col("start").max().over("match").alias("last_arrival"),
        pl.col("rank").n_unique().over("match").alias("ranks"))
    return calls.filter((pl.col("ranks") >= 2) & (pl.col("end") >= pl.col("last_arrival"))
                        ).with_columns((pl.col("end") - pl.col("last_arrival")).alias("after")
                                       ).sort("match", "rank")


def _with_markers(nodes: pl.DataFrame, edges: pl.DataFrame, calls: pl.DataFrame
                  ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The arrive, release and leave markers put into their threads' order, and the
    collective edges into every release."""
    n, k = nodes.height, calls.height
    calls = _release_times(nodes, calls).with_columns(
        *(pl.int_range(n + i * k, n + (i + 1) * k, dtype=pl.Int64).alias(word)
          for i, word in enumerate(("arrive", "release", "leave"))))
    marks = pl.concat([calls.select(
        pl.col(word).alias("node"), pl.lit(MARK, pl.Int8).alias("cls"),
        pl.lit(f"collective {word}").alias("kind"), pl.col("op").alias("name"),
        pl.col(at).alias("start"), pl.col(at).alias("end"), "lane", "rank",
        pl.lit(0, pl.Int64).alias("dur"),
        pl.lit(OWN_KIND_ORDER.index("communication"), pl.Int8).alias("own_kind"))
        for word, at in (("arrive", "start"), ("release", "released"), ("leave", "end"))])
    pid = nodes.select("lane", "pid").unique("lane")
    marks = marks.join(pid, on="lane", how="left")
    nodes = pl.concat([nodes, marks.select(nodes.columns).cast(nodes.schema)])  # type: ignore[arg-type]
    edges = _threaded(nodes, edges, marks["lane"].unique(), calls)
    return nodes, edges, calls


ORDER = {"collective arrive": -2, "collective release": -1, "collective leave": 2}
"""Where a marker goes among the events of its thread that start at the same time."""


def _release_times(nodes: pl.DataFrame, calls: pl.DataFrame) -> pl.DataFrame:
    """``calls`` + ``released``: when the call's thread resumed once the last rank arrived
    (its first event at or after the last arrival, at the latest the call's end), and
    ``after`` (ns from the last arrival to then)."""
    events = nodes.filter(pl.col("cls") != GPU).select(
        "lane", pl.col("start").alias("next")).sort("next")
    found = calls.sort("last_arrival").join_asof(
        events, left_on="last_arrival", right_on="next", by="lane", strategy="forward",
        check_sortedness=False)
    return found.with_columns(pl.min_horizontal("next", "end").alias("released")).with_columns(
        (pl.col("released") - pl.col("last_arrival")).alias("after")).drop("next")


def _threaded(nodes: pl.DataFrame, edges: pl.DataFrame, lanes: pl.Series,
              calls: pl.DataFrame) -> pl.DataFrame:
    """``edges`` with the thread edges the markers fall between cut at them, and each
    call's release waiting on its thread (at most the measured gap) and on every rank's
    arrival, by ``after``."""
    cpu = nodes.filter(pl.col("lane").is_in(lanes.implode()) & (pl.col("cls") != GPU)).select(
        "node", "lane", "start", "end",
        pl.col("kind").replace_strict(ORDER, default=0, return_dtype=pl.Int64).alias("order"),
        (pl.col("kind").cat.starts_with("collective")).alias("marker"))
    chain = cpu.sort("lane", "start", "order", "node").with_columns(
        pl.col("node").shift(1).over("lane").alias("src"),
        pl.col("end").shift(1).over("lane").alias("src_end"),
        pl.col("marker").shift(1).over("lane").alias("src_marker"))
    cut = chain.filter(pl.col("src").is_not_null() & (pl.col("marker") | pl.col("src_marker")))
    old = edges.filter(pl.col("etype") == THREAD).join(
        cut.filter(pl.col("src_marker")).select(pl.col("node").alias("dst")), on="dst",
        how="semi")
    after = calls.select(pl.col("release").alias("node"), "after")
    new = cut.join(after, on="node", how="left").select(
        pl.col("src").cast(pl.Int64), pl.col("node").alias("dst"),
        pl.when(pl.col("after").is_null()).then(pl.lit(THREAD, pl.Int8))
        .otherwise(pl.lit(COLLECTIVE, pl.Int8)).alias("etype"),
        pl.lit(False).alias("from_start"), pl.lit(False).alias("to_end"),
        pl.min_horizontal(pl.col("start") - pl.col("src_end"), "after").alias("gap"))
    waits = calls.join(calls.select("match", pl.col("arrive").alias("src")), on="match").select(
        "src", pl.col("release").alias("dst"), pl.lit(COLLECTIVE, pl.Int8).alias("etype"),
        pl.lit(False).alias("from_start"), pl.lit(False).alias("to_end"),
        pl.col("after").alias("gap"))
    kept = edges.join(old.select("src", "dst", "etype"), on=["src", "dst", "etype"], how="anti")
    return pl.concat([kept, new.cast(kept.schema), waits.cast(kept.schema)])  # type: ignore[arg-type]


def _kernels_joined(nodes: pl.DataFrame, edges: pl.DataFrame, calls: pl.DataFrame
                    ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Collectives that are GPU kernels (NCCL's: a rank arrives when its kernel starts, and
    the kernel spins until every rank's has): each kernel's end waits on every rank's
    kernel's start (``collective`` edges bounding the end, from the start), the kernel's
    own time the part after the last arrival (``after``; the whole kernel on the last rank).
    The calls are matched to the kernels by rank, start and end."""
    if not calls.height:
        return nodes, edges, calls.with_columns(*(pl.lit(None, pl.Int64).alias(c) for c in (
            "lane", "last_arrival", "after", "released", "arrive", "release", "leave"))
        ).with_columns(pl.lit(None, pl.UInt32).alias("ranks"))
    kernels = nodes.filter(pl.col("cls") == GPU).select(
        "rank", "start", "end", pl.col("node").alias("arrive"), "lane")
    calls = _joined(calls.join(kernels, on=["rank", "start", "end"]).unique(
        ["rank", "match"], keep="first")).filter(pl.col("end") > pl.col("last_arrival"))
    calls = calls.filter(pl.len().over("match") >= 2).with_columns(
        pl.col("arrive").alias("release"), pl.col("arrive").alias("leave"),
        pl.col("end").alias("released"))
    own = calls.select(pl.col("arrive").alias("node"),
                       pl.min_horizontal("after", pl.col("end") - pl.col("start")).alias("own"))
    nodes = nodes.join(own, on="node", how="left").with_columns(
        pl.coalesce("own", "dur").alias("dur")).drop("own")
    waits = calls.join(calls.select("match", pl.col("arrive").alias("src")), on="match").select(
        "src", pl.col("leave").alias("dst"), pl.lit(COLLECTIVE, pl.Int8).alias("etype"),
        pl.lit(True).alias("from_start"), pl.lit(True).alias("to_end"),
        pl.col("after").alias("gap"))
    return nodes, pl.concat([edges, waits.cast(edges.schema)]), calls  # type: ignore[arg-type]
