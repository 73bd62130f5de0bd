"""A run of many ranks as Markdown (from the ``kernelscope/ranks/2`` document, or a
``ranks/1`` one) and CSV."""

from __future__ import annotations

from typing import Any

from kernelscope.core.units import NOT_AVAILABLE, fmt_number
from kernelscope.core.words import plural
from kernelscope.export.csv_text import csv_text
from kernelscope.export.markdown import code, fenced, inline, table
from kernelscope.kinds.ranks.render.ranks import (
    GAP_CAUSES_SHOWN,
    duration,
    gap_summary,
    heatmap_lines,
    kernel_names,
    kernel_text,
    pct,
    ramp_legend,
)
from kernelscope.timeline.export.timeline_markdown import cause_legend
from kernelscope.timeline.model.profilers import NSYS

NAME_WIDTH = 48
MAX_RANK_COLUMNS = 16
MAX_ROWS = 50


def _rank_table(doc: dict[str, Any]) -> str:
    return table(
        ("Rank", "File", "Steps", "Step time", "GPU busy", "Comm", "Overlap", "Wait/step",
         "Late/step", "Last at", "Idle gaps (largest causes)"),
        ((r["rank"], r["file"].rsplit("/", 1)[-1], r["steps"], duration(r["step_time_ns"]),
          pct(r["gpu_busy_pct"]), duration(r["comm_ns"]), pct(r["overlap_pct"]),
          duration(r["wait_ns_per_step"]), duration(r["late_ns_per_step"]),
          f"{r['last_count']} of {r['collectives']}", gap_summary(r["gaps"]))
         for r in doc["ranks"]),
        "rlrrrrrrrrl",
    )


def _straggler_lines(doc: dict[str, Any]) -> list[str]:
    s = doc["straggler"]
    if s is None:
        return ["## Straggler", "", inline(doc["straggler_note"] or "No straggler."), ""]
    lines = [f"## Straggler: rank {s['rank']}", "", inline(s["verdict"]), "",
             f"- Trace: {code(s['file'])}",
             f"- Median lateness per step: {duration(s['late_ns_per_step'])} after the other "
             f"ranks' median arrival; it alone held the collective up by a median "
             f"{duration(s['delay_ns_per_step'])} (its arrival minus the next latest).",
             "", "### What it did before arriving", "",
             "Median per collective over its lead-ins (from its previous communication call "
             "to its arrival), against the median of the other ranks.", "",
             table(("What", "Rank " + str(s["rank"]), "Others", "Extra"),
                   ((_what(i), duration(i["ns"]), duration(i["others_ns"]),
                     duration(i["extra_ns"])) for i in s["instead"]), "lrrr"), ""]
    if s["cpu_calls"]:
        other = s.get("compared_with")
        lines += ["### CPU calls in its lead-ins", "",
                  "OS runtime and CUDA API calls of its calling thread during its lead-ins to "
                  "the collectives it was latest at"
                  + (f", against rank {other} at the same collectives." if other is not None
                     else "."), "",
                  table(("Source", "Call", "Calls", "Time", f"Rank {other}" if other is not None
                         else "Others"),
                        ((c["source"], c["name"], fmt_number(c["calls"]), duration(c["ns"]),
                          duration(c.get("others_ns"))) for c in s["cpu_calls"]), "llrrr"),
                  ""]
    return lines


def _what(item: dict[str, Any]) -> str:
    if item["what"] == "window":
        return "lead-in (previous call to arrival)"
    if item["what"] == "gpu":
        return "GPU busy in the lead-in"
    return f"NVTX {item['name']}"


def _steps_lines(doc: dict[str, Any]) -> list[str]:
    steps = doc["steps"]
    if not steps:
        return []
    ranks = [r["rank"] for r in doc["ranks"]][:MAX_RANK_COLUMNS]
    shown = steps[:MAX_ROWS]
    lines = ["## Waiting at the collectives, per step", "",
             "Wait: the time a rank spent in the step's collectives waiting for the last rank "
             "(last arrival minus its arrival).", "",
             table(("Step", "Last", "Late by", *(f"Wait r{r}" for r in ranks)),
                   ((s["step"], s["last_rank"], duration(s["late_ns"]),
                     *(duration(s["wait_ns"].get(str(r))) for r in ranks)) for s in shown),
                   "r" * (3 + len(ranks))), ""]
    if len(steps) > len(shown):
        lines += [f"Showing {len(shown)} of {len(steps)} steps.", ""]
    return lines


