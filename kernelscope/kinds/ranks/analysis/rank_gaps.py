"""A rank's idle gaps by cause (``RankSummary.gaps``), one rank at a time or several at once.

A rank's gaps of at least ``min_gap_ns``: the ``max_gaps`` longest explained from the CPU
calls around them (``timeline/analysis/gap_causes.py``, docs/timeline.md), a gap counted as
``communication`` when the rank's CPU-side collective calls cover at least half of it; the
others counted as ``not explained``.

The ranks of a Kineto run read in this process leave their gaps pending
(:class:`PendingGaps`, in the summary's extras) and :func:`settle_gaps` explains every rank's
gaps in one pass over one report that holds all their calls: an explanation is ~60 small
polars queries whatever the number of gaps, each with a fixed cost of about a millisecond,
so eight ranks pay it once instead of eight times. That report keeps the ranks apart: each
rank's devices, correlation ids and process ids are moved to values no other rank has (the
explanation only compares them for equality), and the explanations are split back by device.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl

from kernelscope.kinds.ranks.analysis.measures import covered_in
from kernelscope.kinds.ranks.analysis.model import RankSummary
from kernelscope.kinds.ranks.analysis.read import CallReader
from kernelscope.timeline.analysis.gap_causes import (
    GapExplanation,
    explain_gaps,
    explain_selected,
    largest_gaps,
)
from kernelscope.timeline.model.intervals import Coverage
from kernelscope.timeline.model.model import TimelineReport, pid_of

I64 = pl.Int64
HALF = 0.5
PENDING = "_gaps"
"""The extras member holding a rank's gaps until the run explains them (``settle_gaps``)."""
CAUSE_SCHEMA = {"cause": pl.String, "gaps": I64, "ns": I64}
DEVICE_STRIDE = 1 << 20
"""Rank r's device d is device ``r * DEVICE_STRIDE + d`` in the joined report."""
CORRELATION_STRIDE = 1 << 40
"""Rank r's correlation id c is ``c ± r * CORRELATION_STRIDE`` (its sign kept)."""
PID_SHIFT = 1 << 24


@dataclass(frozen=True)
class PendingGaps:
    """What a rank's gap causes are computed from."""

    gaps: pl.DataFrame
    """Every gap of at least ``min_gap_ns`` in the rank's GPU busy time: start, end, duration."""
    windowed: TimelineReport
    """The rank's report with the CPU calls around its ``max_gaps`` longest gaps."""
    comm: Coverage
    """The rank's CPU-side collective calls."""
    min_gap_ns: int
    max_gaps: int

    def causes(self, explained: Sequence[GapExplanation]) -> pl.DataFrame:
        """The gaps by cause (``CAUSE_SCHEMA``), from the explanations of the longest."""
        starts = pl.Series([g.start_ns for g in explained], dtype=I64)
        ends = pl.Series([g.end_ns for g in explained], dtype=I64)
        in_comm = covered_in(self.comm, starts, ends).to_list()
        rows = [("communication" if c >= HALF * max(g.duration_ns, 1) else g.cause,
                 g.duration_ns) for g, c in zip(explained, in_comm, strict=True)]
        rest = self.gaps.height - len(rows)
        if rest > 0:
            rows.append(("not explained",
                         int(self.gaps["duration"].sum()) - sum(r[1] for r in rows)))
        frame = pl.DataFrame(rows, schema={"cause": pl.String, "ns": I64}, orient="row")
        counts = [1] * len(explained) + ([rest] if rest > 0 else [])
        return (frame.with_columns(pl.Series("gaps", counts, dtype=I64))
                .group_by("cause").agg(pl.col("gaps").sum(), pl.col("ns").sum())
                .sort("ns", descending=True).select(list(CAUSE_SCHEMA)))


def only_process(df: pl.DataFrame, column: str, pid: int | None) -> pl.DataFrame:
    """The rows of ``df`` whose global id ``column`` is in process ``pid`` (all for None)."""
    return df if pid is None else df.filter(pid_of(pl.col(column)) == pid)


