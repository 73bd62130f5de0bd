"""One PyTorch profiler (Kineto) trace reduced to a :class:`RankSummary`, as an Nsight Systems
trace is (``reduce.py``), so both kinds of run go through one analysis (docs/ranks.md).

The trace is mapped onto the timeline model (``kinds/kineto/model/as_timeline.py``) and
reduced by ``reduce.reduce_unit``, with what a Kineto trace knows better:

- **collectives** with their identity: NCCL kernels (``^nccl.*Kernel``, HTA's rule), each
  named by the ``record_param_comms`` operator that launched it (``Process Group Name``,
  ``Collective name``, ``In msg nelems``, ``Out msg nelems``, ``dtype`` and, in newer
  PyTorch, ``Seq``; Kineto copies them onto the kernel, and the operator is found by the
  kernel's ``External id`` where it did not; sizes are left out of an all-to-all's, a
  gather's or a scatter's key, whose sizes may differ by rank), else by the kernel's name;
  without NCCL
  kernels, the backend's ``record_function`` ranges (``gloo:all_reduce``, run on the
  backend's threads), named by their name;
- **steps**: the ``ProfilerStep#N`` ranges;
- **rank**: ``distributedInfo.rank`` (torch.distributed's rank, from the launcher's
  environment); **host**: the host name in the trace's file name as PyTorch's
  ``tensorboard_trace_handler`` writes it (``HOST_PID.NS.pt.trace.json``);
  **clock**: times count from ``baseTimeNanoseconds``, which takes the place of an nsys
  session start;
- HTA's numbers (``kinds/kineto/analysis/hta.py``) as the rank's temporal breakdown and
  overlap, its idle time per stream and kernel types as extra members.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import polars as pl

from kernelscope.core.errors import ReportError, safe_text
from kernelscope.kinds.kineto.analysis.hta import HtaNumbers, hta_numbers, step_names
from kernelscope.kinds.kineto.model.as_timeline import as_timeline_report
from kernelscope.kinds.kineto.model.model import KinetoTrace, global_id, read_trace
from kernelscope.kinds.ranks.analysis.collectives import NCCL_KEY, NCCL_P2P, nccl_op
from kernelscope.kinds.ranks.analysis.model import RankSummary
from kernelscope.kinds.ranks.analysis.read import OPS_SCHEMA, TraceTables, overlapping
from kernelscope.kinds.ranks.analysis.reduce import CallReader, Extras, ReduceOptions, reduce_unit
from kernelscope.timeline.model.model import TimelineReport

I64 = pl.Int64
NCCL_KERNEL = r"^nccl.*Kernel"
BACKEND_RANGE = r"^(?:gloo|nccl|mpi|ucc|xccl):"
P2P_NAMES = ("send", "recv", "sendrecv", "batch_isend_irecv")
TRACE_NAME = re.compile(r"([^/\\]+?)_(\d+)\.\d+\.pt\.trace\.json")
DISTRIBUTED = "distributedInfo"
"""The rank variable a Kineto trace's rank comes from."""
HTA_PENDING = "_hta"
"""The extras member holding both HTA readings until the run chooses (``settle_hta``)."""


def host_of(trace: KinetoTrace) -> str | None:
    """The host in the trace's name (``traceName``, else the file's), as PyTorch's
    ``tensorboard_trace_handler`` writes it: ``HOST_PID.NS.pt.trace.json``."""
    for name in (str(trace.members.get("traceName") or ""), trace.path.name):
        found = TRACE_NAME.search(name)
        if found:
            return found.group(1)
    return None


def _identity(kernels: pl.DataFrame, comms: pl.DataFrame) -> pl.DataFrame:
    """NCCL kernels with the metadata of the ``record_param_comms`` that launched them."""
    meta = ["collective", "group", "dtype", "in_nelems", "out_nelems", "seq"]
    on_kernel = comms.filter(pl.col("cat") == "kernel").unique("correlation").select(
        "correlation", *meta)
    on_op = comms.filter(pl.col("name") == "record_param_comms").unique(
        "external_id").select("external_id", *(pl.col(m).alias(f"_{m}") for m in meta))
    out = kernels.join(on_kernel, on="correlation", how="left").join(
        on_op, on="external_id", how="left")
    return out.with_columns(pl.coalesce(m, f"_{m}").alias(m) for m in meta)


