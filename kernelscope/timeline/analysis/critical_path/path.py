"""The critical path of every step: from the step's end back to its begin, through what
decided each start and end, cut into segments that add up to the step's time; its
breakdown by kind; and per kernel family the time on the path and the slack beside it.

Kinds of segment: ``kernel`` and ``communication`` (a kernel's time; NCCL's, DeepEP's and
all-reduce kernels are communication), ``copy`` (memcpy, memset), ``api`` (a CUDA call's CPU
time), ``cpu`` (CPU time between calls, named by the innermost CPU range around it),
``launch`` (from a launch call's start to its kernel's start), ``sync`` (a synchronising
call returning after the GPU work it waited for), ``stream wait`` (an operation held by
another stream's), ``gpu gap`` (a stream idle between operations that follow each other),
``thread wait`` (a thread resuming after another thread's call), ``untraced`` (before a
lane's first event, which waited on nothing the trace holds).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from kernelscope.timeline.analysis.critical_path.eager import at_least, filled, take, where
from kernelscope.timeline.analysis.critical_path.graph import Graph
from kernelscope.timeline.analysis.critical_path.ints import column
from kernelscope.timeline.analysis.critical_path.names import (
    Names,
    gap_middles,
    innermost_rows,
    thread_gaps,
)
from kernelscope.timeline.analysis.critical_path.run_sums import (
    RUN_SCHEMA,
    RunKeys,
    run_keys,
    summed_runs,
)
from kernelscope.timeline.analysis.critical_path.schedule import INF, Plan, Replay
from kernelscope.timeline.analysis.critical_path.vocabulary import (
    COLLECTIVE,
    CROSS,
    EVENT,
    JOIN,
    LAUNCH,
    MARK,
    OWN_KIND_ORDER,
    STREAM,
    SYNC,
    THREAD,
    WAKE,
)

EDGE_KIND = {THREAD: "cpu", LAUNCH: "launch", STREAM: "gpu gap", EVENT: "stream wait",
             CROSS: "stream wait", SYNC: "sync", JOIN: "gpu gap", WAKE: "thread wait",
             COLLECTIVE: "communication"}
EDGE_KINDS = [EDGE_KIND[etype] for etype in range(len(EDGE_KIND))]
SEGMENT_KINDS = pl.Series("kind", [*OWN_KIND_ORDER, "untraced", "sync", *EDGE_KINDS],
                          dtype=pl.String)
"""Every segment's kind by its code: own kinds, ``untraced``, ``sync``, then per edge type."""
UNTRACED_CODE, SYNC_CODE = len(OWN_KIND_ORDER), len(OWN_KIND_ORDER) + 1
EDGE_CODE_BASE = len(OWN_KIND_ORDER) + 2
THREAD_CODE = EDGE_CODE_BASE + THREAD
CODED_SCHEMA = {"step": pl.Int64, "code": pl.Int64, "ns": pl.Int64, "node": pl.Int64,
                "edge": pl.Int64, "name_id": pl.Int64}
"""``PathWalker.coded``'s columns."""
COMMUNICATION_CODE = OWN_KIND_ORDER.index("communication")
LAUNCH_CODE = EDGE_CODE_BASE + LAUNCH
CPU_CODES = [code for code, kind in enumerate(SEGMENT_KINDS) if kind == "cpu"]

