"""Per-rank Kineto traces read as the ranks of one run: who each rank is, the clocks
aligned, per rank its step time, communication and overlap, and at every collective the
straggler and every other rank's wait.

- Ranks come from each trace's ``distributedInfo`` (file order when a trace has none).
- Traces of different runs are refused: a world size that differs, a rank seen twice, or
  time spans that do not overlap on the shared clock.
- Collectives, in order on each rank: NCCL kernels (``^nccl.*Kernel``) when the ranks ran
  any, else the backend's ``record_function`` ranges (``gloo:all_reduce``,
  ``nccl:all_reduce``, …). The n-th collective of every rank is the same collective.
- Clocks: a collective completes on every rank at about the same moment (it cannot end
  before its last rank arrives, and then ends everywhere), so each rank's clock is shifted
  by the median, over the collectives, of its end minus rank 0's end. Ranks on one host
  share a clock and get shifts near zero; the shift is reported per rank.
- The heatmap: each rank's GPU busy share in equal columns of the run on the aligned clock.
- At each collective the straggler is the rank arriving last (the latest aligned start); it
  is late by its arrival minus the median arrival of the others, and every other rank waits
  inside the collective from its own arrival to the straggler's.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from kernelscope.core.errors import ReportError, safe_text
from kernelscope.core.executor import make_executor
from kernelscope.kinds.kineto.analysis.hta import HtaNumbers, hta_numbers, step_names
from kernelscope.kinds.kineto.model import trace_files
from kernelscope.kinds.kineto.model.model import KinetoTrace, read_trace
from kernelscope.timeline.model.intervals import Coverage, merge_intervals

BACKEND_RANGE = r"^(gloo|nccl|mpi|ucc|xccl):"
HEATMAP_COLUMNS = 60
NCCL_KERNEL = r"^nccl.*Kernel"


@dataclass(frozen=True)
class RankNumbers:
    rank: int
    path: Path
    shift_ns: int
    step_ns: int | None
    steps: int
    comm_ns: int
    hta: HtaNumbers


@dataclass(frozen=True)
class Collective:
    index: int
    name: str
    straggler: int
    late_by_ns: int
    waits_ns: dict[int, int]
    """Per rank, the time from its arrival to the straggler's."""


@dataclass
class KinetoRun:
    ranks: list[RankNumbers]
    collectives: list[Collective]
    source: str
    """``nccl-kernels`` or ``backend-ranges``: what the collectives were read from."""
    world_size: int | None
    heatmap: dict[int, list[float]] = field(default_factory=dict)
    """Per rank, its GPU's busy share (0-1) in each of ``HEATMAP_COLUMNS`` equal columns of
    [t0_ns, t1_ns) on the aligned clock."""
    t0_ns: int = 0
    t1_ns: int = 0
    clock: str = field(default="aligned on the collectives' ends (median shift per rank)")

    @property
    def straggler(self) -> tuple[int, int, int] | None:
        """(rank, collectives it was last at, its median lateness there), the most often last."""
        if not self.collectives:
            return None
        counts: dict[int, list[int]] = {}
        for c in self.collectives:
            counts.setdefault(c.straggler, []).append(c.late_by_ns)
        rank = max(counts, key=lambda r: len(counts[r]))
        return rank, len(counts[rank]), int(statistics.median(counts[rank]))


@dataclass(frozen=True)
class RankReduction:
    """What the run needs of one trace, reduced where the trace is read (a worker)."""

    path: Path
    rank: int | None
    world_size: int | None
    start_ns: int
    end_ns: int
    step_ns: list[int]
    nccl: pl.DataFrame
    """NCCL kernels: name, start, end."""
    ranges: pl.DataFrame
    """The backend's collective ranges: name, start, end."""
    busy: pl.DataFrame
    """The GPU's busy intervals (merged): start, end."""
    hta: HtaNumbers
    """With the trace's own ProfilerStep names."""
    hta_filtered: HtaNumbers
    """With the last step dropped (for a run holding two step names or more)."""
    step_names: frozenset[str]


def reduce_trace(path: Path) -> RankReduction:
    """Read the trace at ``path`` and keep what the run compares."""
    trace = read_trace(path)
    own = step_names([trace])
    hta = hta_numbers(trace, own)
    # HTA drops the last step when the whole run holds two step names: force that here too
    # (names no event carries do not move the last step's start).
    filtered = hta if len(own) >= 2 else hta_numbers(trace, own | {"\0a", "\0b"})
    ops = trace.gpu.filter(pl.col("kind") != "sync").select("start", "end")
    return RankReduction(
        path, trace.rank,
        trace.distributed.world_size if trace.distributed is not None else None,
        trace.start_ns, trace.end_ns, (trace.steps["end"] - trace.steps["start"]).to_list(),
        _collectives(trace, True), _collectives(trace, False), merge_intervals(ops), hta,
        filtered, frozenset(own),
    )


def _collectives(trace: KinetoTrace, nccl: bool) -> pl.DataFrame:
    if nccl:
        frame = trace.gpu.filter((pl.col("kind") == "kernel")
                                 & pl.col("name").str.contains(NCCL_KERNEL))
    else:
        frame = trace.cpu.filter((pl.col("cat") == "user_annotation")
                                 & pl.col("name").str.contains(BACKEND_RANGE))
    return frame.sort("start").select("name", "start", "end")


