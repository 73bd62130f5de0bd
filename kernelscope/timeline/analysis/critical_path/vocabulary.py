"""The graph's words: node classes, edge types and the tolerances of its inferences."""

from __future__ import annotations

import polars as pl

from kernelscope.timeline.analysis.gpu_breakdown import COMMUNICATION

CPU, MARK, GPU = 0, 1, 2
THREAD, LAUNCH, STREAM, EVENT, CROSS, SYNC, JOIN, WAKE, COLLECTIVE = range(9)
EDGE_NAMES = ("thread", "launch", "stream", "event", "cross-stream", "sync", "join", "wake",
              "collective")
CROSS_TOLERANCE_NS = 1_000
"""An operation starting this much later than its launch and stream allow waited on something."""
CROSS_WINDOW_NS = 20_000
"""… on another stream's operation that ended at most this long before it started."""
WAKE_WINDOW_NS = 50_000
"""A thread idle longer than this while another thread of its process ran waited on that one
(PyTorch's autograd thread and the main thread)."""
WHOLE_TRACE_LANE = -1
LANES_PER_DEVICE = 1 << 32
"""A GPU operation's lane is ``device * LANES_PER_DEVICE + stream``."""
RANK_BITS = 48
"""In a run's graph a rank's lanes keep their low 48 bits and the rank goes above them."""
OP_KINDS = {"kernel": 0, "memcpy": 1, "memset": 2}
"""The GPU operations' kinds, as numbered in a kernel family's key (``Graph.step_ops``)."""
EDGE_SCHEMA = {"src": pl.Int64, "dst": pl.Int64, "etype": pl.Int8, "from_start": pl.Boolean}


OWN_KIND_ORDER = ("kernel", "communication", "copy", "api", "cpu")
"""The kinds of a node's own time (:func:`own_kinds`), in the order of their codes."""


def own_kinds(names: pl.Series) -> pl.Expr:
    """The code (place in ``OWN_KIND_ORDER``, Int8) of the kind of a node's own time on a
    path: ``kernel``, ``communication`` for a kernel that moves data between GPUs
    (``gpu_breakdown.COMMUNICATION``), ``copy``, ``api``, ``cpu`` for a marker; ``names``: the
    nodes' names (the regex runs once per distinct kernel name)."""
    kernel = pl.col("kind") == "kernel"
    talking = names.to_frame("name").lazy().select(pl.col("name").drop_nulls().unique()).filter(
        pl.col("name").cast(pl.String).str.contains(COMMUNICATION.pattern)
    ).collect(engine="in-memory")["name"]  # one query
    talks = pl.col("name").is_in(talking.implode())
    code = OWN_KIND_ORDER.index
    return (pl.when(kernel & talks).then(pl.lit(code("communication"), pl.Int8))
            .when(kernel).then(pl.lit(code("kernel"), pl.Int8))
            .when(pl.col("kind").is_in(["memcpy", "memset"])).then(pl.lit(code("copy"), pl.Int8))
            .when(pl.col("kind") == "api").then(pl.lit(code("api"), pl.Int8))
            .otherwise(pl.lit(code("cpu"), pl.Int8)))
