"""HTA's (Holistic Trace Analysis 0.5.0) definitions on any timeline's GPU events: kernel
types by name, the temporal breakdown, the communication/computation overlap and the
kernel-type breakdown (docs/kineto.md cites each definition's source).

The functions take a frame of GPU events with ``hts``/``hend`` (start and end, in any one
unit: HTA's microseconds for a Kineto trace, nanoseconds for an nsys one) and
``kernel_type``. :func:`timeline_breakdown` gives an nsys timeline the same numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from operator import itemgetter
from typing import TYPE_CHECKING

import polars as pl

from kernelscope.timeline.model.intervals import SMALL_MERGE, merged_in_order

if TYPE_CHECKING:
    from kernelscope.timeline.model.model import TimelineReport

COMM = re.compile(r"^nccl.*Kernel")
MEMORY = re.compile(r"^(Memcpy|Memset|dma)")
NOT_COMPUTE = re.compile(r"^nccl.*Kernel|.*Memcpy|Memset|.*Sync")
COMMUNICATION = re.compile(
    r"(?i)^(void )?(nccl|deep_ep::)|cross_device_reduce|all_?reduce|all_?gather"
    r"|reduce_?scatter|all_?to_?all")
"""Kernels that move data between GPUs (NCCL's, DeepEP's dispatch/combine, custom
all-reduces): their question is overlap and waiting, not their code. Wider than HTA's
``COMM``, which the HTA numbers keep. Its flags are inline, so polars can take its
``pattern`` (the critical path's ``communication`` kind)."""


def kernel_type(name: str) -> str:
    """HTA's ``get_kernel_type``."""
    if COMM.match(name):
        return "COMMUNICATION"
    if MEMORY.match(name):
        return "MEMORY"
    if not NOT_COMPUTE.match(name):
        return "COMPUTATION"
    return "OTHER"


@dataclass(frozen=True)
class TemporalBreakdown:
    """HTA's temporal breakdown, in the unit of the events it was computed from
    (``ns_per_unit`` ns each: 1000 for HTA's microseconds, 1 for an nsys timeline)."""

    idle: int
    compute: int
    non_compute: int
    kernel: int
    """The GPU span: last end minus first start."""
    ns_per_unit: int = 1000

    def pct(self, part: int) -> float:
        return round(100 * part / self.kernel, 2) if self.kernel else 0.0

    @property
    def idle_pct(self) -> float:
        return self.pct(self.idle)

    @property
    def compute_pct(self) -> float:
        return self.pct(self.compute)

    @property
    def non_compute_pct(self) -> float:
        return self.pct(self.non_compute)

    @property
    def kernel_ns(self) -> int:
        return self.kernel * self.ns_per_unit

    def as_ns(self) -> dict[str, int]:
        unit = self.ns_per_unit
        return {"idle_ns": self.idle * unit, "compute_ns": self.compute * unit,
                "non_compute_ns": self.non_compute * unit, "kernel_ns": self.kernel * unit}


def merged(frame: pl.DataFrame) -> pl.DataFrame:
    """HTA's ``merge_kernel_intervals`` (touching intervals merge): columns hts, hend."""
    if not frame.height:
        return pl.DataFrame(schema={"hts": pl.Int64, "hend": pl.Int64})
    if frame.height <= SMALL_MERGE:
        in_python = _merged_rows(frame.select("hts", "hend"))
        if in_python is not None:
            return in_python
    ordered = frame.select("hts", "hend").sort("hts")
    group = (pl.col("hts") > pl.col("hend").shift().cum_max()).cum_sum().fill_null(0)
    return ordered.with_columns(group.alias("_g")).group_by("_g").agg(
        pl.col("hts").min(), pl.col("hend").max()).sort("hts").select("hts", "hend")


def _merged_rows(frame: pl.DataFrame) -> pl.DataFrame | None:
    """:func:`merged` of a few intervals, row by row in Python (polars' fixed cost per
    operation is more than the work there; ``intervals.SMALL_MERGE``); None where one has no
    end or ends before it starts (HTA's rounding inverts one shorter than a microsecond: the
    merge then depends on the order of equal starts, left to polars' sort)."""
    pairs = list(zip(frame["hts"].to_list(), frame["hend"].to_list(), strict=True))
    if any(start is None or end is None or end < start for start, end in pairs):
        return None
    _, starts, ends = merged_in_order((None, start, end) for start, end in sorted(pairs))
    return pl.DataFrame({"hts": starts, "hend": ends}, schema=frame.schema)


def _busy(frame: pl.DataFrame) -> int:
    if not frame.height:
        return 0
    return int(frame.select((pl.col("hend") - pl.col("hts")).sum()).item())


KINDS = ("COMPUTATION", "COMMUNICATION", "MEMORY")

KindRuns = dict[str, pl.DataFrame]
"""Each of :data:`KINDS`' merged intervals (:func:`merged` of the events of that kernel type)."""


def kind_runs(gpu: pl.DataFrame) -> KindRuns:
    """The merged intervals of each kernel type, the events split by type in one query."""
    parts = gpu.select("kernel_type", "hts", "hend").partition_by(
        "kernel_type", as_dict=True, include_key=False)
    empty = gpu.select("hts", "hend").clear()
    return {kind: merged(parts.get((kind,), empty)) for kind in KINDS}


def temporal_breakdown(gpu: pl.DataFrame, ns_per_unit: int = 1000,
                       runs: KindRuns | None = None) -> TemporalBreakdown | None:
    """HTA's temporal breakdown; ``runs``: :func:`kind_runs` of ``gpu`` when already made."""
    if not gpu.height:
        return None
    spans = merged(gpu)
    kernel = int(spans["hend"][-1] - spans["hts"][0])
    idle = kernel - _busy(spans)
    compute = _busy((runs or kind_runs(gpu))["COMPUTATION"])
    return TemporalBreakdown(idle, compute, kernel - compute - idle, kernel, ns_per_unit)


def _intersection(a: pl.DataFrame, b: pl.DataFrame) -> int:
    """Total time two sets of disjoint sorted intervals overlap."""
    total, i, j = 0, 0, 0
    a_rows, b_rows = a.rows(), b.rows()
    while i < len(a_rows) and j < len(b_rows):
        lo = max(a_rows[i][0], b_rows[j][0])
        hi = min(a_rows[i][1], b_rows[j][1])
        total += max(0, hi - lo)
        if a_rows[i][1] < b_rows[j][1]:
            i += 1
        else:
            j += 1
    return total


def comm_comp_overlap_pct(gpu: pl.DataFrame, runs: KindRuns | None = None) -> float | None:
    """HTA's communication/computation overlap (%); ``runs`` as for temporal_breakdown.
    Without ``runs``, the computation's intervals are merged only where communication ran
    (a trace without NCCL kernels: ~7 ms of a 40,000-kernel trace's export saved)."""
    comm = runs["COMMUNICATION"] if runs else _kind_merged(gpu, "COMMUNICATION")
    total = _busy(comm)
    if not total:
        return None
    compute = runs["COMPUTATION"] if runs else _kind_merged(gpu, "COMPUTATION")
    return round(100 * _intersection(comm, compute) / total, 2)


def _kind_merged(gpu: pl.DataFrame, kind: str) -> pl.DataFrame:
    """:func:`merged` of the events of one kernel type (as :func:`kind_runs` has it)."""
    return merged(gpu.filter(pl.col("kernel_type") == kind).select("hts", "hend"))


def kernel_type_breakdown(gpu: pl.DataFrame, runs: KindRuns | None = None) -> pl.DataFrame:
    """Time under each combination of computation, communication and memory kernels (HTA's
    default, ``include_memory_kernels=True``): every merged interval's start adds its kind's
    bit and its end removes it; the time to the next edge goes to the kinds then running.
    ``runs`` as for temporal_breakdown."""
    runs = runs or kind_runs(gpu)
    every = [(time, delta) for bit, kind in enumerate(KINDS)
             for start, end in runs[kind].iter_rows()
             for time, delta in ((start, 1 << bit), (end, -(1 << bit)))]
    # an edge without a time first (it counts, no span starts or ends at it); stable: equal
    # times keep the edges' order (sorted by a C key: a Python one took ~2.6 ms a rank)
    edges = [edge for edge in every if edge[0] is None]
    edges += sorted((edge for edge in every if edge[0] is not None), key=itemgetter(0))
    sums: dict[int, int] = {}
    running = 0
    for (time, delta), (after, _) in pairwise(edges):
        running += delta
        if running > 0 and time is not None and after is not None:
            sums[running] = sums.get(running, 0) + after - time
    return _kernel_type_rows(sorted(sums.items(), key=lambda kv: -kv[1]))


def _kernel_type_rows(sums: list[tuple[int, int]]) -> pl.DataFrame:
    """The kernel-type breakdown's rows from (kinds running as bits, time), longest first."""
    total = sum(ns for _, ns in sums)
    rows = [(" overlapping ".join(k for bit, k in enumerate(KINDS) if running & (1 << bit)),
             ns, round(100 * ns / total, 1) if total else 0.0)
            for running, ns in sums]
    return pl.DataFrame(rows, schema={"kernel_type": pl.String, "sum": pl.Int64,
                                      "percentage": pl.Float64}, orient="row")


def ops_breakdown(ops: pl.DataFrame) -> tuple[TemporalBreakdown | None, float | None]:
    """The temporal breakdown (in ns) and the communication/computation overlap of GPU
    operations ``ops`` (columns hts, hend in ns, and name; rows without a name are left out)."""
    ops = ops.drop_nulls("name")
    types = {n: kernel_type(n) for n in ops["name"].unique().to_list()}
    ops = ops.with_columns(pl.col("name").replace_strict(types, return_dtype=pl.String)
                           .alias("kernel_type"))
    return _ns_temporal_breakdown(ops), comm_comp_overlap_pct(ops)


def _covered(start: pl.Expr, end: pl.Expr) -> pl.Expr:
    """The length of the union of intervals sorted by start: each adds what reaches past
    the latest end before it."""
    return (end - pl.max_horizontal(start, end.cum_max().shift(1))).clip(lower_bound=0).sum()


def _ns_temporal_breakdown(ops: pl.DataFrame) -> TemporalBreakdown | None:
    """:func:`temporal_breakdown` in ns, in one query: a merged run's length is the union's
    length, so the runs need not be built. Where an operation has no start or end, or ends
    before it starts (where HTA's merge and a union part ways), the runs are built."""
    if not ops.height:
        return None
    start, end = pl.col("hts"), pl.col("hend")
    compute = pl.col("kernel_type") == "COMPUTATION"
    row = ops.lazy().sort("hts").select(
        ((end >= start).all() & start.is_not_null().all() & end.is_not_null().all())
        .alias("ordered"),
        (end.max() - start.min()).alias("kernel"),
        _covered(start, end).alias("busy"),
        _covered(start.filter(compute), end.filter(compute)).alias("compute"),
    ).collect(engine="in-memory").row(0)
    ordered, kernel, busy, busy_compute = row
    if not ordered:
        return temporal_breakdown(ops, ns_per_unit=1)
    idle = kernel - busy
    return TemporalBreakdown(idle, busy_compute, kernel - busy_compute - idle, kernel, 1)


def gpu_ops(kernels: pl.DataFrame, memcpy: pl.DataFrame, memset: pl.DataFrame,
            names: pl.Expr) -> pl.DataFrame:
    """Kernels (named by ``names``), copies and memsets (each frame with start and end) as
    :func:`ops_breakdown` takes them. Copies and memsets count as HTA's memory kernels
    (``Memcpy …``/``Memset …``)."""
    frames = [kernels.select(pl.col("start").alias("hts"), pl.col("end").alias("hend"),
                             names.cast(pl.String).alias("name"))]
    frames += [frame.select(pl.col("start").alias("hts"), pl.col("end").alias("hend"),
                            pl.lit(label).alias("name"))
               for frame, label in ((memcpy, "Memcpy"), (memset, "Memset"))]
    return pl.concat(frames, how="vertical_relaxed")


def timeline_breakdown(report: TimelineReport) -> tuple[TemporalBreakdown | None, float | None]:
    """An nsys timeline's temporal breakdown (in ns, over every kernel, copy and memset of
    every device together, as HTA takes a rank's) and its communication/computation overlap."""
    return ops_breakdown(gpu_ops(report.kernels, report.memcpy, report.memset,
                                 pl.col("name")))
