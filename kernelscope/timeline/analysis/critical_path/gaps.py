"""The edges' gaps (``graph.py``): each edge's measured gap and the least it keeps when it
does not decide its destination's start; the waits the trace does not name, inferred from
the measured times (``cross-stream`` and ``wake`` edges); and which edge decided each start.
"""

from __future__ import annotations

import polars as pl

from kernelscope.timeline.analysis.critical_path.eager import at_least, filled, take
from kernelscope.timeline.analysis.critical_path.vocabulary import (
    CROSS,
    CROSS_TOLERANCE_NS,
    CROSS_WINDOW_NS,
    EDGE_SCHEMA,
    EVENT,
    GPU,
    LANES_PER_DEVICE,
    LAUNCH,
    STREAM,
    THREAD,
    WAKE,
    WAKE_WINDOW_NS,
    WHOLE_TRACE_LANE,
)


def launch_latency(nodes: pl.DataFrame, launch: pl.DataFrame) -> int:
    """The median time from a launch call's start to its operation's start, over the
    operations whose stream was idle when the call began."""
    start, end, lane = nodes["start"], nodes["end"], nodes["lane"]
    src, dst = launch["src"], launch["dst"]
    prev = at_least(dst - 1, 0)
    call_start, op_start = take(start, src), take(start, dst)
    idle = (take(lane, prev) != take(lane, dst)) | (take(end, prev) <= call_start)
    latency = (op_start - call_start).filter(idle & (op_start >= call_start))
    return int(latency.median() or 0) if latency.len() else 0  # type: ignore[arg-type]


def with_gaps(nodes: pl.DataFrame, edges: pl.DataFrame, latency: int) -> pl.DataFrame:
    """``measured`` (the destination's start minus the source's time), ``least`` (the gap
    a non-deciding edge keeps) and ``key`` (the start the edge alone allows)."""
    start, end = nodes["start"], nodes["end"]
    ends_then_starts = pl.concat([end, start])  # one gather, not one from each and a choice
    value = take(ends_then_starts,
        edges["src"] + edges["from_start"].fill_null(False).cast(pl.Int64) * nodes.height)
    measured = take(start, edges["dst"]) - value
    default = (pl.when(pl.col("etype") == LAUNCH).then(pl.lit(latency, pl.Int64))
               .when(pl.col("etype").is_in([CROSS, THREAD, WAKE])).then(pl.col("measured"))
               .otherwise(pl.lit(0, pl.Int64)))
    return edges.lazy().with_columns(measured.alias("measured")).with_columns(  # one query
        pl.min_horizontal(default, pl.col("measured")).alias("least")).with_columns(
        (value + pl.col("least")).alias("key")).collect(engine="in-memory")