class PathWalker:
    """Walks one replay's critical paths into columns: per segment its step, node, edge
    (a row of ``Graph.edges``; -1 for the node's own time, -2 for the time before a lane's
    first event) and ns."""

    def __init__(self, graph: Graph, plan: Plan, run: Replay, dur: Sequence[int]) -> None:
        self.graph, self.plan, self.run, self.dur = graph, plan, run, dur
        lists = plan.walk_lists(graph.edges)
        self.src, self.from_start = lists.src, lists.from_start
        self.member, self.head, self.member_pos = lists.member, lists.head, lists.member_pos
        self.steps: list[int] = []
        self.nodes: list[int] = []
        self.edges: list[int] = []
        self.ns: list[int] = []
        self.runs: list[tuple[int, int, int]] = []
        """(step, lo, hi): the path runs through the chain's calls lo..hi (``_chain``)."""

    def walk(self, step: int, begin: int, finish: int) -> None:
        """Add the segments of the path from ``finish`` back to ``begin`` (newest first)."""
        run, plan, src, from_start = self.run, self.plan, self.src, self.from_start
        nodes, edges, ns = self.nodes, self.edges, self.ns
        first = len(ns)
        floor = run.start[begin]
        node, at_end, now = finish, False, run.start[finish]
        while now > floor:
            if at_end:
                by = run.end_by[node]
                nodes.append(node)
                if by >= 0:
                    edges.append(plan.e_edge[by])
                    ns.append(plan.e_gap[by])
                    node = src[plan.e_edge[by]]
                    at_end = not from_start[plan.e_edge[by]]  # a collective: another's start
                    now = run.end[node] if at_end else run.start[node]
                else:
                    edges.append(-1)
                    ns.append(self.dur[node])
                    at_end = False
                    now = run.start[node]
                continue
            by = run.start_by[node]
            if node == begin:
                break
            if self.member[node]:
                node, now = self._chain(step, node, begin, floor)
                if node == begin or now <= floor:
                    break
                continue
            nodes.append(node)
            if by < 0:  # a lane's first event: what held it is not in the trace
                edges.append(-2)
                ns.append(now - floor)
                now = floor
                break
            edge = plan.s_edge[by]
            edges.append(edge)
            node = src[edge]
            at_end = not from_start[edge]
            before = run.end[node] if at_end else run.start[node]
            ns.append(now - before)
            now = before
        if now < floor and len(ns) > first:
            ns[-1] -= floor - now
        self.steps.extend([step] * (len(ns) - first))

    def _chain(self, step: int, node: int, begin: int, floor: int) -> tuple[int, int]:
        """Through the chain that ``node`` ends, back to its head, the step's begin, or the
        call where the step began; the node reached and its time."""
        run, head = self.run, self.head[node]
        if self.head[begin] == head and head <= begin <= node:
            low = begin
        elif run.start[head] >= floor:
            low = head
        else:  # the step began inside the chain: its first call at or after the begin
            low, high = head + 1, node
            while low < high:
                mid = (low + high) // 2
                low, high = (low, mid) if run.start[mid] >= floor else (mid + 1, high)
        self.runs.append((step, low, node))
        if low in (head, begin):
            return low, run.start[low]
        before = low - 1
        gap = self.plan.s_edge[self.member_pos[low]]
        if run.end[before] <= floor:
            self.nodes.append(low)
            self.edges.append(gap)
            self.ns.append(run.start[low] - floor)
        else:
            self.nodes.extend((low, before))
            self.edges.extend((gap, -1))
            self.ns.extend((run.start[low] - run.end[before], run.end[before] - floor))
        return before, floor  # ``walk`` gives these segments their step

    def own_time(self) -> pl.DataFrame:
        """node, path_ns: the time of each node's own on the walked paths, but for the
        chains' calls (``_runs``: CPU calls only, never a GPU operation)."""
        own = pl.DataFrame({"node": self.nodes, "edge": self.edges, "ns": self.ns},
                           schema={"node": pl.Int64, "edge": pl.Int64, "ns": pl.Int64})
        return own.filter(pl.col("edge") == -1).group_by("node").agg(
            pl.col("ns").sum().alias("path_ns"))

    def _coded_runs(self) -> pl.DataFrame:
        """The chains' segments, as ``coded``: per call after the first of a run, the time
        from the call before it (its thread edge: CPU time, named by its range), and the call
        before it's own time (by its own kind and name)."""
        if not self.runs:
            return pl.DataFrame(schema=CODED_SCHEMA)
        calls = pl.DataFrame(self.runs, schema=RUN_SCHEMA, orient="row").select(
            "step", pl.int_ranges(pl.col("lo") + 1, pl.col("hi") + 1).alias("m")
        ).explode("m").drop_nulls("m")
        gaps, owns, marker = self._run_parts(calls["m"])
        step = calls["step"]
        return pl.concat([
            gaps.select(step, "code", "ns", "node", "edge", "name_id"),
            owns.select(step, "code", "ns", "node", filled(-1, owns.height).alias("edge"),
                        "name_id").filter(~marker)])

    def _run_parts(self, m: pl.Series) -> tuple[pl.DataFrame, pl.DataFrame, pl.Series]:
        """Per call ``m`` of a run (not its first): the gap before it (code, ns, node, edge,
        name_id) and the call before it's own time (code, ns, node, name_id), and whether
        that call is a marker (the step's begin: no time)."""
        before = m - 1
        start, end = self.run.series()
        gaps = pl.DataFrame({
            "code": filled(THREAD_CODE, len(m)),
            "ns": take(start, m) - take(end, before), "node": m,
            "edge": take(self.plan.columns[3], take(self.plan.chains.member_pos, m))})
        owns = pl.DataFrame({
            "code": take(self.graph.own_kind_codes, before),
            "ns": take(self._durations(), before), "node": before,
            "name_id": take(self.graph.names.node, before)})
        marker = take(self.graph.nodes["cls"], before) == MARK
        return gaps.with_columns(self._cpu_names(gaps).alias("name_id")), owns, marker

    def sums(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The walked segments summed per key (``name_id`` times the number of codes plus
        ``code``): key, ns, count (of the segments that took time); and per step: step, ns.
        The chains' calls are never expanded per run (``coded`` is): each call of the graph
        that a run passes is summed once, times the number of runs that pass it, and a run's
        time is read from prefix sums over the calls."""
        walked = self._walked()
        keys = [_summed(walked)]
        steps = [walked.select("step", "ns")]
        if self.runs:
            run_keys, run_steps = self._run_sums()
            keys += run_keys
            steps.append(run_steps)
        return pl.concat(keys), pl.concat(steps)

    def _run_sums(self) -> tuple[list[pl.DataFrame], pl.DataFrame]:
        """The chains' calls summed per key (as ``sums``, gaps and calls' own apart) and per
        run: step, ns (``run_sums.py``)."""
        start, end = self.run.series()
        measured = self.run.start is self.plan.start  # ``measured_replay``'s: gaps as measured
        return summed_runs(self._run_keys(), self.runs, None if measured else start, end,
                           self._durations(), self._cpu_names, len(SEGMENT_KINDS), THREAD_CODE)

    def _run_keys(self) -> RunKeys:
        """The plan's ``RunKeys`` (made once)."""
        plan, graph = self.plan, self.graph
        if plan.run_keys is None:
            plan.run_keys = run_keys(
                plan.chains.member, plan.chains.member_pos, plan.columns[3],
                lambda src, dst: thread_gaps(graph.names, graph.nodes, src, dst),
                graph.names.node, graph.own_kind_codes, graph.nodes["cls"] == MARK,
                len(SEGMENT_KINDS), THREAD_CODE)
        return plan.run_keys

    def _durations(self) -> pl.Series:
        """``dur`` as a series (the plan's own when it is the measured one)."""
        if self.dur is self.plan.dur:
            return self.plan.columns[0]
        return column(self.dur)

    def _measured_middle(self, node: pl.Series, edge: pl.Series, ns: pl.Series) -> pl.Series:
        """Where a CPU segment (the time before ``node`` on its thread edge ``edge``) lies in
        the trace: the middle of the last ``ns`` of the gap as measured (at most the whole
        gap). A predicted path is named by the ranges of the trace, not by where the replay
        moved the gap."""
        start = take(self.graph.nodes["start"].cast(pl.Int64), node)
        gap = start - take(self.graph.nodes["end"].cast(pl.Int64),
                           take(self.graph.edges["src"], edge))
        at: pl.Series = (start - where(ns <= gap, ns, gap) // 2).alias("at")
        return at

    def _cpu_names(self, cpu: pl.DataFrame) -> pl.Series:
        """The name ids of CPU segments (node, edge, ns): a whole measured gap's by the range
        around its middle (``names.gap_middles``); the others' looked up where the part
        lies."""
        edges, nodes, names = self.graph.edges, self.graph.nodes, self.graph.names
        edge = at_least(cpu["edge"], 0)
        middles = gap_middles(nodes, take(edges["src"], edge), take(edges["dst"], edge))
        thread = (cpu["edge"] >= 0) & (take(edges["etype"], edge) == THREAD)
        whole = (thread & (cpu["ns"] >= middles["gap"])).fill_null(False)
        ids = filled(None, cpu.height)
        if whole.any():
            ids = ids.scatter(whole.arg_true(), innermost_rows(
                names, middles.filter(whole).select("global_tid", "at")))
        part = cpu.filter(~whole)
        if part.height:
            at = part.select(take(nodes["lane"], part["node"]).alias("global_tid"),
                             self._measured_middle(part["node"], part["edge"], part["ns"]))
            ids = ids.scatter((~whole).arg_true(), innermost_rows(names, at))
        return ids

    def coded(self) -> pl.DataFrame:
        """The walked segments by number: step, code (of ``SEGMENT_KINDS``), ns, node, edge,
        name_id (of ``Graph.names.table``)."""
        return pl.concat([self._walked(), self._coded_runs()])

    def _walked(self) -> pl.DataFrame:
        """``coded`` but for the chains' calls."""
        walked = pl.DataFrame(
            {"step": self.steps, "node": self.nodes, "edge": self.edges, "ns": self.ns},
            schema={"step": pl.Int64, "node": pl.Int64, "edge": pl.Int64, "ns": pl.Int64})
        node, edge = walked["node"], walked["edge"]
        edges, names = self.graph.edges, self.graph.names
        some_edge = at_least(edge, 0) if edges.height else filled(None, len(edge))
        etype = (take(edges["etype"], some_edge).cast(pl.Int64) if edges.height
                 else pl.Series([None] * len(edge), dtype=pl.Int64))
        to_end = take(edges["to_end"], some_edge) if edges.height else etype.is_null()
        own = take(self.graph.own_kind_codes, node)
        code = pl.select(
            pl.when(edge == -2).then(pl.lit(UNTRACED_CODE, pl.Int64)).when(edge == -1).then(own)
            .when(etype == COLLECTIVE).then(pl.lit(COMMUNICATION_CODE, pl.Int64))
            .when(to_end).then(pl.lit(SYNC_CODE, pl.Int64)).otherwise(etype + EDGE_CODE_BASE)
        ).to_series()
        is_cpu = code.is_in(CPU_CODES)
        frame = pl.DataFrame([walked["step"], code.alias("code"), walked["ns"], node, edge])
        name_id = take(names.node, node)
        cpu = frame.filter(is_cpu)
        if cpu.height:  # a CPU gap: the range around it (where the trace has it)
            name_id = name_id.scatter(is_cpu.arg_true(), self._cpu_names(cpu))
        named = where(code == LAUNCH_CODE, names.launch, name_id)
        return frame.with_columns(named.alias("name_id"))


def _summed(coded: pl.DataFrame) -> pl.DataFrame:
    """``coded`` summed per key (``PathWalker.sums``)."""
    key = (pl.col("name_id") * len(SEGMENT_KINDS) + pl.col("code")).alias("key")
    return coded.group_by(key).agg(pl.col("ns").sum(),
                                   (pl.col("ns") > 0).cast(pl.Int64).sum().alias("count"))


def segments_of(coded: pl.DataFrame, names: Names) -> pl.DataFrame:
    """``PathWalker.coded`` named: step, kind, name, ns, node, edge (the module docstring)."""
    return coded.select("step", take(SEGMENT_KINDS, coded["code"]).alias("kind"),
                        take(names.table, coded["name_id"]).alias("name"), "ns", "node", "edge")


def breakdown(sums: pl.DataFrame, names: Names) -> pl.DataFrame:
    """Per kind and name: ns on the path (summed over the steps), how many pieces of it
    took time, and its share of the path (``sums``: ``PathWalker.sums``; summed by number,
    then by name: several codes share a kind)."""
    total = max(int(sums["ns"].sum() or 0), 1)
    sums = sums.group_by("key").agg(pl.col("ns").sum(), pl.col("count").sum())
    code, name_id = sums["key"] % len(SEGMENT_KINDS), sums["key"] // len(SEGMENT_KINDS)
    named = sums.select(take(SEGMENT_KINDS, code).alias("kind"),
                        take(names.table, name_id).alias("name"), "ns", "count")
    return (named.lazy().group_by("kind", "name").agg(pl.col("ns").sum(),  # one query
                                                      pl.col("count").sum().cast(pl.UInt32))
            .filter(pl.col("ns") != 0).with_columns((100.0 * pl.col("ns") / total).alias("pct"))
            .sort(["ns", "kind", "name"], descending=[True, False, False])
            .collect(engine="in-memory"))


def family_slack(graph: Graph, plan: Plan, run: Replay, late: pl.Series | None,
                 on_path: pl.DataFrame) -> pl.DataFrame:
    """Per kernel family (name): launches, GPU time, time on the critical path and the
    least slack of its launches (how much later any could end before a step's end moves;
    null when no step waits on them, or for every family when ``late`` is None: not
    computed), over the steps' windows. ``late``: the latest end of each operation of
    ``Graph.step_ops`` (``latest_ends``); ``on_path``: node, path_ns
    (``PathWalker.own_time``). What every replay shares (each family's first node,
    launches, GPU time) is summed once per plan (``Plan.families``): a replay without
    slack sums only its path's few nodes."""
    ops = graph.step_ops
    if late is not None:  # every launch's slack: one pass over the operations
        end = take(run.series()[1], ops["node"])
        families = ops.with_columns(pl.when(late < INF // 2).then(late - end).alias("slack")
                                    ).group_by("family").agg(
            pl.col("node").first(), pl.len().alias("launches"), pl.col("gpu_ns").sum(),
            pl.col("slack").min().alias("slack_ns"))
        if plan.families is None:
            plan.families = families.drop("slack_ns")
    else:
        if plan.families is None:
            plan.families = ops.group_by("family").agg(
                pl.col("node").first(), pl.len().alias("launches"), pl.col("gpu_ns").sum())
        families = plan.families.with_columns(pl.lit(None, pl.Int64).alias("slack_ns"))
    path = on_path.join(ops.select("node", "family"), on="node").group_by("family").agg(
        pl.col("path_ns").sum())
    families = families.join(path, on="family", how="left").with_columns(
        pl.col("path_ns").fill_null(0))
    first = families["node"]
    return families.select(
        take(graph.nodes["name"], first).cast(pl.String),
        take(graph.nodes["kind"], first).cast(pl.String),
        "launches", "gpu_ns", "path_ns", "slack_ns",
    ).sort(["path_ns", "gpu_ns", "name"], descending=[True, True, False])