def _numbered(traces: list[RankReduction]) -> list[tuple[int, RankReduction]]:
    if any(t.rank is None for t in traces):
        return list(enumerate(traces))
    worlds = {t.world_size for t in traces}
    if len(worlds) > 1:
        raise ReportError(f"The traces are ranks of different runs: world sizes "
                          f"{sorted(w or 0 for w in worlds)} differ.")
    seen: dict[int, Path] = {}
    for trace in traces:
        rank = int(trace.rank or 0)
        if rank in seen:
            raise ReportError(f"{safe_text(seen[rank])} and {safe_text(trace.path)} are both "
                              f"rank {rank}: they are ranks of different runs.")
        seen[rank] = trace.path
    return sorted(((int(t.rank or 0), t) for t in traces), key=lambda rt: rt[0])


def _check_overlap(numbered: list[tuple[int, RankReduction]]) -> None:
    first = numbered[0][1]
    for _, trace in numbered[1:]:
        if trace.start_ns > first.end_ns or trace.end_ns < first.start_ns:
            raise ReportError(f"{safe_text(first.path)} and {safe_text(trace.path)} do not "
                              "overlap in time: they are ranks of different runs.")


def open_kineto_run(paths: Sequence[Path], *, workers: int | None = None,
                    scheduler: str | None = None) -> KinetoRun:
    """The run of the per-rank traces ``paths`` (files, or a directory of them); each trace
    is reduced in this process, worker processes or on Dask (``core/executor.py``
    chooses, as for nsys runs)."""
    files = trace_files([Path(p) for p in paths])
    if len(files) < 2:
        raise ReportError("A run needs at least two per-rank traces.")
    executor = make_executor(files, workers=workers, scheduler=scheduler)
    try:
        found = dict(executor.run([(reduce_trace, (f,)) for f in files]))
    finally:
        executor.close()
    numbered = _numbered([found[i] for i in range(len(files))])
    _check_overlap(numbered)
    return _compare(numbered)


def _compare(numbered: list[tuple[int, RankReduction]]) -> KinetoRun:
    nccl = any(t.nccl.height for _, t in numbered)
    per_rank = {r: (t.nccl if nccl else t.ranges) for r, t in numbered}
    count = min(f.height for f in per_rank.values())
    base = numbered[0][0]
    shifts = {r: (int(statistics.median((f["end"].head(count) - per_rank[base]["end"].head(count))
                                        .to_list())) if count else 0) for r, f in per_rank.items()}
    filtered = len(frozenset().union(*(t.step_names for _, t in numbered))) >= 2
    ranks = [_rank_numbers(r, t, shifts[r], per_rank[r], filtered) for r, t in numbered]
    collectives = [_collective(i, per_rank, shifts) for i in range(count)]
    t0 = min(t.start_ns - shifts[r] for r, t in numbered)
    t1 = max(t.end_ns - shifts[r] for r, t in numbered)
    heat = {r: busy_columns(t.busy, shifts[r], t0, t1, HEATMAP_COLUMNS) for r, t in numbered}
    run = KinetoRun(ranks, collectives, "nccl-kernels" if nccl else "backend-ranges",
                    numbered[0][1].world_size, heat, t0, t1)
    if not count:
        run.clock = "not shifted: no collective to align on, so the traces' clocks are taken as one"
    return run


def busy_columns(busy: pl.DataFrame, shift: int, t0: int, t1: int, width: int) -> list[float]:
    """The busy share (0-1) of ``busy`` in ``width`` equal columns of [t0, t1) on the
    aligned clock (the trace's clock minus ``shift``)."""
    coverage = Coverage.from_intervals(busy.select(pl.col("start") - shift, pl.col("end") - shift))
    edges = pl.Series([t0 + (t1 - t0) * i // width for i in range(width + 1)], dtype=pl.Int64)
    covered = coverage.covered_until(edges).to_list()
    return [min(max((covered[i + 1] - covered[i]) / max(int(edges[i + 1] - edges[i]), 1), 0.0),
                1.0) for i in range(width)]


def _rank_numbers(rank: int, trace: RankReduction, shift: int, comm: pl.DataFrame,
                  filtered: bool) -> RankNumbers:
    durations = trace.step_ns
    return RankNumbers(
        rank, trace.path, shift, int(statistics.median(durations)) if durations else None,
        len(durations), int((comm["end"] - comm["start"]).sum()) if comm.height else 0,
        trace.hta_filtered if filtered else trace.hta,
    )


def _collective(index: int, per_rank: dict[int, pl.DataFrame], shifts: dict[int, int]
                ) -> Collective:
    arrivals = {r: int(f["start"][index]) - shifts[r] for r, f in per_rank.items()}
    straggler = max(arrivals, key=lambda r: arrivals[r])
    others = [a for r, a in arrivals.items() if r != straggler]
    late = arrivals[straggler] - int(statistics.median(others)) if others else 0
    name = str(next(iter(per_rank.values()))["name"][index])
    return Collective(index, name, straggler, late,
                      {r: arrivals[straggler] - a for r, a in arrivals.items()})
