"""The ranks screen's tables: each view's columns, and its frame made from the run's export
document (``export.ranks_json.to_export_dict``), the same numbers ``kernelscope ranks``
writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from kernelscope.kinds.ranks.render.ranks import duration, gap_summary, pct
from kernelscope.timeline.screens.widgets.timeline_table import Column

MAX_WAIT_COLUMNS = 16


def _ns(value: Any) -> str:
    return duration(value)


def rank_frame(doc: dict[str, Any]) -> pl.DataFrame:
    rows = [{
        "rank": r["rank"], "file": r["file"], "pid": r["pid"], "host": r["host"],
        "devices": ", ".join(r["devices"]), "steps": r["steps"],
        "step_time_ns": r["step_time_ns"], "gpu_busy_pct": r["gpu_busy_pct"],
        "comm_ns": r["comm_ns"], "overlap_pct": r["overlap_pct"],
        "wait_ns_per_step": r["wait_ns_per_step"], "late_ns_per_step": r["late_ns_per_step"],
        "last": f"{r['last_count']}/{r['collectives']}", "gaps": gap_summary(r["gaps"], 2),
    } for r in doc["ranks"]]
    return pl.DataFrame(rows, infer_schema_length=None)


RANK_COLUMNS = (
    Column("rank", "Rank", str), Column("steps", "Steps", str, priority=4),
    Column("step_time_ns", "Step time", _ns),
    Column("gpu_busy_pct", "GPU busy", pct), Column("comm_ns", "Comm", _ns),
    Column("overlap_pct", "Overlap", pct, priority=3),
    Column("wait_ns_per_step", "Wait/step", _ns),
    Column("late_ns_per_step", "Late/step", _ns, priority=1),
    Column("last", "Last at", str, priority=2),
    Column("gaps", "Idle gaps by cause", str, numeric=False, flex=True),
)


def describe_rank(row: dict[str, Any]) -> str:
    """The status line under the ranks table: where the highlighted rank came from."""
    parts = [f"rank {row['rank']}: {Path(row['file']).name}"]
    if row.get("pid"):
        parts.append(f"pid {row['pid']}")
    if row.get("host"):
        parts.append(f"host {row['host']}")
    if row.get("devices"):
        parts.append(str(row["devices"]))
    return " · ".join(parts)


def steps_frame(doc: dict[str, Any]) -> tuple[pl.DataFrame, list[Column]]:
    ranks = [r["rank"] for r in doc["ranks"]][:MAX_WAIT_COLUMNS]
    rows = []
    for s in doc["steps"]:
        row = {"step": s["step"], "last_rank": s["last_rank"], "late_ns": s["late_ns"]}
        row.update({f"w{r}": s["wait_ns"].get(str(r)) for r in ranks})
        rows.append(row)
    columns = [Column("step", "Step", str), Column("last_rank", "Last", str),
               Column("late_ns", "Late by", _ns),
               *(Column(f"w{r}", f"Wait r{r}", _ns) for r in ranks)]
    schema = {"step": pl.Int64, "last_rank": pl.Int64, "late_ns": pl.Float64,
              **{f"w{r}": pl.Int64 for r in ranks}}
    return pl.DataFrame(rows, schema=schema), columns


def _what(row: dict[str, Any]) -> str:
    return {"window": "lead-in", "gpu": "GPU busy"}.get(row["what"], f"NVTX {row['name']}")


INSTEAD_COLUMNS = (Column("item", "Before arriving", str, numeric=False, flex=True),
                   Column("ns", "Straggler", _ns), Column("others_ns", "Others", _ns),
                   Column("extra_ns", "Extra", _ns))
CPU_COLUMNS = (Column("source", "Source", str, numeric=False),
               Column("name", "Call", str, numeric=False, flex=True),
               Column("calls", "Calls", str), Column("ns", "Time", _ns),
               Column("others_ns", "Compared rank", _ns))
FAMILY_COLUMNS = (
    Column("name", "Kernel", str, numeric=False, flex=True, kernel_names=True),
    Column("ranks", "Ranks", str, priority=4),
    Column("instances", "Instances", lambda v: f"{v:,}", priority=3),
    Column("total_ns", "Total", _ns),
    Column("min_ns", "Min", _ns, priority=2), Column("med_ns", "Median", _ns),
    Column("max_ns", "Max", _ns, priority=1),
    Column("slowest_rank", "Slowest", str),
    Column("ratio", "Ratio", lambda v: f"{v:.2f}x"),
    Column("flag", "Flag", str, numeric=False),
)


def instead_frame(doc: dict[str, Any]) -> pl.DataFrame:
    """What the straggler did before arriving, against the others."""
    s = doc["straggler"]
    return pl.DataFrame(
        [{"item": _what(i), "ns": i["ns"], "others_ns": i["others_ns"],
          "extra_ns": i["extra_ns"]} for i in (s["instead"] if s else [])],
        schema={"item": pl.String, "ns": pl.Float64, "others_ns": pl.Float64,
                "extra_ns": pl.Float64})


def cpu_frame(doc: dict[str, Any]) -> pl.DataFrame:
    """The straggler thread's CPU calls in its lead-ins."""
    s = doc["straggler"]
    return pl.DataFrame(s["cpu_calls"] if s and s["cpu_calls"] else [],
                        schema={"source": pl.String, "name": pl.String, "calls": pl.Int64,
                                "ns": pl.Int64, "others_ns": pl.Int64})


def families_frame(doc: dict[str, Any]) -> pl.DataFrame:
    """The kernel families across ranks, with their flag."""
    return pl.DataFrame([{
        **{k: f[k] for k in ("name", "ranks", "instances", "total_ns", "min_ns", "med_ns",
                             "max_ns", "slowest_rank", "ratio")},
        "flag": "communication" if f["comm"] else ("SLOWER" if f["flagged"] else ""),
    } for f in doc["families"]], infer_schema_length=None)
