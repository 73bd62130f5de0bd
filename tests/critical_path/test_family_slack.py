"""The kernel families of a replay from the parts every replay shares, summed once per plan
(``Plan.families``), equal those summed from every operation anew, with slack and without,
whichever replay summed the shared parts first."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
import pytest

from kernelscope.timeline.analysis.critical_path.path import PathWalker, family_slack
from kernelscope.timeline.analysis.critical_path.schedule import latest_ends, replay
from kernelscope.timeline.analysis.critical_path.vocabulary import GPU
from kernelscope.timeline.analysis.critical_path.whatif import Model
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.model import TimelineReport


def _families(model: Model, faster: bool, *, slack: bool) -> pl.DataFrame:
    dur = list(model.plan.dur)
    if faster:  # every other GPU operation twice as fast
        gpu = model.graph.nodes.filter(pl.col("cls") == GPU)["node"].to_list()
        for node in gpu[::2]:
            dur[node] //= 2
    run = replay(model.plan, dur)
    walker = PathWalker(model.graph, model.plan, run, dur)
    for step, begin, finish in model.graph.steps.select("step", "begin", "finish").iter_rows():
        walker.walk(step, begin, finish)
    late = latest_ends(model.plan, run, dur, None, model.graph.step_ops["node"]) if slack else None
    return family_slack(model.graph, model.plan, run, late, walker.own_time())


@pytest.mark.parametrize("sample", ["timeline_torch", "many_launches", "zoo"])
def test_families_from_the_shared_sums_equal_those_summed_anew(
        sample: str, sample_report: Callable[[str], TimelineReport]) -> None:
    model = TimelineData(sample_report(sample)).critical_model
    cases = [(faster, slack) for faster in (False, True) for slack in (True, False)]
    anew = []
    for case in cases:
        model.plan.families = None  # nothing shared yet: every operation summed
        anew.append(_families(model, case[0], slack=case[1]))
    for first in cases:  # each case first, then every other from what it left
        model.plan.families = None
        shared = [_families(model, faster, slack=slack) for faster, slack in [first, *cases]]
        for got, expected in zip(shared[1:], anew, strict=True):
            assert got.equals(expected)
    assert anew[0]["slack_ns"].is_not_null().any() and anew[1]["slack_ns"].is_null().all()
