"""The ``kernelscope/ranks/2`` JSON document: a run of many ranks (Nsight Systems or PyTorch
profiler traces), as kernelscope reads it.

    {"schema": "kernelscope/ranks/2",
     "run": {traces, trace_kind, rank_source, comm_source, executor, t0_ns, t1_ns,
             clock{…, "ranks": {rank: {shift_ns, estimate_ns, residual_ns, pairs, how}},
             "collectives_paired_by"}, verdict, notes},
     "ranks": [{"file", "rank", "steps", "step_time_ns" (median), "gpu_busy_pct", "comm_ns",
                "compute_ns", "overlap_ns", "overlap_pct", "wait_ns", "wait_ns_per_step",
                "late_ns_per_step", "last_count", "gaps": [{cause, gaps, ns}],
                "temporal_breakdown": {idle_ns, compute_ns, non_compute_ns, kernel_ns,
                idle_pct, compute_pct, non_compute_pct} or null, "comm_comp_overlap_pct", …}],
     "straggler": {"file", "rank", "late_ns_per_step" (median lateness at the collectives),
                   "delay_ns_per_step", "last_count", "collectives", "verdict",
                   "steps": [{step, late_ns, delay_ns, last}], "instead": […],
                   "cpu_calls": […]} or null, "straggler_note",
     "steps": [{"step", "last_rank", "late_ns", "wait_ns": {rank: ns}}],
     "families": [{"name", "comm", "total_ns", "min_ns", "med_ns", "max_ns", "slowest_rank",
                   "ratio", "flagged", "per_rank": [{rank, instances, min_ns, med_ns,
                   max_ns}]}],
     "slow_ranks": [{rank, ratio, families, slow}],
     "collectives": [{"match", "op", "key", "ranks", "last_rank", "late_ns", "wait_ns"
                      (the longest), "exit_spread_ns"}],
     "heatmap": {"t0_ns", "t1_ns", "columns", "ranks": {rank: [busy % per column]}},
     "critical_path": {…} (the JSON export only: ``ranks_critical.py``)}

A trace kind's own members of a rank follow its common ones (a PyTorch trace's
``idle_time_by_stream``, ``kernel_types`` and ``kineto``). ``kernelscope/ranks/1`` (before
PyTorch traces joined) is the same without ``trace_kind``, ``clock.ranks``, ``verdict``,
``collectives`` and the kind's members; the renderers read both.

Times are integer ns; ``t0_ns``/``t1_ns`` and every arrival are on the common clock (the
earliest trace's), per-rank lists on each rank's own. Non-finite floats become null.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from kernelscope.core.jsonsafe import json_safe
from kernelscope.kinds.ranks.analysis.heatmap import heatmap
from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.render.ranks import note_text, straggler_note, straggler_verdict
from kernelscope.timeline.export.breakdown_json import breakdown_doc

SCHEMA = "kernelscope/ranks/2"
SCHEMAS = ("kernelscope/ranks/1", SCHEMA)
"""The documents the Markdown and CSV renderers read."""
HEATMAP_COLUMNS = 100


def _rows(df: pl.DataFrame) -> list[dict[str, Any]]:
    return df.to_dicts() if df.height else []


def _median(values: pl.Series) -> float | None:
    value = values.median() if values.len() else None
    return None if value is None else float(value)  # type: ignore[arg-type]


def rank_rows(run: RunAnalysis) -> list[dict[str, Any]]:
    """The per-rank overview, one dict per rank (also the CSV's rows)."""
    out = []
    calls = run.collectives
    steps = run.step_waits
    for rank, s in run.ranks.items():
        mine = calls.filter(pl.col("rank") == rank)
        per_step = steps.filter(pl.col("rank") == rank)
        out.append({
            "file": s.file, "rank": rank, "pid": s.pid, "process": s.process, "host": s.host,
            "devices": s.devices, "kernels": s.kernels,
            "steps": s.steps.height, "step_source": s.step_source,
            "step_time_ns": s.step_time_ns,
            "gpu_busy_pct": s.gpu_busy_pct, "gpu_busy_ns": s.gpu_busy_ns,
            "comm_source": s.comm_source, "comm_ns": s.comm_ns, "compute_ns": s.compute_ns,
            "overlap_ns": s.overlap_ns, "overlap_pct": s.overlap_pct,
            "collectives": mine.height,
            "wait_ns": int(mine["wait_ns"].sum()) if mine.height else 0,
            "wait_ns_per_step": _median(per_step["wait_ns"]),
            "late_ns_per_step": _median(per_step["late_ns"]),
            "last_count": int(mine["last"].sum()) if mine.height else 0,
            "gaps": _rows(s.gaps),
            **breakdown_doc(s.temporal, s.comm_comp_overlap_pct),
            "clock_offset_ns": run.clock.offsets_ns.get(rank, 0),
            "clock_shift_ns": run.clock.ranks[rank].shift_ns if rank in run.clock.ranks else 0,
            "session_start_utc_ns": s.session_start_utc_ns,
            "nsys_version": s.nsys_version,
            **s.extras,
        })
    return out


def step_rows(run: RunAnalysis) -> list[dict[str, Any]]:
    """Per step: the rank that arrived last (the most lateness summed over the step's
    collectives), its lateness and every rank's wait."""
    steps = run.step_waits
    if not steps.height:
        return []
    latest = (steps.sort(["step", "late_ns", "rank"], descending=[False, True, False])
              .group_by("step", maintain_order=True)
              .agg(pl.col("collectives").max(), pl.col("rank").first().alias("last_rank"),
                   pl.col("late_ns").first()))
    waits = (steps.with_columns(pl.col("rank").cast(pl.String))
             .group_by("step", maintain_order=True)
             .agg(pl.struct("rank", "wait_ns").alias("w")))
    rows = latest.join(waits, on="step", how="left", maintain_order="left")
    return [{"step": r["step"], "collectives": r["collectives"], "last_rank": r["last_rank"],
             "late_ns": r["late_ns"], "wait_ns": {w["rank"]: w["wait_ns"] for w in r["w"]}}
            for r in rows.iter_rows(named=True)]


def _straggler(run: RunAnalysis) -> dict[str, Any] | None:
    s = run.straggler
    if s is None:
        return None
    return {
        "file": s.file, "rank": s.rank, "late_ns_per_step": s.late_ns_per_step,
        "delay_ns_per_step": s.delay_ns_per_step, "last_count": s.last_count,
        "collectives": s.collectives, "verdict": straggler_verdict(s),
        "steps": _rows(s.steps), "instead": _rows(s.instead), "cpu_calls": _rows(s.cpu_calls),
        "compared_with": run.extra.get("compared_with"),
    }


def _families(run: RunAnalysis) -> list[dict[str, Any]]:
    per = run.extra.get("per_rank_families")
    by_name: dict[str, list[dict[str, Any]]] = {}
    if isinstance(per, pl.DataFrame) and per.height:
        for row in per.sort("rank").iter_rows(named=True):
            by_name.setdefault(row["name"], []).append(
                {k: row[k] for k in ("rank", "instances", "min_ns", "med_ns", "max_ns")})
    return [{**row, "per_rank": by_name.get(row["name"], [])} for row in _rows(run.families)]


def collective_rows(run: RunAnalysis) -> list[dict[str, Any]]:
    """Per collective matched across ranks: who arrived last, how late, the longest wait and
    how far apart the ranks left it."""
    calls = run.collectives
    if not calls.height:
        return []
    rows = (calls.sort(["match", "last", "rank"], descending=[False, True, False])
            .group_by("match", maintain_order=True).agg(
                pl.col("op").first(), pl.col("key").first(), pl.col("ranks").first(),
                pl.col("rank").first().alias("last_rank"), pl.col("late_ns").first(),
                pl.col("wait_ns").max(),
                (pl.col("exit").max() - pl.col("exit").min()).alias("exit_spread_ns")))
    return rows.to_dicts()


def _clock_ranks(run: RunAnalysis) -> dict[str, dict[str, Any]]:
    return {str(r): {"shift_ns": c.shift_ns, "estimate_ns": c.estimate_ns,
                     "residual_ns": c.residual_ns, "pairs": c.pairs, "how": c.how}
            for r, c in run.clock.ranks.items()}


def to_export_dict(run: RunAnalysis, *, columns: int = HEATMAP_COLUMNS) -> dict[str, Any]:
    """The whole run as one JSON-serialisable dict (schema ``kernelscope/ranks/2``)."""
    clock = run.clock
    cells = heatmap(run, width=columns)
    # The per-step rows and the heatmap hold only integers and finite floats (one value per
    # rank and step: the bulk of a long run's document), so only the rest goes through
    # json_safe.
    doc = json_safe({
        "schema": SCHEMA,
        "run": {
            "traces": sorted({s.file for s in run.ranks.values()}),
            "trace_kind": run.extra.get("trace_kind"),
            "rank_source": run.rank_source, "comm_source": run.comm_source,
            "executor": run.extra.get("executor"), "t0_ns": run.t0, "t1_ns": run.t1,
            "clock": {"method": clock.method, "safe": clock.safe, "note": clock.note,
                      "hosts": clock.hosts, "exit_spread_ns": clock.exit_spread_ns,
                      "offsets_ns": {str(k): v for k, v in clock.offsets_ns.items()},
                      "ranks": _clock_ranks(run),
                      "collectives_paired_by": run.extra.get("paired_by")},
            "verdict": run.verdict.id,
            "notes": [note_text(n) for n in run.notes],
        },
        "ranks": rank_rows(run),
        "straggler": _straggler(run),
        "straggler_note": straggler_note(run.verdict),
        "steps": [],
        "families": _families(run),
        "slow_ranks": _rows(run.slow_ranks),
        "collectives": collective_rows(run),
    })
    doc["steps"] = step_rows(run)
    doc["heatmap"] = {"t0_ns": run.t0, "t1_ns": run.t1, "columns": columns,
                      "ranks": {str(r): [round(100 * v, 1) for v in vals]
                                for r, vals in cells.items()}}
    return doc
