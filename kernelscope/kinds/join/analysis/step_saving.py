"""What fixing a family saves of the steps: a what-if on the timeline's dependency graph
(docs/critical_path.md), not its time × headroom. A profiled family uses its measured
headroom; a family nobody profiled, the headroom estimated from its operators' shapes
(``shape_estimate.py``), and its row keeps saying it is an estimate.

The family's launches get ``1 - headroom`` of their durations (at most 100 times faster) and
the graph is replayed; the steps' summed time saved is what fixing it could save. A family
off every critical path saves nothing, and its row says so, with its slack: how much later
its most critical launch could end before a step moves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import polars as pl

from kernelscope.core.durations import fmt_ns
from kernelscope.kinds.join.analysis.item import RankedItem
from kernelscope.kinds.join.analysis.timeline_families import TimelineKernels
from kernelscope.timeline.analysis.timeline_data import TimelineData

MOST_FASTER = 100.0


def with_step_savings(timeline: TimelineData, items: list[RankedItem],
                      kernels: TimelineKernels) -> list[RankedItem]:
    """``items`` with every family's saving (measured or estimated headroom) replaced by the
    steps' time saved; a family whose kernel report does not explain its timeline time
    (``duration_check``) keeps no saving. The graph's kernel launches are indexed once for
    every family (one what-if replay each)."""
    if not any(_measured(i) for i in items):
        return items
    families = {f.index: f for f in kernels.families}
    model = timeline.critical_model
    gpu = model.graph.nodes.filter(pl.col("cls") == 2).select("node", "name", "start")
    nodes: dict[tuple[str, int], list[int]] = {}
    for node, name, start in gpu.iter_rows():
        nodes.setdefault((name, start), []).append(node)
    path = timeline.critical_path
    slack = dict(path.families.select("name", "slack_ns").iter_rows())
    waited = _waited_on(path.slack_known, slack, set(model.graph.step_ops["node"].to_list()))
    out = []
    for item in items:
        index = item.timeline_family
        family = families.get(index) if index is not None and _measured(item) else None
        if family is None or item.headroom is None or not item.explained:
            out.append(item)  # (a report that does not explain the timeline saves nothing)
            continue
        launches = [n for start in set(family.starts)
                    for n in nodes.get((family.name, start), ())]
        factor = 1.0 / max(1.0 - item.headroom, 1.0 / MOST_FASTER)
        saved = (max(model.steps_saved_ns(launches, factor), 0)
                 if waited(family.name, launches) else 0)
        out.append(replace(item, potential_saving_ns=float(saved),
                           weak=_off_path(item.weak, saved, slack.get(family.name))))
    return out


def _waited_on(slack_known: bool, slack: dict[str, int | None], in_steps: set[int]
               ) -> Callable[[str, list[int]], bool]:
    """Whether a step could wait on some of a family's ``launches`` (so their replay is
    needed): False where every launch is one of the steps' operations and the family's least
    slack is positive, or no step waits on it: the replay starts each operation at the
    latest of the times its edges allow, so a launch that ends earlier by any amount moves no
    step's end, and each step's time saved is 0 or less (0 kept)."""
    def waited(name: str, launches: list[int]) -> bool:
        if not slack_known or name not in slack or not in_steps.issuperset(launches):
            return True
        least = slack[name]
        return least is not None and least <= 0
    return waited


def _measured(item: RankedItem) -> bool:
    """A kernel family of the timeline with a headroom: measured, or estimated from shapes."""
    return (item.kind == "kernel" and item.timeline_family is not None
            and (item.profiled or item.headroom is not None))


def _off_path(weak: str | None, saved: int, slack_ns: int | None) -> str | None:
    if saved > 0:
        return weak
    note = ("off the critical path: no step waits on it" if slack_ns is None else
            f"off the critical path: {fmt_ns(slack_ns)} of slack before a step moves")
    return note if not weak else f"{weak}; {note}"