def pending_gaps(read: CallReader, report: TimelineReport, busy: Coverage, comm: Coverage,
                 min_gap_ns: int, max_gaps: int, pid: int | None) -> PendingGaps | None:
    """What the gaps of a rank (the process ``pid`` of ``report``, or all of it) are
    explained from: its CPU calls (``read``) around its ``max_gaps`` longest gaps of at least
    ``min_gap_ns``, and those that launched the operations ending them; None without gaps."""
    gaps = busy.gaps().filter(pl.col("duration") >= min_gap_ns)
    if not gaps.height:
        return None
    top = gaps.sort("duration", descending=True).head(max_gaps)
    windows = list(top.select("start", "end").iter_rows())
    ends = report.gpu_ops.join(top.select(pl.col("end").alias("start")), on="start", how="semi")
    api, osrt = read(windows, ends["correlation_id"].drop_nulls().to_list())
    windowed = replace(report, cuda_api=only_process(api, "global_tid", pid),
                       osrt=only_process(osrt, "global_tid", pid), _memo={})
    # Same GPU rows: hand over the merged busy intervals instead of building them again.
    windowed.__dict__.update({k: report.__dict__[k] for k in ("gpu_ops", "device_busy")
                              if k in report.__dict__})
    return PendingGaps(gaps, windowed, comm, min_gap_ns, max_gaps)


def gap_causes(pending: PendingGaps | None) -> pl.DataFrame:
    """One rank's gaps by cause (``CAUSE_SCHEMA``; empty without gaps)."""
    if pending is None:
        return pl.DataFrame(schema=CAUSE_SCHEMA)
    return pending.causes(explain_gaps(pending.windowed, min_gap_ns=pending.min_gap_ns,
                                       limit=pending.max_gaps))


def settle_gaps(ranks: Sequence[RankSummary]) -> None:
    """Each rank's pending gaps (``PENDING``) explained, together where the ranks' reports
    can be joined, else one rank at a time: the same causes either way."""
    pending = [(s, s.extras.pop(PENDING)) for s in ranks if PENDING in s.extras]
    present = [p for _, p in pending if p is not None]
    together = explain_together(present) if len(present) > 1 else None
    found = iter(together or [])
    for summary, gaps in pending:
        if gaps is None or together is None:
            summary.gaps = gap_causes(gaps)
        else:
            summary.gaps = gaps.causes(next(found))


def explain_together(ranks: Sequence[PendingGaps]) -> list[list[GapExplanation]] | None:
    """Each rank's longest gaps explained in one pass (as ``gap_causes`` would explain them
    one rank at a time), or None where the reports cannot be joined (other tables traced,
    other columns, ids beyond the strides)."""
    reports = [p.windowed for p in ranks]
    if len({r.tables for r in reports}) > 1:
        return None
    try:
        joined = _joined(reports)
    except (pl.exceptions.SchemaError, pl.exceptions.ShapeError):
        return None
    if joined is None:
        return None
    gaps = _stacked([largest_gaps(r.windowed, r.min_gap_ns, r.max_gaps) for r in ranks])
    gaps = gaps.with_columns(pl.col("device") + pl.col("_rank") * DEVICE_STRIDE).drop("_rank")
    out: list[list[GapExplanation]] = [[] for _ in ranks]
    for gap in explain_selected(joined, gaps, details=False):
        rank, device = divmod(gap.device, DEVICE_STRIDE)
        out[rank].append(replace(gap, device=device))
    return out


