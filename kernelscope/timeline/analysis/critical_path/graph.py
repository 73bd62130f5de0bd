"""The dependency graph of a timeline: which event waits on which.

Nodes are the outermost CUDA API calls of every CPU thread, the GPU operations (kernels,
copies, memsets) and two markers per step (its begin and end on the step's thread). Edges
say "this cannot start (or, for a synchronising call, end) before that":

- ``thread``: a thread's calls in order, the CPU time between two calls as measured;
- ``launch``: a launching call's start to its operation's start (correlation ids);
- ``stream``: a stream's operations in order;
- ``event``: an event recorded after the last launch before ``cudaEventRecord`` and waited
  on by the first launch after ``cudaStreamWaitEvent`` of the same thread to the stream that
  waits (named by the trace's synchronisation record; else to another stream);
- ``cross-stream``: an operation that started later than its launch and its stream allow,
  right after an operation of another stream ended: a wait the trace does not name;
- ``sync``: a synchronising call (device, stream or event synchronise, a blocking copy)
  ends after the GPU work it waited for: the operation that ended last before it returned,
  and, for a device synchronise, the last one launched on every stream;
- ``wake``: a thread idle for long while another thread of its process ran resumes as
  measured after that thread's last event (PyTorch's autograd thread and the main thread);
- ``join``: without steps, the end of the trace waits on the last event of every lane.

Every edge has a gap: the edge that decided a start (the latest of its constraints) keeps the
measured gap, the others their least (0; a launch the trace's typical launch latency).
Replaying the measured durations therefore gives back every measured time.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import polars as pl

from kernelscope.timeline.analysis.critical_path.eager import filled, take
from kernelscope.timeline.analysis.critical_path.gaps import (
    bind,
    cross_edges,
    launch_latency,
    with_gaps,
    with_wakes,
)
from kernelscope.timeline.analysis.critical_path.names import Names, names_of
from kernelscope.timeline.analysis.critical_path.orders import (
    in_call_order,
    merged,
)
from kernelscope.timeline.analysis.critical_path.overlap import alongside
from kernelscope.timeline.analysis.critical_path.steps import cpu_ranges
from kernelscope.timeline.analysis.critical_path.sync_edges import (
    join_edges,
    named,
    step_nodes,
    sync_edges,
)
from kernelscope.timeline.analysis.critical_path.vocabulary import (
    CPU,
    EDGE_SCHEMA,
    EVENT,
    GPU,
    LANES_PER_DEVICE,
    LAUNCH,
    MARK,
    OP_KINDS,
    STREAM,
    THREAD,
    WHOLE_TRACE_LANE,
    own_kinds,
)
from kernelscope.timeline.analysis.steps import STEP_SCHEMA, report_steps
from kernelscope.timeline.model.model import TimelineReport, pid_of

NODE_SCHEMA = {"cls": pl.Int8, "kind": pl.Categorical, "name": pl.Categorical, "start": pl.Int64,
               "end": pl.Int64, "lane": pl.Int64, "pid": pl.Int64}
WITH_IDS = {**NODE_SCHEMA, "row": pl.Int64, "corr": pl.Int64}
"""Beside a call's node columns its row in the API table and its correlation id, beside an
operation's its correlation id twice: read by the launch and event edges from the frames the
nodes are gathered from, not gathered into the nodes."""


SYNC_BESIDE_NODES = 500_000
"""The fewest nodes for the sync edges to be found on a thread of their own while the other
edges are made (``overlap.alongside``): polars computes both at once on two cores (0.03-0.06 s
of wall clock saved on the 300k-kernel trace's 1.13 million nodes), but on the 40,000-kernel
trace's 120,000 the thread cost 5 ms more than it saved."""


@dataclass(eq=False)
class Graph:
    """A timeline's dependency graph.

    - ``nodes``: node (its index), cls (CPU, MARK, GPU), kind (``api``, ``kernel``,
      ``memcpy``, ``memset``, ``step begin``, ``step end``), name, start, end, dur (the
      duration replayed: a waiting synchronise's own part is its return after the wait),
      lane (thread id, or ``device << 32 | stream``), pid;
    - ``edges``: src, dst, etype, from_start (the edge leaves the source's start: a
      launch), to_end (it bounds the destination's end: a sync), gap (ns);
    - ``steps``: step, name, global_tid, start, end, begin and finish (their marker nodes).
    """

    nodes: pl.DataFrame
    edges: pl.DataFrame
    steps: pl.DataFrame
    ranges: pl.DataFrame
    launch_latency_ns: int

    @cached_property
    def own_kind_codes(self) -> pl.Series:
        """Per node the code of its own time's kind (its place in ``vocabulary.OWN_KIND_ORDER``)."""
        codes: pl.Series = self.nodes["own_kind"].cast(pl.Int64)
        return codes

    @cached_property
    def step_ops(self) -> pl.DataFrame:
        """The GPU operations that start inside a step's window: node, family (one number per
        name and kind, ``family_of``), gpu_ns (every replay's kernel families count them; the
        names are looked up by node once the families are summed)."""
        windows = self.steps.lazy().select(pl.col("start").alias("w_start"),
                                           pl.col("end").alias("w_end")).sort("w_start")
        gpu = self.nodes.lazy().select("cls", "node", "start", "end").filter(
            pl.col("cls") == GPU).select(
            "node", "start", (pl.col("end") - pl.col("start")).alias("gpu_ns"))
        ops = gpu.sort("start").join_asof(  # one query
            windows, left_on="start", right_on="w_start", strategy="backward",
            check_sortedness=False).filter(pl.col("start") < pl.col("w_end")
                                           ).collect(engine="in-memory")
        node = ops["node"]
        kind = take(self.nodes["kind"], node).replace_strict(
            OP_KINDS, default=len(OP_KINDS), return_dtype=pl.Int64)
        family = (take(self.names.node, node) * 8 + kind * 2
                  + take(self.nodes["name"], node).is_null().cast(pl.Int64))
        return pl.DataFrame([node, family.alias("family"), ops["gpu_ns"]])

    @cached_property
    def names(self) -> Names:
        """The name table of the paths' segments (``names.py``)."""
        return names_of(self.nodes, self.ranges, self.steps)


def build_graph(report: TimelineReport, extra_ranges: pl.DataFrame | None = None) -> Graph:
    """The dependency graph of ``report`` (``extra_ranges``: CPU ranges beyond NVTX, e.g.
    Kineto's ``cpu_op``s: start, end, global_tid, name)."""
    ranges = cpu_ranges(report, extra_ranges)
    steps = report_steps(report, hold_work=False)
    calls, markers, outer, steps = _cpu_nodes(report, steps)
    ops = _gpu_nodes(report)
    n_cpu = calls.height + markers.height
    events, call_rows, op_ids = _event_calls(calls, report.sync), calls["row"], ops.select(
        "pid", "row")  # what the edges read of the calls and operations beside their nodes
    nodes = merged(calls.select(*NODE_SCHEMA), markers, ops.select(*NODE_SCHEMA))
    nodes.insert_column(0, pl.int_range(nodes.height, eager=True, dtype=pl.Int64).alias("node"))
    del calls, markers, ops  # copied into the nodes: freed for what follows
    launch = _launch_edges(nodes, call_rows, op_ids, outer, n_cpu)
    del outer, call_rows, op_ids  # a row per API call (20 MB on the 300k-kernel trace)
    with alongside(lambda: sync_edges(nodes, launch),  # two polars parts at once
                in_line=nodes.height < SYNC_BESIDE_NODES) as synced:
        edges = pl.concat([_chain_edges(nodes.slice(0, n_cpu), THREAD),
                           _chain_edges(nodes.slice(n_cpu), STREAM), launch,
                           _event_edges(nodes, launch, events)])
        latency = launch_latency(nodes, launch)
        edges = with_gaps(nodes, edges, latency)
        edges = pl.concat([edges, with_gaps(nodes, cross_edges(nodes, edges), latency)])
        edges = with_wakes(nodes, edges, latency)
        edges = bind(edges)
        syncs, own = synced.result()
    nodes = nodes.with_columns(
        pl.coalesce(own, pl.col("end") - pl.col("start")).alias("dur"))
    edges = pl.concat([edges, syncs, join_edges(nodes)], how="diagonal_relaxed")
    steps = step_nodes(nodes, steps)
    kernels = nodes["name"].filter(nodes["kind"] == "kernel")
    nodes = nodes.with_columns(own_kinds(kernels).alias("own_kind"))
    return Graph(nodes, edges.select(
        "src", "dst", "etype", "from_start", pl.col("to_end").fill_null(False), "gap"),
        steps, ranges, latency)


def _cpu_nodes(report: TimelineReport, steps: pl.DataFrame
               ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The outermost API calls of every thread in thread order and the step markers (to be
    put among them, ``orders.merged``); every call's outermost call (pid, correlation_id,
    row); the steps (the whole trace as one where ``steps`` is empty)."""
    calls = report.cuda_api.select(
        "start", "end", "global_tid", "correlation_id", pl.col("api").cast(pl.Categorical))
    if not in_call_order(calls):
        calls = calls.sort("global_tid", "start", pl.col("end"), descending=[False, False, True])
    tids = calls["global_tid"]
    one_thread = not tids.null_count() and (tids.is_empty() or tids[0] == tids[-1])
    reach = pl.col("end").cum_max().shift(1)  # sorted by thread: one group where one thread
    reach = reach if one_thread else reach.over("global_tid")
    ranked = calls.lazy().with_row_index("row").with_columns(
        pl.col("row").cast(pl.Int64), (pl.col("start") < reach).fill_null(False).alias("nested"))
    outer, nodes = pl.collect_all([  # one query: the rows' nesting found once for both
        ranked.select(pid_of(pl.col("global_tid")).alias("pid"), "correlation_id",
                      pl.when(~pl.col("nested")).then(pl.col("row")).forward_fill().alias("row")),
        ranked.filter(~pl.col("nested")).select(  # the columns read, then the rows
            pl.lit(CPU, pl.Int8).alias("cls"), pl.lit("api").alias("kind"),
            pl.col("api").alias("name"), "start", "end", pl.col("global_tid").alias("lane"),
            pid_of(pl.col("global_tid")).alias("pid"), "row",
            pl.col("correlation_id").alias("corr"))],
        engine="in-memory")
    if not steps.height:
        steps = _whole_trace(report, nodes)
    marks = [steps.lazy().select(
        pl.lit(MARK, pl.Int8).alias("cls"), pl.lit(kind).alias("kind"), "name",
        pl.col(at).alias("start"), pl.col(at).alias("end"), lane,
        pid_of(pl.col("global_tid")).alias("pid"), pl.lit(prio, pl.Int8).alias("prio"))
        for kind, at, prio, lane in (
            ("step begin", "start", 1, pl.col("global_tid").alias("lane")),
            ("step end", "end", 0, pl.when(pl.col("name").is_null()).then(WHOLE_TRACE_LANE)
             .otherwise(pl.col("global_tid")).alias("lane")))]
    markers = pl.concat([m.cast(NODE_SCHEMA) for m in marks]  # type: ignore[arg-type]
                        ).collect(engine="in-memory")  # one query
    return nodes.cast(WITH_IDS), markers, outer, steps  # type: ignore[arg-type]


def _whole_trace(report: TimelineReport, calls: pl.DataFrame) -> pl.DataFrame:
    """One step over the whole trace, on the thread with the most calls (name null)."""
    frames = (calls, report.kernels, report.memcpy, report.memset)  # not gpu_ops: no sort
    starts = [int(x) for x in (f["start"].min() for f in frames) if x is not None]  # type: ignore[arg-type]
    ends = [int(x) for x in (f["end"].max() for f in frames) if x is not None]  # type: ignore[arg-type]
    tid = (calls["lane"].mode().sort().item(0) if calls.height else WHOLE_TRACE_LANE)
    if not starts:
        return pl.DataFrame(schema=STEP_SCHEMA)
    return pl.DataFrame({"step": [0], "name": [None], "global_tid": [tid],
                         "start": [min(starts)], "end": [max(ends)]}, schema=STEP_SCHEMA)


def _gpu_nodes(report: TimelineReport) -> pl.DataFrame:
    cols = ["start", "end", "device_id", "stream_id", "global_pid", "correlation_id"]
    parts = [frame.lazy().select(*cols, pl.col(label).cast(pl.Categorical).alias("name"),
                                 pl.lit(kind).alias("kind"))
             for kind, frame, label in (("kernel", report.kernels, "name"),
                                        ("memcpy", report.memcpy, "operation"),
                                        ("memset", report.memset, "operation"))]
    ops = pl.concat(parts).sort(  # stable: each table comes in order of start (fast)
        "device_id", "stream_id", "start", maintain_order=True, multithreaded=False)
    return ops.select(
        pl.lit(GPU, pl.Int8).alias("cls"), "kind", "name", "start", "end",
        (pl.col("device_id") * LANES_PER_DEVICE + pl.col("stream_id")).alias("lane"),
        pid_of(pl.col("global_pid")).alias("pid"),
        pl.col("correlation_id").alias("row"), pl.col("correlation_id").alias("corr"),
    ).cast(WITH_IDS).collect(engine="in-memory")  # type: ignore[arg-type]  # one query


def _chain_edges(part: pl.DataFrame, etype: int) -> pl.DataFrame:
    """Each node after the previous one of its lane (the whole-trace end is in none)."""
    return part.lazy().filter(pl.col("lane") != WHOLE_TRACE_LANE).select(  # one query
        pl.col("node").shift(1).alias("src"), pl.col("node").alias("dst"),
        (pl.col("lane") == pl.col("lane").shift(1)).alias("same"),
    ).filter(pl.col("same").fill_null(False)).select(
        "src", "dst", pl.lit(etype, pl.Int8).alias("etype"),
        pl.lit(False).alias("from_start")).cast(EDGE_SCHEMA  # type: ignore[arg-type]
                                                ).collect(engine="in-memory")


def _launch_edges(nodes: pl.DataFrame, call_rows: pl.Series, ops: pl.DataFrame,
                  outer: pl.DataFrame, n_cpu: int) -> pl.DataFrame:
    """Launching call (start) -> its GPU operation, through correlation ids (joined on one
    Int64 key where the ids fit, ``_call_keys``: 2.5 times quicker than on two columns; merged
    in order of key where that gives the same rows, ``_looked_up``), and the call's outermost
    row to its node by a lookup table (a gather, not a join). ``call_rows``: the calls' rows
    in the API table, in their order; ``ops``: the operations' pid and correlation id (row),
    in the order of their nodes, which come after the ``n_cpu`` CPU nodes."""
    calls = pl.DataFrame([call_rows.alias("call_row"), (nodes["cls"].slice(0, n_cpu) == CPU)
                          .arg_true().cast(pl.Int64).alias("src")])  # the calls' nodes, in order
    ops = ops.select("pid", pl.col("row").alias("correlation_id"), pl.int_range(
        n_cpu, n_cpu + ops.height, dtype=pl.Int64).alias("dst"))
    on = ["pid", "correlation_id"]
    if _keyable(ops) and _keyable(outer):
        ops, outer, on = _call_keys(ops, "dst"), _call_keys(outer, "row"), ["key"]
    linked = _looked_up(ops, outer) if on == ["key"] else None
    if linked is not None:  # in order of key, each an operation's: a repeat is the next row
        keys = linked["key"]
        repeated = bool((keys.slice(1) == keys.slice(0, max(keys.len() - 1, 0))).any())
    else:
        linked = ops.join(outer, on=on)
        repeated = linked["dst"].n_unique() != linked.height
    if repeated:  # a correlation id on several calls: one
        linked = ops.join(outer.unique(on), on=on)
    node_of_row = filled(-1, max(outer.height, 1)).scatter(
        calls["call_row"], calls["src"])  # every call's row is a row of ``outer``
    src = take(node_of_row, linked["row"])
    return pl.DataFrame([src.alias("src"), linked["dst"]]).filter(pl.col("src") >= 0).select(
        "src", "dst", pl.lit(LAUNCH, pl.Int8).alias("etype"),
        pl.lit(True).alias("from_start")).cast(EDGE_SCHEMA)  # type: ignore[arg-type]


def _looked_up(ops: pl.DataFrame, outer: pl.DataFrame) -> pl.DataFrame | None:
    """``ops.join(outer, on="key")`` (``_call_keys``' frames) by a merge of the two in order of
    key (an as-of join, then the keys that are equal; ~20 ms quicker than the hash join on the
    300k-kernel trace), where ``outer`` has more rows and its keys come in order, and no key
    is null or, in ``ops``, twice. polars probes the larger side and keeps its order, so the
    rows come in ``outer``'s order, as the join gives them. None where it does not apply."""
    ops = ops.sort("key").rename({"key": "op_key"})
    keys, probes = ops["op_key"], outer["key"]
    if (not keys.len() or outer.height <= ops.height or keys.null_count()
            or probes.null_count() or not probes.is_sorted()
            or (keys.slice(1) == keys.slice(0, keys.len() - 1)).any()):
        return None
    merged = outer.join_asof(ops, left_on="key", right_on="op_key", strategy="backward",
                             check_sortedness=False)
    return merged.filter(pl.col("op_key") == pl.col("key")).select("key", "dst", "row")


KEY_ID_BITS = 38
"""A correlation id below ``1 << KEY_ID_BITS`` shares one Int64 key with its process id (below
``1 << 24``, ``pid_of``)."""


def _keyable(frame: pl.DataFrame) -> bool:
    """Whether every process id and correlation id of ``frame`` fits ``_call_keys``'s key."""
    return all(_within_bits(frame[name], bits)
               for name, bits in (("pid", 24), ("correlation_id", KEY_ID_BITS)))


def _within_bits(ids: pl.Series, bits: int) -> bool:
    low, high = ids.min(), ids.max()
    return low is None or (int(low) >= 0 and int(high) < (1 << bits))  # type: ignore[arg-type]


def _call_keys(frame: pl.DataFrame, kept: str) -> pl.DataFrame:
    """``frame`` (pid, correlation_id, ``kept``) as key (both in one Int64: a null where
    either is), ``kept``."""
    return frame.select(
        (pl.col("pid") * (1 << KEY_ID_BITS) + pl.col("correlation_id")).alias("key"), kept)


def _launches(nodes: pl.DataFrame, launch: pl.DataFrame) -> pl.DataFrame:
    """Per launched operation: the launching thread, the call's start, the op and its lane."""
    calls = nodes.select(pl.col("node").alias("src"), pl.col("lane").alias("tid"),
                         pl.col("start").alias("at"))
    ops = nodes.select(pl.col("node").alias("dst"), pl.col("lane").alias("op_lane"))
    return launch.join(calls, on="src").join(ops, on="dst").sort("at")


def _event_calls(calls: pl.DataFrame, sync: pl.DataFrame
                 ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ``cudaEventRecord`` calls (tid, rec_at: their start) and the
    ``cudaStreamWaitEvent`` calls (tid, start, end, pid, corr and wait_lane: the stream that
    waits, where the trace's synchronisation record of the wait names it) of ``calls`` (the
    API calls' node columns and correlation ids, in order)."""
    calls = calls.select("name", "lane", "start", "end", "pid", "corr")  # no copy

    def cpu_named(pattern: str) -> pl.DataFrame:  # one filter: only those calls copied
        return calls.filter(named(calls["name"], pl.col("name").str.contains(pattern)))

    records = cpu_named("EventRecord").select(pl.col("lane").alias("tid"),
                                              pl.col("start").alias("rec_at")).sort("rec_at")
    waits = cpu_named("StreamWaitEvent").select(
        pl.col("lane").alias("tid"), "start", "end", "pid", "corr").join(
        _waiting_lanes(sync), on=["pid", "corr"], how="left").sort("start")
    return records, waits


def _event_edges(nodes: pl.DataFrame, launch: pl.DataFrame,
                 calls: tuple[pl.DataFrame, pl.DataFrame]) -> pl.DataFrame:
    """``cudaEventRecord`` … ``cudaStreamWaitEvent`` of one thread (``calls``: those two,
    ``_event_calls``): the last operation launched before the record -> the first launched
    after the wait on the stream that waits (named by the trace's synchronisation record of
    the wait), or, where no record names it, the first launched after the wait on another
    stream."""
    records, waits = calls
    if not records.height or not waits.height:
        return pl.DataFrame(schema=EDGE_SCHEMA)
    launches = _launches(nodes, launch).select("tid", "at", "dst", "op_lane")
    paired = waits.join_asof(records, left_on="start", right_on="rec_at", by="tid",
                             strategy="backward", check_sortedness=False).drop_nulls("rec_at")
    before = launches.rename({"dst": "src", "op_lane": "src_lane", "at": "src_at"})
    paired = paired.with_columns((pl.col("rec_at") - 1).alias("probe")).sort("probe").join_asof(
        before, left_on="probe", right_on="src_at", by="tid", strategy="backward",
        check_sortedness=False)
    paired = pl.concat([
        paired.filter(pl.col("wait_lane").is_not_null()).sort("end").join_asof(
            launches, left_on="end", right_on="at", by_left=["tid", "wait_lane"],
            by_right=["tid", "op_lane"], strategy="forward", check_sortedness=False
        ).with_columns(pl.col("wait_lane").alias("op_lane")),
        paired.filter(pl.col("wait_lane").is_null()).sort("end").join_asof(
            launches, left_on="end", right_on="at", by="tid", strategy="forward",
            check_sortedness=False)], how="diagonal_relaxed")
    return paired.filter(pl.col("src").is_not_null() & pl.col("dst").is_not_null()
                         & (pl.col("src_lane") != pl.col("op_lane"))).select(
        "src", "dst", pl.lit(EVENT, pl.Int8).alias("etype"),
        pl.lit(False).alias("from_start")).cast(EDGE_SCHEMA)  # type: ignore[arg-type]


def _waiting_lanes(sync: pl.DataFrame) -> pl.DataFrame:
    """Per stream-wait record (pid, corr: the wait call's correlation id) the lane of the
    stream that waits."""
    return sync.filter((pl.col("sync_type") == 2) & (pl.col("stream_id") >= 0)).select(
        pid_of(pl.col("global_pid")).alias("pid"), pl.col("correlation_id").alias("corr"),
        (pl.col("device_id") * LANES_PER_DEVICE + pl.col("stream_id")).alias("wait_lane"),
    ).unique(["pid", "corr"])
