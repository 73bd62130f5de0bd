"""The run's critical path in the ranks JSON and Markdown (``critical_path``): every rank's
graph joined at the collectives (``analysis/run_whatif.py``, docs/critical_path.md).

    "critical_path": {"available": true, "median_step_ns", "kinds", "top", "families"
                      (as a timeline's, over every rank's steps),
                      "ranks": [{rank, steps, median_step_ns, collectives,
                                 collective_wait_ns}]}
    "critical_path": {"available": false, "reason": "one sentence"}
"""

from __future__ import annotations

from typing import Any

import polars as pl

from kernelscope.core.durations import fmt_ns
from kernelscope.core.errors import ReportError
from kernelscope.core.units import EMPTY_CELL
from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.analysis.run_whatif import run_model
from kernelscope.timeline.export.critical_text import path_doc, path_markdown, path_names

EXPORT_KERNELS = 500_000
"""The ranks export reads a run whole for its critical path up to this many kernels over all
its ranks (the run's graph holds every rank's events at once: a what-if of one trace peaks at
about 6 kB per kernel);
``kernelscope whatif RUN_DIR`` has no such bound."""


def critical_path_member(run: RunAnalysis) -> dict[str, Any]:
    """The ``critical_path`` member of the run's JSON."""
    kernels = sum(summary.kernels for summary in run.ranks.values())
    if kernels > EXPORT_KERNELS:
        return {"available": False, "reason": (
            f"The run's {kernels:,} kernels are more than the ranks export reads whole for the "
            f"critical path ({EXPORT_KERNELS:,}); 'kernelscope whatif RUN_DIR --faster ...' "
            "computes it.")}
    try:
        model = run_model(run)
    except ReportError as exc:
        return {"available": False, "reason": str(exc)}
    cp = model.critical_path
    steps = cp.steps.group_by("rank").agg(pl.len().alias("steps"),
                                          pl.col("step_ns").median().alias("median_step_ns"))
    waits = model.waits().select("rank", pl.col("calls").alias("collectives"),
                                 pl.col("measured_ns").alias("collective_wait_ns"))
    ranks = steps.join(waits, on="rank", how="full", coalesce=True).sort("rank").with_columns(
        pl.col("median_step_ns").round().cast(pl.Int64))
    return {"available": True, **path_doc(cp, path_names(cp)), "ranks": ranks.to_dicts(),
            "_path": cp}


def critical_path_lines(member: dict[str, Any]) -> list[str]:
    """The Markdown section of the ``critical_path`` member."""
    lines = ["## Critical path of the run", ""]
    if not member["available"]:
        return [*lines, member["reason"], ""]
    lines += ["Every rank's steps, its ranks joined at the collectives (a collective ends when "
              "its last rank arrives).", "", "| Rank | Steps | Median step | Collectives | "
              "Waited at them |", "|---:|---:|---:|---:|---:|"]
    for row in member["ranks"]:
        step = row["median_step_ns"]
        lines.append(f"| {row['rank']} | {row['steps'] or 0} | "
                     f"{fmt_ns(step) if step is not None else EMPTY_CELL} | "
                     f"{row['collectives'] or 0} | {fmt_ns(row['collective_wait_ns'] or 0)} |")
    cp = member["_path"]
    return [*lines, "", *path_markdown(cp, path_names(cp)), ""]


def without_path(member: dict[str, Any]) -> dict[str, Any]:
    """The member as JSON (the critical path object left out)."""
    return {k: v for k, v in member.items() if k != "_path"}
