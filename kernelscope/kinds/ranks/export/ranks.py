"""The ranks kind's renderers: ``kernelscope export DIR`` and ``kernelscope summary DIR``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from kernelscope.core.words import plural
from kernelscope.kinds.ranks.analysis.model import RunAnalysis
from kernelscope.kinds.ranks.export.ranks_json import to_export_dict
from kernelscope.kinds.ranks.render.ranks import (
    duration,
    gap_summary,
    kernel_names,
    kernel_text,
    pct,
)

if TYPE_CHECKING:
    from rich.console import Console

    from kernelscope.export.writer import ExportOptions


def render_run_json(run: RunAnalysis, options: ExportOptions) -> str:
    """``--format json``: the ``kernelscope/ranks/2`` document, with the run's critical
    path (``ranks_critical.py``)."""
    from kernelscope.kinds.ranks.export.ranks_critical import critical_path_member, without_path

    doc = to_export_dict(run)
    doc["critical_path"] = without_path(critical_path_member(run))
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def render_run_md(run: RunAnalysis, options: ExportOptions) -> str:
    from kernelscope.kinds.ranks.export.ranks_critical import (
        critical_path_lines,
        critical_path_member,
    )
    from kernelscope.kinds.ranks.export.ranks_markdown import render_ranks_markdown

    text = render_ranks_markdown(to_export_dict(run), top=options.top)
    return text + "\n" + "\n".join(critical_path_lines(critical_path_member(run)))


def render_run_csv(run: RunAnalysis, options: ExportOptions) -> str:
    from kernelscope.kinds.ranks.export.ranks_markdown import render_ranks_csv

    return render_ranks_csv(to_export_dict(run))


def print_run_summary(run: RunAnalysis, console: Console) -> None:
    """The kind's ``summary`` part: ranks side by side, the straggler, slower kernels."""
    from rich.table import Table  # rich only where text is printed: not for the exports

    from kernelscope.export.summary import table_box
    from kernelscope.kinds.ranks.export.ranks_markdown import step_sources

    doc = to_export_dict(run)
    info = doc["run"]
    console.print(f"[bold]{plural(len(doc['ranks']), 'rank')}[/] from "
                  f"{plural(len(info['traces']), 'trace')}; "
                  f"ranks numbered from {info['rank_source']}; communication from "
                  f"{info['comm_source'] or 'none found'}")
    console.print(f"Steps from: {step_sources(doc)}", markup=False, highlight=False)
    console.print(f"Clock: {info['clock']['note']}", markup=False, highlight=False)
    t = Table(box=table_box(console), show_edge=False, pad_edge=False)
    for col in ("Rank", "Steps", "Step time", "GPU busy", "Comm", "Overlap", "Wait/step",
                "Late/step", "Last at", "Idle gaps"):
        t.add_column(col, justify="left" if col == "Idle gaps" else "right")
    for r in doc["ranks"]:
        t.add_row(str(r["rank"]), str(r["steps"]), duration(r["step_time_ns"]),
                  pct(r["gpu_busy_pct"]), duration(r["comm_ns"]), pct(r["overlap_pct"]),
                  duration(r["wait_ns_per_step"]), duration(r["late_ns_per_step"]),
                  f"{r['last_count']}/{r['collectives']}", gap_summary(r["gaps"], 2))
    console.print(t)
    s = doc["straggler"]
    console.print(f"Straggler: {s['verdict']}" if s else doc["straggler_note"], markup=False,
                  highlight=False)
    if s and s["cpu_calls"]:
        top = s["cpu_calls"][0]
        console.print(f"  its thread's top call before arriving: {top['source']} "
                      f"{top['name']} {duration(top['ns'])} over {top['calls']} call(s) "
                      f"(rank {s.get('compared_with')}: {duration(top.get('others_ns'))})",
                      markup=False, highlight=False)
    for r in doc["slow_ranks"]:
        if r["slow"]:
            console.print(f"Slower GPU: rank {r['rank']}'s kernels run {r['ratio']:.2f}x the "
                          f"other ranks' median over {r['families']} common kernels",
                          markup=False, highlight=False)
    names = kernel_names(doc)
    for f in doc["families"]:
        if f["flagged"]:
            name = kernel_text(names, f["name"], 60)
            console.print(f"Slower kernel on rank {f['slowest_rank']}: "
                          f"{name} {f['ratio']:.2f}x the others' median",
                          markup=False, highlight=False)
    for n in info["notes"]:
        console.print(f"Note: {n}", markup=False, highlight=False)