def cross_edges(nodes: pl.DataFrame, edges: pl.DataFrame) -> pl.DataFrame:
    """A GPU operation that started later than its own edges allow, right after another
    stream's operation on the same device ended, waited on that one."""
    gpu = nodes.select("cls", "node", "start", "end", "lane").filter(pl.col("cls") == GPU)
    first = int(gpu["node"].min()) if gpu.height else 0  # type: ignore[arg-type]
    last = int(gpu["node"].max()) if gpu.height else -1  # type: ignore[arg-type]
    ops = gpu.lazy().select(  # one query from here on
        "node", "start", (pl.col("lane") // LANES_PER_DEVICE).alias("device"), "lane",
        take(_latest_key(edges, first, last - first + 1), gpu["node"] - first).alias("floor"),
        "end",
    ).with_columns(pl.col("floor").fill_null(pl.col("start") - CROSS_WINDOW_NS))
    late = ops.filter(pl.col("start") - pl.col("floor") > CROSS_TOLERANCE_NS).sort("start")
    ends = ops.select(pl.col("node").alias("src"), pl.col("device"),
                      pl.col("lane").alias("src_lane"),
                      pl.col("end").alias("src_end")).sort("src_end")
    found = asof_by(late, ends, {"device": one_value(gpu["lane"] // LANES_PER_DEVICE)},
                    left_on="start", right_on="src_end")
    return found.filter(
        (pl.col("src_lane") != pl.col("lane")) & (pl.col("src_end") > pl.col("floor"))
        & (pl.col("start") - pl.col("src_end") <= CROSS_WINDOW_NS)
    ).select("src", pl.col("node").alias("dst"), pl.lit(CROSS, pl.Int8).alias("etype"),
             pl.lit(False).alias("from_start")).cast(EDGE_SCHEMA  # type: ignore[arg-type]
                                                     ).collect(engine="in-memory")


def _latest_key(edges: pl.DataFrame, first: int, n: int) -> pl.Series:
    """Per GPU operation (of the ``n`` nodes from ``first`` on, where they are: by its number
    less ``first``) the latest start its launch, stream and event edges allow (null for none): an
    operation has at most one launch edge and one stream edge, placed by number; the few
    event edges are grouped."""
    parts = edges.lazy().select("etype", "dst", "key")
    events = parts.filter(pl.col("etype") == EVENT).group_by("dst").agg(pl.col("key").max())
    keys = [filled(None, n).scatter(part["dst"] - first,
                                                                     part["key"])
            for part in pl.collect_all([  # one call: the three parts computed together
                parts.filter(pl.col("etype") == LAUNCH), parts.filter(pl.col("etype") == STREAM),
                events], engine="in-memory")]
    return pl.select(pl.max_horizontal(keys)).to_series()


def with_wakes(nodes: pl.DataFrame, edges: pl.DataFrame, latency: int) -> pl.DataFrame:
    """A thread idle for long while another thread of its process ran, or a thread's first
    event, follows as measured that thread's last event before it: a ``wake`` edge (the idle
    gap no longer binds)."""
    cpu = nodes.select("cls", "node", "lane", "pid", "end").filter(
        (pl.col("cls") != GPU) & (pl.col("lane") != WHOLE_TRACE_LANE))
    idle, firsts = pl.collect_all([  # one query of both
        edges.lazy().select("etype", "dst", "measured").filter(
            (pl.col("etype") == THREAD) & (pl.col("measured") > WAKE_WINDOW_NS)
        ).select("dst", "measured").sort("dst"),  # one thread edge a node
        cpu.lazy().group_by("lane").agg(pl.col("node").min().alias("dst")).sort("dst")],
        engine="in-memory")
    begins = nodes.select(pl.col("node").alias("dst"), "pid", "start", "lane")
    resumed = pl.concat([  # a node's number is its row: gathered in the order of node, as
        begins.gather(idle["dst"]).with_columns(  # the join with the nodes gave them
            (pl.col("start") - idle["measured"]).alias("idle_from")),
        begins.gather(firsts["dst"]).with_columns(
            pl.lit(-(1 << 62), pl.Int64).alias("idle_from")),
    ]).lazy().sort("start")
    calls = cpu.lazy().select(pl.col("node").alias("other"), "pid",
                              pl.col("end").alias("other_end"),
                              pl.col("lane").alias("other_lane"))
    if not _rising(cpu["end"]):  # ends one after another: already in the sort's order
        calls = calls.sort("other_end")
    wakes = asof_by(resumed, calls, {"pid": one_value(cpu["pid"])}, left_on="start",
                    right_on="other_end").filter(
        (pl.col("other_lane") != pl.col("lane")) & (pl.col("other_end") > pl.col("idle_from"))
    ).select(pl.col("other").alias("src"), "dst", pl.lit(WAKE, pl.Int8).alias("etype"),
             pl.lit(False).alias("from_start")).cast(EDGE_SCHEMA  # type: ignore[arg-type]
                                                     ).collect(engine="in-memory")
    woken = (pl.col("etype") == THREAD) & pl.col("dst").is_in(wakes["dst"].implode())
    edges = edges.with_columns(
        pl.when(woken).then(pl.lit(0, pl.Int64)).otherwise(pl.col("least")).alias("least"),
        pl.when(woken).then(pl.col("key") - pl.col("least")).otherwise(pl.col("key")).alias("key"))
    return pl.concat([edges, with_gaps(nodes, wakes, latency)])


def one_value(values: pl.Series) -> bool:
    """Whether ``values`` hold one value (no null)."""
    return not values.null_count() and values.min() == values.max()


def asof_by(left: pl.LazyFrame, right: pl.LazyFrame, by: dict[str, bool], **on: str
            ) -> pl.LazyFrame:
    """``left.join_asof(right, by=list(by), strategy="backward")`` (both sorted on ``on``'s
    columns), joined without each column of ``by`` that every row of both holds one value of
    (its value in ``by``: True): the same rows, without polars' grouping of the right side by
    that column (8-10 ms less for the 300k-kernel trace's 818,000 calls or 311,000
    operations, all of one process and device)."""
    kept = [name for name, same in by.items() if not same]
    return left.join_asof(right.drop(name for name, same in by.items() if same),
                          by=kept or None, strategy="backward", check_sortedness=False,
                          **on)  # type: ignore[arg-type]


def _rising(values: pl.Series) -> bool:
    """Whether every value is greater than the one before it (none null)."""
    return not values.null_count() and bool(
        (values.slice(1) > values.slice(0, max(values.len() - 1, 0))).all())


def bind(edges: pl.DataFrame) -> pl.DataFrame:
    """The gap of every start edge: measured for the one that decided the start (the
    greatest ``key``), ``least`` for the others."""
    order = edges.select(pl.arg_sort_by(  # stable: ties in the edges' order, and quicker
        "dst", "key", descending=[False, True], maintain_order=True, multithreaded=False)
    ).to_series()
    edges = edges.select(pl.col("src", "dst", "etype", "from_start", "measured", "least")
                         .gather(order))
    deciding = (pl.col("dst") != pl.col("dst").shift(1)).fill_null(True)  # sorted: first
    return edges.select(
        "src", "dst", "etype", "from_start", pl.lit(False).alias("to_end"),
        pl.when(deciding).then(pl.col("measured")).otherwise(pl.col("least")).alias("gap"))


