"""A run of per-rank Kineto traces in each export format, and its ``summary``."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console

from kernelscope.core.durations import fmt_duration
from kernelscope.core.jsonsafe import json_safe
from kernelscope.core.shares import fmt_percent
from kernelscope.core.units import EMPTY_CELL
from kernelscope.export.writer import ExportOptions
from kernelscope.kinds.kineto.analysis.ranks import KinetoRun
from kernelscope.kinds.kineto.export.kineto_export import hta_doc

SCHEMA = "kernelscope/kineto-run/1"


def run_doc(run: KinetoRun) -> dict[str, Any]:
    straggler = run.straggler
    return json_safe({  # type: ignore[no-any-return]
        "schema": SCHEMA, "world_size": run.world_size, "collectives_from": run.source,
        "clock": run.clock,
        "ranks": [{"rank": r.rank, "path": str(r.path), "shift_ns": r.shift_ns,
                   "steps": r.steps, "step_ns": r.step_ns, "comm_ns": r.comm_ns,
                   **hta_doc(r.hta)} for r in run.ranks],
        "straggler": None if straggler is None else {
            "rank": straggler[0], "collectives_last": straggler[1],
            "median_late_ns": straggler[2]},
        "heatmap": {"t0_ns": run.t0_ns, "t1_ns": run.t1_ns,
                    "busy_pct": {str(r): [round(100 * v, 1) for v in row]
                                 for r, row in run.heatmap.items()}},
        "collectives": [{"index": c.index, "name": c.name, "straggler": c.straggler,
                         "late_by_ns": c.late_by_ns,
                         "waits_ns": {str(k): v for k, v in c.waits_ns.items()}}
                        for c in run.collectives],
    })


def run_markdown(run: KinetoRun) -> str:
    lines = [f"# Run of {len(run.ranks)} ranks (PyTorch profiler traces)", "",
             f"Clocks {run.clock}; collectives read from {run.source}.", "",
             "| rank | step (median) | communication | idle | compute | comm/comp overlap | "
             "clock shift |", "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in run.ranks:
        t = r.hta.temporal
        overlap = EMPTY_CELL if r.hta.overlap_pct is None else fmt_percent(r.hta.overlap_pct, 2)
        lines.append(
            f"| {r.rank} | {fmt_duration(r.step_ns) if r.step_ns else EMPTY_CELL} | "
            f"{fmt_duration(r.comm_ns)} | {fmt_percent(t.idle_pct, 2) if t else EMPTY_CELL} | "
            f"{fmt_percent(t.compute_pct, 2) if t else EMPTY_CELL} | {overlap} | "
            f"{fmt_duration(r.shift_ns)} |")
    straggler = run.straggler
    if straggler is not None:
        lines += ["", f"Straggler: rank {straggler[0]}, last at {straggler[1]} of "
                  f"{len(run.collectives)} collectives, late by {fmt_duration(straggler[2])} "
                  "(median)."]
    lines += heatmap_lines(run)
    ranks = [r.rank for r in run.ranks]
    lines += ["", "| # | collective | straggler | late by | " + " | ".join(
        f"rank {r} waits" for r in ranks) + " |", "| ---: | --- | ---: | ---: |"
        + " ---: |" * len(ranks)]
    for c in run.collectives:
        waits = " | ".join(fmt_duration(c.waits_ns[r]) for r in ranks)
        lines.append(f"| {c.index} | {c.name} | {c.straggler} | {fmt_duration(c.late_by_ns)} | "
                     f"{waits} |")
    return "\n".join(lines) + "\n"


SHADES = " ░▒▓█"


def heatmap_lines(run: KinetoRun) -> list[str]:
    """Rank × time: each rank's GPU busy share per column (blank idle, █ busy)."""
    if not run.heatmap:
        return []
    lines = ["", f"GPU busy per rank over {fmt_duration(run.t1_ns - run.t0_ns)} "
             "(aligned clock; blank idle, █ busy):", "", "```text"]
    for rank, row in run.heatmap.items():
        cells = "".join(SHADES[min(int(v * (len(SHADES) - 1) + 0.5), len(SHADES) - 1)]
                        for v in row)
        lines.append(f"rank {rank:>3} |{cells}|")
    return [*lines, "```"]


def render_kineto_run_json(run: KinetoRun, options: ExportOptions) -> str:
    return json.dumps(run_doc(run), indent=2) + "\n"


def render_kineto_run_md(run: KinetoRun, options: ExportOptions) -> str:
    return run_markdown(run)


def render_kineto_run_csv(run: KinetoRun, options: ExportOptions) -> str:
    """A row per rank: its step, communication and HTA's temporal breakdown."""
    rows = ["rank,step_ns,comm_ns,idle_ns,compute_ns,non_compute_ns,kernel_ns,"
            "comm_comp_overlap_pct,shift_ns"]
    for r in run.ranks:
        t = r.hta.temporal
        ns = t.as_ns() if t else {}
        rows.append(",".join(str(v) if v is not None else "" for v in (
            r.rank, r.step_ns, r.comm_ns, ns.get("idle_ns"), ns.get("compute_ns"),
            ns.get("non_compute_ns"), ns.get("kernel_ns"), r.hta.overlap_pct, r.shift_ns)))
    return "\n".join(rows) + "\n"


def print_kineto_run_summary(run: KinetoRun, console: Console) -> None:
    console.print(run_markdown(run), markup=False, highlight=False)
