"""The critical path and the what-if as JSON members and Markdown (docs/critical_path.md).

JSON ``kernelscope/whatif/1``::

    {"schema", "trace", "steps": [{step, name, measured_ns, predicted_ns}],
     "measured_step_ns", "predicted_step_ns" (medians over the steps),
     "changes": [{pattern, factor, operations, launches, ranges, range_instances}],
     "critical_path": {"before": PATH, "after": PATH},
     "beside_changed": [{name, short_name, kind, path_ns, gpu_ns, beside_ns, away_launches,
                         away_median_ns, beside_launches, beside_median_ns}],
     "waits": [{rank, calls, measured_ns, predicted_ns}] (a run only)}

A run's steps carry their ``rank``.

PATH: ``median_step_ns``, ``kinds`` ([{kind, ns, pct}]), ``top`` (the longest parts of the
paths: [{kind, name, ns, count, pct}]), ``families`` ([{name, short_name, kind, launches,
gpu_ns, path_ns, slack_ns}]; slack null where no step waits on the family, and in ``after``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from kernelscope.core.durations import fmt_ns
from kernelscope.core.kernel_names import ShortNames
from kernelscope.core.units import EMPTY_CELL
from kernelscope.export.markdown import table
from kernelscope.timeline.analysis.critical_path.result import CriticalPath
from kernelscope.timeline.analysis.critical_path.whatif import WhatIf

SCHEMA = "kernelscope/whatif/1"
NO_STEPS = ("No step to follow: the trace holds no CUDA call and no GPU work, so it has no "
            "critical path.")
TOP = 15
Shorten = Callable[[str], str]


_OF_RANKS = (" (every rank's steps: work a rank waits on at a collective is on the paths of "
             "the ranks that wait too, so its time on them can exceed its GPU time)")


def path_names(*paths: CriticalPath) -> Shorten:
    """Short names of the kernels on ``paths`` (for a run, whose ranks have no one trace's
    names): spelled out until they differ, as a trace's are."""
    names = ShortNames()
    for cp in paths:
        names.add(n for n in cp.families.filter(pl.col("kind") == "kernel")["name"].to_list()
                  if n is not None)
        names.add(n for k, n in cp.breakdown.select("kind", "name").iter_rows()
                  if k in ("kernel", "communication") and n is not None)
    return names.__getitem__


def _short(shorten: Shorten | None, kind: str, name: str | None) -> str | None:
    """``name`` as the trace's short name (a nameless row, as a damaged string table leaves
    it, stays nameless)."""
    if shorten is None or name is None or kind not in ("kernel", "communication"):
        return name
    try:
        return shorten(name)
    except KeyError:
        return name


def path_doc(cp: CriticalPath, shorten: Shorten | None = None, top: int = TOP
             ) -> dict[str, Any]:
    """One replay's critical path as JSON members."""
    rows = cp.breakdown.head(top).to_dicts()
    for row in rows:
        row["name"] = _short(shorten, row["kind"], row["name"])
        row["pct"] = round(row["pct"], 2)
    families = cp.families.head(top).to_dicts()
    for row in families:
        row["short_name"] = _short(shorten, "kernel" if row["kind"] == "kernel" else "",
                                   row["name"])
    return {
        "median_step_ns": cp.median_step_ns,
        "kinds": [{"kind": k, "ns": ns, "pct": round(pct, 2)}
                  for k, ns, pct in cp.kinds.iter_rows()],
        "top": rows,
        "families": families,
    }


def whatif_doc(answer: WhatIf, trace: str, shorten: Shorten | None = None) -> dict[str, Any]:
    # here: a timeline's export (path_doc) needs none of the what-if's tables
    from kernelscope.timeline.export.beside_text import beside_rows

    shorten = shorten or path_names(answer.before, answer.after)
    waits = {} if answer.waits is None else {"waits": answer.waits.to_dicts()}
    return {
        "schema": SCHEMA,
        "trace": trace,
        "steps": answer.steps.to_dicts(),
        "measured_step_ns": answer.measured_step_ns,
        "predicted_step_ns": answer.predicted_step_ns,
        "changes": [{"pattern": c.faster.pattern, "factor": c.faster.factor,
                     "operations": list(c.operations), "launches": c.launches,
                     "ranges": list(c.ranges), "range_instances": c.range_instances}
                    for c in answer.changes],
        "critical_path": {"before": path_doc(answer.before, shorten),
                          "after": path_doc(answer.after, shorten)},
        "beside_changed": beside_rows(answer, lambda name: _short(shorten, "kernel", name)),
        **waits,
    }