def _families_lines(doc: dict[str, Any], top: int) -> list[str]:
    fams = doc["families"]
    lines = ["## Kernel families across ranks", "",
             "Per kernel name: min / median / max over all ranks (median: of the ranks' "
             "medians); the slowest rank's median against the others'.", ""]
    if not fams:
        return [*lines, "No kernels.", ""]
    names = kernel_names(doc)
    lines += [table(("Kernel", "Ranks", "Instances", "Min", "Median", "Max", "Slowest",
                     "Ratio", "Flag"),
                    ((kernel_text(names, f["name"], NAME_WIDTH), f["ranks"],
                      fmt_number(f["instances"]),
                      duration(f["min_ns"]), duration(f["med_ns"]), duration(f["max_ns"]),
                      f["slowest_rank"], f"{f['ratio']:.2f}x" if f["ratio"] else NOT_AVAILABLE,
                      "communication" if f["comm"] else ("SLOWER" if f["flagged"] else ""))
                     for f in fams[:top]), "lrrrrrrrl"), ""]
    for f in fams:
        if f["flagged"]:
            lines += [f"Per rank, {code(kernel_text(names, f['name'], NAME_WIDTH))}:", "",
                      table(("Rank", "Instances", "Min", "Median", "Max"),
                            ((p["rank"], p["instances"], duration(p["min_ns"]),
                              duration(p["med_ns"]), duration(p["max_ns"]))
                             for p in f["per_rank"]), "rrrrr"), ""]
    slow = [r for r in doc["slow_ranks"] if r["slow"]]
    for r in slow:
        lines += [f"Rank {r['rank']}'s kernels run {r['ratio']:.2f}x the other ranks' median "
                  f"over {r['families']} common kernels: a slower GPU (clocks, power or "
                  "thermal throttling) or different work; compare `nvidia-smi -q -d "
                  "CLOCK,PERFORMANCE` on its GPU.", ""]
    return lines


def step_sources(doc: dict[str, Any]) -> str:
    """Where each rank's steps came from: ``nvtx (ranks 0, 1)``, ``kernel pattern (rank 2)``."""
    by: dict[str, list[str]] = {}
    for r in doc["ranks"]:
        by.setdefault(r.get("step_source") or "none found", []).append(str(r["rank"]))
    if len(by) == 1:
        return next(iter(by))
    return "; ".join(f"{k} (rank{'s' if len(v) > 1 else ''} {', '.join(v)})"
                     for k, v in by.items())


def render_ranks_markdown(doc: dict[str, Any], *, top: int | None = None) -> str:
    """Markdown for a ``kernelscope/ranks/2`` (or ``/1``) document."""
    run = doc["run"]
    clock = run["clock"]
    traces = run["traces"]
    top_n = top if top is not None else 20
    lines = [f"# Ranks report: {plural(len(doc['ranks']), 'rank')}", ""]
    if len(traces) <= 8:
        lines += [f"- Traces: {', '.join(code(t) for t in traces)}"]
    else:
        lines += [f"- Traces: {len(traces)} files, e.g. {code(traces[0])}"]
    lines += [
        f"- Ranks numbered from {inline(run['rank_source'])}",
        f"- Clock: {inline(clock['note'])}"
        + (f" Collective exits spread a median {duration(clock['exit_spread_ns'])} across "
           "ranks." if clock["exit_spread_ns"] is not None else "")
        + ("" if clock["safe"] else " **Alignment unsafe.**"),
        f"- Communication from: {inline(run['comm_source'] or 'none found')}",
        f"- Steps from: {inline(step_sources(doc))}",
        *(f"- Note: {inline(n)}" for n in run["notes"]),
        "", "## Ranks", "", _rank_table(doc), "",
        "Comm: time in communication (NCCL kernels, or the collective's MPI call / NVTX "
        "range); Overlap: the share of it during which compute kernels ran; Wait/step and "
        "Late/step: medians per step.", "",
        *cause_legend((g["cause"] for r in doc["ranks"] for g in r["gaps"][:GAP_CAUSES_SHOWN]),
                      run.get("trace_kind") or NSYS),
        "",
    ]
    lines += _straggler_lines(doc)
    lines += _steps_lines(doc)
    lines += _families_lines(doc, top_n)
    heat = doc["heatmap"]
    cells = {int(r): [v / 100 for v in vals] for r, vals in heat["ranks"].items()}
    mark = doc["straggler"]["rank"] if doc["straggler"] else None
    lines += ["## GPU utilisation, rank by time", "",
              f"{heat['columns']} columns over {duration(heat['t1_ns'] - heat['t0_ns'])} of "
              f"the common clock; {ramp_legend()}; * marks the straggler.", "",
              fenced("\n".join(heatmap_lines(cells, mark=mark))), ""]
    return "\n".join(lines).rstrip() + "\n"


CSV_COLUMNS = ("rank", "file", "pid", "host", "kernels", "steps", "step_source", "step_time_ns",
               "gpu_busy_pct", "gpu_busy_ns", "comm_source", "comm_ns", "compute_ns",
               "overlap_ns", "overlap_pct", "collectives", "wait_ns", "wait_ns_per_step",
               "late_ns_per_step", "last_count", "clock_offset_ns", "gaps")


def render_ranks_csv(doc: dict[str, Any]) -> str:
    """One row per rank: the overview's numbers (gaps as ``cause=ns`` pairs)."""
    return csv_text(CSV_COLUMNS, (
        [r.get(c) for c in CSV_COLUMNS[:-1]]
        + [";".join(f"{g['cause']}={g['ns']}" for g in r["gaps"])]
        for r in doc["ranks"]
    ))