def _stacked(frames: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """``frames`` one after another, with ``_rank``: the index of the frame a row came from."""
    ranks = [i for i, frame in enumerate(frames) for _ in range(frame.height)]
    return pl.concat(frames).with_columns(pl.Series("_rank", ranks, dtype=I64))


def _moved_correlation() -> pl.Expr:
    c, shift = pl.col("correlation_id"), pl.col("_rank") * CORRELATION_STRIDE
    return pl.when(c >= 0).then(c + shift).otherwise(c - shift).alias("correlation_id")


def _joined(reports: Sequence[TimelineReport]) -> TimelineReport | None:
    """One report holding what ``explain_selected`` reads of every rank's windowed report,
    each rank's ids moved apart (None where an id is beyond its stride)."""
    device = (pl.col("device_id") + pl.col("_rank") * DEVICE_STRIDE).alias("device_id")
    ops = _stacked([r.gpu_ops for r in reports])
    memcpy = _stacked([r.memcpy for r in reports])
    nvtx = _stacked([r.nvtx if r.nvtx_last_ns is None
                     else r.nvtx.with_columns(pl.col("end").fill_null(r.nvtx_last_ns))
                     for r in reports])
    api, osrt = _stacked([r.cuda_api for r in reports]), _stacked([r.osrt for r in reports])
    ids = pl.concat([ops.select("device_id", "correlation_id"),
                     memcpy.select("device_id", "correlation_id"),
                     api.select(pl.lit(0, I64).alias("device_id"), "correlation_id")],
                    how="vertical_relaxed").select(
        pl.col("device_id").min().alias("d0"), pl.col("device_id").max().alias("d1"),
        pl.col("correlation_id").abs().max().alias("c"))
    d0, d1, c = ids.row(0)
    if (d0 is not None and (d0 < 0 or d1 >= DEVICE_STRIDE)) or (
            c is not None and c >= CORRELATION_STRIDE):
        return None
    processes = _process_ids([(ops, "global_pid"), (api, "global_tid"),
                              (osrt, "global_tid"), (nvtx, "global_tid")])
    first = reports[0]
    joined = TimelineReport(
        path=Path(first.path), sqlite_path=None, start_ns=0, end_ns=0, devices=[],
        processes=[], kernels=first.kernels.clear(), memset=first.memset.clear(),
        memcpy=memcpy.with_columns(device, _moved_correlation()).drop("_rank"),
        cuda_api=_moved_process(api, "global_tid", processes).with_columns(
            _moved_correlation()).drop("_rank"),
        osrt=_moved_process(osrt, "global_tid", processes).drop("_rank"),
        nvtx=_moved_process(nvtx, "global_tid", processes).drop("_rank"),
        overhead=first.overhead.clear(), tables=first.tables, profiler=first.profiler,
        nvtx_last_ns=max((r.nvtx_last_ns for r in reports if r.nvtx_last_ns is not None),
                         default=None))
    joined.__dict__["gpu_ops"] = _moved_process(ops, "global_pid", processes).with_columns(
        device, _moved_correlation()).drop("_rank")
    return joined


def _process_ids(frames: Sequence[tuple[pl.DataFrame, str]]) -> pl.DataFrame:
    """Every (rank, process id) of ``frames``' global ids, with a process id of its own
    (``_new``) for the joined report: 1, 2, ..."""
    pairs = pl.concat([f.select("_rank", pid_of(pl.col(col)).alias("_pid")).drop_nulls()
                       for f, col in frames]).unique().sort("_rank", "_pid")
    return pairs.with_row_index("_new", offset=1).with_columns(pl.col("_new").cast(I64))


def _moved_process(frame: pl.DataFrame, column: str, processes: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with the process id inside its global ids ``column`` replaced by the
    rank's own (``_process_ids``); its thread id and higher bits kept."""
    return frame.with_columns(pid_of(pl.col(column)).alias("_pid")).join(
        processes, on=["_rank", "_pid"], how="left", maintain_order="left").with_columns(
        (pl.col(column) + (pl.col("_new") - pl.col("_pid")) * PID_SHIFT).alias(column)
    ).drop("_pid", "_new")


__all__ = ["CAUSE_SCHEMA", "PENDING", "PendingGaps", "explain_together", "gap_causes",
           "only_process", "pending_gaps", "settle_gaps"]