UNEVEN_SIZES = r"(?i)all_?to_?all|^_?(?:gather|scatter)(?:_|$)"
"""Collectives whose message sizes may differ between ranks (uneven splits, a root that
receives or sends more): their key leaves the sizes out."""


def _key(frame: pl.DataFrame) -> pl.Expr:
    """``allreduce pg 0 1024→1024 Float``: collective, process group, sizes, dtype."""
    sizes = pl.when(pl.col("collective").str.contains(UNEVEN_SIZES)).then(pl.lit("")).otherwise(
        pl.concat_str([pl.col("in_nelems").cast(pl.String).fill_null("?"), pl.lit("→"),
                       pl.col("out_nelems").cast(pl.String).fill_null("?"), pl.lit(" ")]))
    named = pl.concat_str([
        pl.col("collective"), pl.lit(" pg "), pl.col("group").fill_null("?"), pl.lit(" "),
        sizes, pl.col("dtype").fill_null("?")])
    return pl.when(pl.col("collective").is_not_null()).then(named).otherwise(
        pl.col("name").str.extract(NCCL_KEY, 1).fill_null(pl.col("name")))


def collective_calls(trace: KinetoTrace) -> tuple[str, pl.DataFrame] | None:
    """The trace's communication calls with their identity (``collectives.COLLECTIVE_SCHEMA``
    but ``seq``), and their source: ``nccl`` or ``backend``; None when it has neither."""
    kernels = trace.gpu.filter((pl.col("kind") == "kernel")
                               & pl.col("name").str.contains(NCCL_KERNEL))
    if kernels.height:
        named = _identity(kernels, trace.comms)
        op = pl.coalesce("collective", nccl_op(pl.col("name")), pl.col("name"))
        p2p = (nccl_op(pl.col("name")).is_in(NCCL_P2P)
               | pl.col("collective").str.to_lowercase().is_in(P2P_NAMES)).fill_null(False)
        return "nccl", named.select(
            op.alias("op"), "start", "end", pl.lit(None, I64).alias("global_tid"),
            (~p2p).alias("collective"), _key(named).alias("key"),
            pl.col("seq").alias("recorded_seq"))
    ranges = trace.cpu.filter((pl.col("cat") == "user_annotation")
                              & pl.col("name").str.contains(BACKEND_RANGE))
    if not ranges.height:
        return None
    return "backend", ranges.select(
        pl.col("name").alias("op"), "start", "end",
        ((pl.col("pid") % (1 << 24)) * (1 << 24) + pl.col("tid") % (1 << 24)).alias("global_tid"),
        pl.lit(True).alias("collective"), pl.col("name").alias("key"),
        pl.lit(None, I64).alias("recorded_seq"))


def _tables(trace: KinetoTrace, report: TimelineReport) -> TraceTables:
    names = sorted(set(report.kernels["name"].cast(pl.String).drop_nulls().to_list()))
    ids = {name: i for i, name in enumerate(names)}
    kernels = report.kernels.select(
        *(c for c in OPS_SCHEMA),
        pl.col("name").cast(pl.String).replace_strict(ids, default=None, return_dtype=I64)
        .alias("name_id"))
    return TraceTables(
        kernels=kernels, memcpy=report.memcpy, memset=report.memset, nvtx=report.nvtx,
        mpi=pl.DataFrame(schema={"start": I64, "end": I64, "global_tid": I64,
                                 "name": pl.String}),
        names=dict(enumerate(names)), session_start_utc_ns=trace.base_time_ns,
        host=host_of(trace), devices={d.id: d.name for d in trace.devices},
        process_names={p.pid: p.name for p in trace.processes}, tables=report.tables,
    )


def runtime_calls(api: pl.DataFrame) -> CallReader:
    """A trace's CUDA runtime and driver calls (``TimelineReport.cuda_api``) as
    ``reduce.CallReader`` reads them (a Kineto trace records no OS runtime calls)."""

    def read(windows: Sequence[tuple[int, int]], correlation_ids: Sequence[int]
             ) -> tuple[pl.DataFrame, pl.DataFrame]:
        hits = overlapping(api, sorted(windows))
        if correlation_ids:
            hits = pl.concat([hits, api.filter(pl.col("correlation_id").is_in(
                list(correlation_ids)))]).unique(maintain_order=True)
        osrt = pl.DataFrame(schema={"start": I64, "end": I64, "global_tid": I64,
                                    "event_class": I64, "name": pl.String})
        return hits, osrt

    return read


