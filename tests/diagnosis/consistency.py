"""Rules every kernel's exported JSON entry must keep (issue 35): the words agree with their
evidence. Each rule reads the entry as ``kernelscope export --format json`` writes it, so a new
sentence anywhere in the diagnosis is checked without naming it here.

- no sentence says a unit is idle ("neither compute nor memory is busy", "no unit is busy")
  while the kernel's evidence or metrics show a unit or pipe at least ``pipe_busy_pct`` busy;
- no sentence about the grid says SMs get no block while the grid has a block for every SM,
  and such a grid is never launch-bound for its size;
- no flag above ``info`` on a kernel (or family) under ``minor_time_share`` of the time;
- the top flag is stated with the rule that chose it;
- no coalescing flag rests on local (spill) traffic: its evidence reads global counters only
  (the excessive-sector share recomputed from the global sectors), and the NCU rule it quotes
  is not one of the local access-pattern rules;
- a kernel NCU failed to profile shows NCU's launch values (checked against the CLI's raw page
  in ``tests/wild``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kernelscope.kinds.ncu.analysis.diagnosis import DEFAULT_THRESHOLDS as T
from kernelscope.kinds.ncu.analysis.diagnosis.verdict import (
    METHOD_ORDER,
    NCU_ESTIMATE,
    ONLY_FLAG,
    VERDICT,
)
from tests.exports import export_json

IDLE_CLAIMS = ("neither compute nor memory is busy", "no unit is busy")
NO_BLOCK_CLAIMS = (
    "get no block",
    "gets no block",
    "without a block",
    "at least one block per sm",
    "too few blocks to fill",
    "most sms",
)
UNIT_PREFIXES = (
    "sm__throughput",
    "gpu__compute_memory_throughput",
    "gpu__dram_throughput",
    "dram__throughput",
    "l1tex__throughput",
    "lts__throughput",
    "sm__pipe_",
    "sm__inst_executed_pipe_",
)
"""Metrics that say how busy a unit or pipe is (occupancy and issue slots are not units)."""
CHOSEN_BY = (NCU_ESTIMATE, VERDICT, METHOD_ORDER, ONLY_FLAG)
SEVERITY_RANK = {"info": 0, "warning": 1, "critical": 2}


def exported(path: Path) -> dict[str, Any]:
    """The report's JSON document, as the export writes it (``tests/exports.py``: rendered
    once per test process)."""
    return export_json(path)


def sentences(entry: dict[str, Any]) -> Iterator[str]:
    """Every sentence the entry's diagnosis says: summary, flags, guard rails, notes."""
    yield entry["bottleneck"]["summary"]
    for flag in entry["flags"]:
        yield from (flag["detail"] or "", flag["remedy"] or "", flag["guard"] or "")
    for guard in entry["guard_rails"]:
        yield guard["text"]
    yield from entry["notes"]
    if entry["top_flag"]:
        yield entry["top_flag"]["why"]


