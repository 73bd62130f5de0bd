"""The per-rank summary a worker sends back, and the analysis of a whole run.

A :class:`RankSummary` is small whatever the size of the trace it came from (a few frames with
one row per step, collective, kernel name or gap cause, and a 4,097-point busy curve), so 64
of them fit in the memory of one process. All its times are on the rank's own clock (local
ns, as in its export); :class:`RunAnalysis` adds each rank's clock offset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from kernelscope.core.findings import Finding
from kernelscope.kinds.ranks.analysis.matching import RankClock
from kernelscope.timeline.analysis.gpu_breakdown import TemporalBreakdown

DEFAULT_BUSY_POINTS = 4096


@dataclass
class RankSummary:
    """One rank (one process of one trace file), reduced."""

    file: str
    label: str  # what to call it when no rank number is known: the file name (and pid)
    pid: int | None
    process: str
    host: str | None
    session_start_utc_ns: int | None
    env_rank: int | None
    env_rank_variable: str | None
    nvtx_rank: int | None
    nsys_version: str | None
    devices: list[str]
    kernels: int
    first_ns: int  # extent of the events read
    last_ns: int
    gpu_start_ns: int | None
    gpu_end_ns: int | None
    gpu_busy_ns: int
    compute_ns: int  # merged non-communication kernels
    comm_ns: int  # merged communication (kernels or CPU calls)
    overlap_ns: int  # communication time during which compute kernels ran
    comm_source: str | None  # "nccl", "mpi", "nvtx" or None
    steps: pl.DataFrame  # step, name, start, end
    step_source: str | None  # "nvtx", "kernel pattern" or None
    step_anchor: str | None  # the kernel the pattern is anchored on
    collectives: pl.DataFrame  # op, seq, start, end, global_tid, collective, step
    lead_in: pl.DataFrame  # op, seq, what, name, ns: what the rank did before arriving
    gaps: pl.DataFrame  # cause, gaps, ns (idle gaps of at least min_gap_ns)
    families: pl.DataFrame  # name, comm, instances, total_ns, min_ns, med_ns, max_ns
    busy_edges: list[int]  # local times of the busy curve's points
    busy_cum: list[int]  # GPU busy time before each edge
    main_tids: list[int] = field(default_factory=list)  # threads with NVTX / collective calls
    notes: list[str] = field(default_factory=list)
    temporal: TemporalBreakdown | None = None  # HTA's temporal breakdown of its GPU operations
    comm_comp_overlap_pct: float | None = None  # and HTA's communication/computation overlap
    extras: dict[str, Any] = field(default_factory=dict)
    """A trace kind's own members of the rank's JSON (a Kineto trace's HTA numbers)."""

    @property
    def gpu_busy_pct(self) -> float | None:
        if self.gpu_start_ns is None or self.gpu_end_ns is None:
            return None
        span = self.gpu_end_ns - self.gpu_start_ns
        return 100.0 * self.gpu_busy_ns / span if span > 0 else None

    @property
    def overlap_pct(self) -> float | None:
        return 100.0 * self.overlap_ns / self.comm_ns if self.comm_ns else None

    @property
    def step_time_ns(self) -> float | None:
        if not self.steps.height:
            return None
        return float((self.steps["end"] - self.steps["start"]).median())  # type: ignore[arg-type]


@dataclass(frozen=True)
class ClockAlignment:
    """How the ranks' clocks were put on one time axis, and how far to trust it."""

    method: str  # "session start", "base time" (PyTorch traces), "one session" or "none"
    offsets_ns: dict[int, int]  # rank -> add to its local times
    hosts: list[str]
    safe: bool
    note: str
    exit_spread_ns: float | None = None  # median spread of collective exits across ranks
    ranks: dict[int, RankClock] = field(default_factory=dict)
    """Per rank, its offset as the matched collectives give it (``matching.py``)."""


@dataclass(frozen=True)
class Straggler:
    """The rank that arrives last at the collectives, and what it did instead."""

    rank: int
    file: str
    late_ns_per_step: float  # median lateness vs the median of the other ranks
    delay_ns_per_step: float  # median of (its arrival - next latest arrival), when last
    last_count: int  # collectives at which it arrived last
    collectives: int  # collectives matched across the ranks
    steps: pl.DataFrame  # step, late_ns, delay_ns, last, collectives
    instead: pl.DataFrame  # what, name, ns, others_ns, extra_ns (median per collective)
    cpu_calls: pl.DataFrame  # source, name, ns, calls (in its lead-ins to its latest arrivals)

    @property
    def longer_range(self) -> tuple[str, float, float, float] | None:
        """The NVTX range the straggler spends the most extra time in before arriving: (name,
        its median ns, the others' ns, the extra ns); None when no range takes longer."""
        nvtx = self.instead.filter(
            (pl.col("what") == "nvtx") & (pl.col("extra_ns") > 0)
        ).sort("extra_ns", descending=True)
        if not nvtx.height:
            return None
        name, ns, others, extra = nvtx.select("name", "ns", "others_ns", "extra_ns").row(0)
        return str(name), float(ns), float(others), float(extra)


@dataclass
class RunAnalysis:
    """Every rank of a run, put on one clock, compared."""

    ranks: dict[int, RankSummary]  # rank number -> summary, in rank order
    rank_source: str  # how ranks were numbered
    clock: ClockAlignment
    comm_source: str | None
    collectives: pl.DataFrame  # rank, op, seq, step, arrival, exit, wait_ns, late_ns, last
    step_waits: pl.DataFrame  # rank, step, wait_ns, late_ns
    straggler: Straggler | None
    verdict: Finding
    """``straggler``, ``no-straggler`` or ``no-collective``, with its readings."""
    families: pl.DataFrame  # the cross-rank family table
    slow_ranks: pl.DataFrame  # rank, ratio, families: kernels slower than the others'
    notes: list[Finding] = field(default_factory=list)
    """What limits the comparison (ranks without communication, collectives some ranks
    missed), worded by ``ranks.render``."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def t0(self) -> int:
        """Start of the run on the aligned clock (first GPU operation or event)."""
        return min(r.first_ns + self.clock.offsets_ns[k] for k, r in self.ranks.items())

    @property
    def t1(self) -> int:
        return max(r.last_ns + self.clock.offsets_ns[k] for k, r in self.ranks.items())
