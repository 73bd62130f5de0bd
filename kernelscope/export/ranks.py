"""Headless output for a run of many ranks: ``kernelscope export DIR`` and ``summary DIR``."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from kernelscope.parsers.errors import ReportError


@dataclass(frozen=True)
class RunOptions:
    """How to read the run (the CLI's ``--workers``, ``--scheduler``, ``--cache-dir``)."""

    workers: int | None = None
    scheduler: str | None = None
    cache_dir: Path | None = None


def run_document(inputs: Sequence[str | os.PathLike[str]], options: RunOptions) -> dict[str, Any]:
    """Analyse the run and return its ``kernelscope/ranks/1`` document."""
    from kernelscope.export.ranks_json import to_export_dict
    from kernelscope.parsers.ranks.reduce import ReduceOptions
    from kernelscope.parsers.ranks.run import analyse_run

    reduce = ReduceOptions(cache_dir=str(options.cache_dir) if options.cache_dir else None)
    run = analyse_run(inputs, options=reduce, workers=options.workers,
                      scheduler=options.scheduler)
    return to_export_dict(run)


def render_document(doc: dict[str, Any], fmt: str, *, top: int | None = None) -> str:
    """``doc`` as JSON, Markdown or CSV."""
    if fmt == "json":
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    if fmt == "md":
        from kernelscope.export.ranks_markdown import render_ranks_markdown

        return render_ranks_markdown(doc, top=top)
    if fmt == "csv":
        from kernelscope.export.ranks_markdown import render_ranks_csv

        return render_ranks_csv(doc)
    raise ReportError(f"Unknown export format {fmt!r}; choose one of json, md, csv.")


def render_run(inputs: Sequence[str | os.PathLike[str]], fmt: str, options: RunOptions,
               *, top: int | None = None) -> str:
    if fmt not in ("json", "md", "csv"):
        render_document({}, fmt)
    return render_document(run_document(inputs, options), fmt, top=top)


def print_run_summary(inputs: Sequence[str | os.PathLike[str]], options: RunOptions,
                      file: IO[str] | None = None) -> None:
    """The run's essentials as tables (plain text for pipes)."""
    from rich.table import Table

    from kernelscope.export.summary import _box, make_console
    from kernelscope.render.format import short_name
    from kernelscope.render.ranks import duration, gap_summary, pct

    doc = run_document(inputs, options)
    console = make_console(file)
    run = doc["run"]
    console.print(f"[bold]{len(doc['ranks'])} ranks[/] from {len(run['traces'])} trace(s); "
                  f"ranks numbered from {run['rank_source']}; communication from "
                  f"{run['comm_source'] or 'none found'}")
    console.print(f"Clock: {run['clock']['note']}", markup=False, highlight=False)
    t = Table(box=_box(console), show_edge=False, pad_edge=False)
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
    for f in doc["families"]:
        if f["flagged"]:
            console.print(f"Slower kernel on rank {f['slowest_rank']}: "
                          f"{short_name(f['name'], 60)} {f['ratio']:.2f}x the others' median",
                          markup=False, highlight=False)
    for n in run["notes"]:
        console.print(f"Note: {n}", markup=False, highlight=False)