def _evidence(entry: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield from entry["bottleneck"]["evidence"]
    for flag in entry["flags"]:
        yield from flag["evidence"]
    for guard in entry["guard_rails"]:
        yield from guard["evidence"]


def busy_units(entry: dict[str, Any]) -> list[tuple[str, float]]:
    """(metric, %) of each unit or pipe that the entry's evidence or its ``…_active`` and
    Speed Of Light metrics show at least ``pipe_busy_pct`` busy (noise above ``pct_ceiling``
    set aside, as the diagnosis does)."""
    found = []
    readings = [(e["metric"], e["value"]) for e in _evidence(entry)]
    readings += [
        (name, m["value"])
        for name, m in (entry["metrics"] or {}).items()
        if name.endswith("pct_of_peak_sustained_active") or name.startswith(UNIT_PREFIXES[:6])
    ]
    for metric, value in readings:
        if not isinstance(value, (int, float)) or not metric.startswith(UNIT_PREFIXES):
            continue
        if T.pipe_busy_pct <= value <= T.pct_ceiling:
            found.append((metric, float(value)))
    return found


def _number(entry: dict[str, Any], name: str) -> float | None:
    m = (entry["metrics"] or {}).get(name)
    value = None if m is None else m["value"]
    return float(value) if isinstance(value, (int, float)) and value == value else None


def weight(doc: dict[str, Any], entry: dict[str, Any]) -> float | None:
    """The share of the time the entry's severities weigh: its family's when the family has
    several launches, else its own."""
    family = entry["family"]
    if family is not None:
        f = doc["families"][family]
        if f["count"] > 1:
            return f["time_share"]
    return entry["time_share"]


def violations(doc: dict[str, Any], entry: dict[str, Any]) -> list[str]:
    """What the entry says that its own evidence contradicts ([] when nothing does)."""
    said = [s.lower() for s in sentences(entry)]
    out = []
    busy = busy_units(entry)
    if busy and any(claim in s for s in said for claim in IDLE_CLAIMS):
        out.append(f"says no unit is busy next to {busy[0][0]} = {busy[0][1]:.1f} %")
    grid = _number(entry, "launch__grid_size")
    sms = _number(entry, "launch__sm_count") or _number(
        entry, "device__attribute_multiprocessor_count"
    )
    if grid is not None and sms is not None and grid >= sms:
        wrong = [s for s in said if any(claim in s for claim in NO_BLOCK_CLAIMS)]
        if wrong:
            out.append(f"{grid:.0f} blocks on {sms:.0f} SMs, yet: {wrong[0][:120]}")
        b = entry["bottleneck"]
        if b["label"] == "launch-bound" and b["decided_by"] == "grid-too-small":
            out.append(f"{grid:.0f} blocks on {sms:.0f} SMs called launch-bound for its grid")
    share = weight(doc, entry)
    if share is not None and share < T.minor_time_share:
        loud = [f["id"] for f in entry["flags"] if f["severity"] != "info"]
        if loud:
            out.append(f"{share:.2%} of the time, yet {loud} above info")
    out += _top_flag_violations(entry)
    out += _coalescing_violations(entry)
    return out


GLOBAL_SECTORS = ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                  "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
EXCESSIVE = "derived__memory_l2_theoretical_sectors_global_excessive"


def _coalescing_violations(entry: dict[str, Any]) -> list[str]:
    """A coalescing flag whose evidence or NCU rule is local traffic (see the module)."""
    flag = next((f for f in entry["flags"] if f["id"] == "uncoalesced-global-access"), None)
    if flag is None:
        return []
    out = []
    for e in flag["evidence"]:
        metric = e["metric"].lower()
        if "local" in metric or "global" not in metric:
            out.append(f"coalescing flag on {e['metric']}, not a global counter")
        value = _number(entry, e["metric"])
        if value is not None and value != e["value"]:
            out.append(f"coalescing evidence {e['metric']} = {e['value']}, the report {value}")
        if e["metric"].startswith(EXCESSIVE):
            sectors = [v for m in GLOBAL_SECTORS if (v := _number(entry, m)) is not None]
            excessive = _number(entry, EXCESSIVE)
            if sectors and excessive is not None and sum(sectors) > 0 and (
                abs(excessive / sum(sectors) - e["value"]) > 1e-9
            ):
                out.append(f"excessive-sector share {e['value']} is not over the global "
                           f"sectors ({excessive / sum(sectors)})")
    if flag["ncu_rule"] and "local" in flag["ncu_rule"].lower():
        out.append(f"coalescing flag quotes NCU's {flag['ncu_rule']}")
    return out


def _top_flag_violations(entry: dict[str, Any]) -> list[str]:
    flags, top = entry["flags"], entry["top_flag"]
    if not flags:
        return ["a top flag without flags"] if top else []
    if not top or top["chosen_by"] not in CHOSEN_BY or not top["why"]:
        return [f"top flag without the rule that chose it: {top}"]
    chosen = next((f for f in flags if f["id"] == top["id"]), None)
    if chosen is None:
        return [f"top flag {top['id']} is not among the flags"]
    worst = max(SEVERITY_RANK[f["severity"]] for f in flags)
    out = []
    if SEVERITY_RANK[chosen["severity"]] != worst:
        out.append(f"top flag {top['id']} is not among the most severe")
    if top["chosen_by"] == NCU_ESTIMATE and chosen["ncu_speedup"] is None:
        out.append(f"top flag {top['id']} chosen by an NCU estimate it does not have")
    return out


def assert_report_agrees(path: Path) -> dict[str, Any]:
    """Every kernel of ``path``'s JSON export keeps every rule (the first 20 breaches listed
    when not); the export, for further checks."""
    doc = exported(path)
    assert doc["kernels"]
    found = [
        f"ID {entry['id']} {entry['short_name']}: {'; '.join(missed)}"
        for entry in doc["kernels"]
        if (missed := violations(doc, entry))
    ]
    assert not found, "\n".join(found[:20])
    return doc