def _ns(value: int | None) -> str:
    return EMPTY_CELL if value is None else fmt_ns(value)


def path_markdown(cp: CriticalPath, shorten: Shorten | None = None, top: int = TOP
                  ) -> list[str]:
    """The critical path section: its kinds, its longest parts, the families beside it."""
    steps = cp.steps.height
    if not steps:
        return [NO_STEPS]
    run = "rank" in cp.steps.columns
    lines = [f"Median step {_ns(cp.median_step_ns)} over {steps} step{'s' * (steps != 1)}; "
             f"what the step waits on, summed over the steps' critical paths{_OF_RANKS * run}:",
             "", table(["Kind", "Time", "Share"], ((kind, fmt_ns(ns), f"{pct:.1f} %")
                                                   for kind, ns, pct in cp.kinds.iter_rows()),
                       "lrr"),
             "", table(["Kind", "On the path", "Count", "Share"],
                       ((f"{kind}: {_short(shorten, kind, name) or EMPTY_CELL}", fmt_ns(ns),
                         count, f"{pct:.1f} %")
                        for kind, name, ns, count, pct in cp.breakdown.head(top).iter_rows()),
                       "lrrr")]
    families = cp.families.filter(pl.col("kind") == "kernel").head(top)
    if families.height:
        lines += ["", _families_sentence(cp.slack_known), "",
                  table(["Family", "Launches", "GPU time", "On the path",
                         *(["Slack"] if cp.slack_known else [])],
                        (_family_cells(row, shorten, cp.slack_known)
                         for row in families.iter_rows(named=True)), "lrrrr")]
    return lines


def _family_cells(row: dict[str, Any], shorten: Shorten | None, slack_known: bool
                  ) -> list[str]:
    cells = [_short(shorten, "kernel", row["name"]) or EMPTY_CELL, str(row["launches"]),
             fmt_ns(row["gpu_ns"]), fmt_ns(row["path_ns"])]
    if slack_known:
        cells.append("no step waits on it" if row["slack_ns"] is None
                     else fmt_ns(row["slack_ns"]))
    return cells


def _families_sentence(slack_known: bool) -> str:
    """The families table's sentence; the Slack column only where it was computed (a
    predicted replay has none)."""
    if not slack_known:
        return ("Kernel families: time on the path (slack is computed on the measured path "
                "only).")
    return ("Kernel families: time on the path, and the slack of their most critical launch "
            "(how much later it could end before its step does).")


def _step_cells(row: dict[str, Any]) -> tuple[str, str, str]:
    rank = f"rank {row['rank']}: " if "rank" in row else ""
    return (f"{rank}{row['name'] or row['step']}", fmt_ns(row["measured_ns"]),
            fmt_ns(row["predicted_ns"]))


def whatif_markdown(answer: WhatIf, trace: str, shorten: Shorten | None = None) -> str:
    from kernelscope.timeline.export.beside_text import beside_markdown

    shorten = shorten or path_names(answer.before, answer.after)
    lines = [f"# What-if: {trace}", ""]
    for c in answer.changes:
        what = []
        if c.launches:
            what.append(f"{c.launches} launches of {len(c.operations)} GPU operation name(s)")
        if c.range_instances:
            what.append(f"{c.range_instances} CPU range(s) named {', '.join(c.ranges[:3])}")
        lines.append(f"- `{c.faster.pattern}` × {c.faster.factor:g} faster: {'; '.join(what)}")
    measured, predicted = answer.measured_step_ns, answer.predicted_step_ns
    change = ""
    if measured and predicted is not None:
        change = f" ({100.0 * (predicted - measured) / measured:+.1f} %)"
    lines += ["", f"Median step: measured {_ns(measured)}, predicted {_ns(predicted)}{change}.",
              "", table(["Step", "Measured", "Predicted"],
                        (_step_cells(row) for row in answer.steps.iter_rows(named=True)),
                        "lrr")]
    if answer.waits is not None:
        lines += ["", "Each rank's wait at the collectives (from its arrival to the last "
                  "rank's), summed:", "",
                  table(["Rank", "Collectives", "Measured", "Predicted"],
                        ((rank, calls, fmt_ns(m), fmt_ns(p))
                         for rank, calls, m, p in answer.waits.iter_rows()), "rrrr")]
    lines += beside_markdown(answer, lambda name: _short(shorten, "kernel", name))
    lines += ["", "## Critical path, measured", "", *path_markdown(answer.before, shorten),
              "", "## Critical path, predicted", "", *path_markdown(answer.after, shorten), ""]
    return "\n".join(lines)