def _steps(trace: KinetoTrace) -> pl.DataFrame:
    return trace.steps.select("step", ("ProfilerStep#" + pl.col("step").cast(pl.String))
                              .alias("name"), "start", "end")


KeptTraces = dict[str, tuple[KinetoTrace, TimelineReport]]
"""Traces a run read in this process, by the path their rank was reduced from, with their
timeline model: the run's critical path and straggler detail read them from here instead of
the files again (``run.analyse_run``'s ``keep_traces``)."""


def reduce_kineto(path: str, options: ReduceOptions | None = None,
                  kept: KeptTraces | None = None, defer_gaps: bool = False
                  ) -> list[RankSummary]:
    """Read the Kineto trace at ``path`` and reduce it to its one rank (the trace and its
    timeline model put in ``kept`` when given; with ``defer_gaps``, its gap causes left to
    ``rank_gaps.settle_gaps``). Raises ReportError with one sentence on bad input; a trace
    without GPU work is a rank without GPU work."""
    try:
        return [_reduce(read_trace(Path(path), need_gpu=False, shapes=False), path,
                        options or ReduceOptions(), kept, defer_gaps)]
    except pl.exceptions.PolarsError as exc:
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ReportError(f"{safe_text(Path(path).name)} could not be read as a rank "
                          f"({detail.rstrip('.')}).") from exc


def _reduce(trace: KinetoTrace, path: str, options: ReduceOptions,
            kept: KeptTraces | None, defer_gaps: bool) -> RankSummary:
    own = step_names([trace])
    hta = hta_numbers(trace, own)
    # HTA drops the last step when the whole run holds two step names: the run chooses
    # (names no event carries do not move the last step's start)
    filtered = hta if len(own) >= 2 else hta_numbers(trace, own | {"\0a", "\0b"})
    extras = Extras(comm=collective_calls(trace), steps=_steps(trace), members={
        HTA_PENDING: (hta, filtered, sorted(own)),
        "kineto": {"events": trace.events, "base_time_ns": trace.base_time_ns,
                   "distributed": _distributed(trace)},
    }, own_breakdown=True)
    report = as_timeline_report(trace)
    if kept is not None:
        kept[path] = (trace, report)
    summary = reduce_unit(runtime_calls(report.cuda_api), _tables(trace, report), path, None,
                          False, options, extras, defer_gaps=defer_gaps)
    main = trace.processes[0].pid if trace.processes else None
    summary = replace(summary, pid=main if summary.pid is None else summary.pid,
                      nsys_version=None, main_tids=summary.main_tids or (
                          [global_id(main, main)] if main is not None else []))
    if trace.rank is not None:
        summary = replace(summary, env_rank=trace.rank, env_rank_variable=DISTRIBUTED)
    return summary


def _distributed(trace: KinetoTrace) -> dict[str, object] | None:
    dist = trace.distributed
    if dist is None:
        return None
    return {"backend": dist.backend, "rank": dist.rank, "world_size": dist.world_size,
            "groups": list(dist.groups)}


def settle_hta(ranks: Sequence[RankSummary]) -> None:
    """Each Kineto rank's HTA numbers as the run's HTA computes them: with the last step
    dropped when the run holds two step names or more (HTA's symbol table spans the ranks)."""
    pending = [s for s in ranks if HTA_PENDING in s.extras]
    names = {n for s in pending for n in s.extras[HTA_PENDING][2]}
    for s in pending:
        hta, filtered, _ = s.extras.pop(HTA_PENDING)
        chosen: HtaNumbers = filtered if len(names) >= 2 else hta
        s.temporal, s.comm_comp_overlap_pct = chosen.temporal, chosen.overlap_pct
        s.extras.update(chosen.stream_and_type_members())


__all__ = ["KeptTraces", "collective_calls", "host_of", "reduce_kineto", "settle_hta"]
