"""The edges that bound an end: a synchronising call returns after the GPU work it waited
for; without steps, the end of the trace waits on every lane's last event.

A call synchronises when its name says so (``cudaDeviceSynchronize``,
``cudaStreamSynchronize``, ``cudaEventSynchronize``, ``cudaFree``) or it copies or sets
memory without ``Async``. It waited when a GPU operation launched no later than the call
began ended while it ran: the one that ended last before it returned decided its end, which
comes ``r`` (the measured return) after that operation's end; the call's own part is ``r``.
A device synchronise also waits on the last operation launched on every stream before it; a
stream or event synchronise that waited, on those of them that ended while it waited.
"""

from __future__ import annotations

import polars as pl

from kernelscope.timeline.analysis.critical_path.eager import filled, take
from kernelscope.timeline.analysis.critical_path.gaps import asof_by, one_value
from kernelscope.timeline.analysis.critical_path.vocabulary import (
    CPU,
    GPU,
    JOIN,
    MARK,
    SYNC,
    WHOLE_TRACE_LANE,
)

WAITS = r"Synchronize|^cudaFree$|^cuMemFree"
DEVICE_WAITS = r"^(cudaDeviceSynchronize|cuCtxSynchronize|cudaFree|cuMemFree)"
END_EDGE = {"src": pl.Int64, "dst": pl.Int64, "etype": pl.Int8, "from_start": pl.Boolean,
            "to_end": pl.Boolean, "gap": pl.Int64}


def _is_wait(name: pl.Expr) -> pl.Expr:
    blocking = name.str.contains("Memcpy|Memset") & ~name.str.contains("Async")
    return name.str.contains(WAITS) | blocking


def named(names: pl.Series, test: pl.Expr) -> pl.Expr:
    """Whether a node's ``name`` passes ``test`` (an expression of ``pl.col("name")``), the
    test run once per distinct name of ``names`` (the calls' names repeat; one query)."""
    passed = names.to_frame("name").lazy().select(pl.col("name").drop_nulls().unique()).select(
        pl.col("name").cast(pl.String)).filter(test).collect(engine="in-memory")["name"]
    return pl.col("name").is_in(passed.cast(names.dtype).implode())


def sync_edges(nodes: pl.DataFrame, launch: pl.DataFrame) -> tuple[pl.DataFrame, pl.Series]:
    """The sync edges, and per node the duration a waiting call replays (null elsewhere).
    Each frame is one query (a node's number is its row, so a column per node is added to
    the nodes as they are and filtered with them)."""
    calls = nodes.lazy().select("cls", "node", "name", "pid", "start", "end").filter(
        (pl.col("cls") == CPU) & named(nodes["name"], _is_wait(pl.col("name")))
    ).select("node", "name", "pid", "start", "end")  # one filter: only the waits are copied
    at = filled(None, nodes.height).scatter(
        launch["dst"], take(nodes["start"], launch["src"]))  # an operation has one launch
    ops = nodes.lazy().select("cls", "node", "pid", "lane", "end", at.alias("at")).filter(
        pl.col("cls") == GPU).select(pl.col("node").alias("op"), "pid", "lane",
                                      pl.col("end").alias("op_end"), "at"
                                      ).collect(engine="in-memory")
    waited = ((pl.col("op_end") > pl.col("start"))
              & (pl.col("at").is_null() | (pl.col("at") <= pl.col("start")))).fill_null(False)
    one_process = one_value(nodes["pid"])
    decided = asof_by(calls.sort("end"), ops.lazy().sort("op_end"), {"pid": one_process},
                      left_on="end", right_on="op_end"
                      ).with_columns(waited.alias("waited")).with_columns(
        pl.when(pl.col("waited")).then(pl.col("end") - pl.col("op_end"))
        .otherwise(pl.col("end") - pl.col("start")).alias("r")).collect(engine="in-memory")
    waits = decided.filter(pl.col("waited"))
    edges = [waits.select(pl.col("op").alias("src"), pl.col("node").alias("dst"),
                          pl.col("r").alias("gap")), _device_waits(decided, ops, one_process)]
    own = filled(None, nodes.height).scatter(
        waits["node"], waits["r"]).alias("own")  # a node's number is its row
    out = pl.concat(edges).lazy().unique(["src", "dst"], keep="first", maintain_order=True
                                         ).select(
        "src", "dst", pl.lit(SYNC, pl.Int8).alias("etype"), pl.lit(False).alias("from_start"),
        pl.lit(True).alias("to_end"), "gap").cast(END_EDGE)  # type: ignore[arg-type]
    return out.collect(engine="in-memory"), own


def _device_waits(decided: pl.DataFrame, ops: pl.DataFrame, one_process: bool
                  ) -> pl.DataFrame:
    """A device synchronise -> the last operation launched on every stream before it; a
    stream or event synchronise that waited -> the same, where that operation ended while
    the call waited (the trace does not say which stream or event it named: one that
    another stream waited on through an event is among them). ``one_process``: every node's
    pid is the same."""
    is_device = pl.col("name").cast(pl.String).str.contains(DEVICE_WAITS)
    device = decided.filter(is_device | pl.col("waited")).select(
        "node", "pid", "start", "end", "r", is_device.alias("device"))
    launched = ops.lazy().filter(pl.col("at").is_not_null()).select(
        "pid", "lane", pl.col("op").alias("src"), "at", "op_end")
    if not device.height or ops["at"].null_count() == ops.height:
        return pl.DataFrame(schema={"src": pl.Int64, "dst": pl.Int64, "gap": pl.Int64})
    lanes = launched.select("pid", "lane").unique(maintain_order=True)  # the same order in
    probes = device.lazy().join(lanes, on="pid", maintain_order="left_right").with_columns(
        (pl.col("start") - 1).alias("probe")).sort("probe", maintain_order=True)  # every run
    found = asof_by(probes, launched.sort("at"), {"pid": one_process, "lane": False},
                    left_on="probe", right_on="at").drop_nulls("src")
    found = found.filter(pl.col("device") | (pl.col("op_end") > pl.col("start")))
    return found.select("src", pl.col("node").alias("dst"),
                        pl.min_horizontal("r", pl.col("end") - pl.col("op_end")).alias("gap")
                        ).collect(engine="in-memory")


def join_edges(nodes: pl.DataFrame) -> pl.DataFrame:
    """Without steps: every lane's last event -> the end of the trace."""
    finish = nodes.filter((pl.col("cls") == MARK) & (pl.col("lane") == WHOLE_TRACE_LANE))
    if not finish.height:
        return pl.DataFrame(schema=END_EDGE)
    last = nodes.select("lane", "node", "end").filter(pl.col("lane") != WHOLE_TRACE_LANE
                                                      ).group_by("lane", maintain_order=True).agg(
        pl.col("node").sort_by("end").last().alias("src"))  # in order: ties decided alike
    return last.select("src", pl.lit(int(finish["node"].item(0))).alias("dst"),
                       pl.lit(JOIN, pl.Int8).alias("etype"), pl.lit(False).alias("from_start"),
                       pl.lit(False).alias("to_end"), pl.lit(0).alias("gap")
                       ).cast(END_EDGE)  # type: ignore[arg-type]


def step_nodes(nodes: pl.DataFrame, steps: pl.DataFrame) -> pl.DataFrame:
    """``steps`` with their marker nodes: ``begin`` and ``finish``."""
    marks = nodes.filter(pl.col("cls") == MARK)
    begin = marks.filter(pl.col("kind") == "step begin").sort("start")["node"]
    finish = marks.filter(pl.col("kind") == "step end").sort("start")["node"]
    return steps.sort("start").with_columns(begin.alias("begin"), finish.alias("finish"))
