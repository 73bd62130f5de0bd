"""The chains' calls summed as the first replay's sums corrected where a call differs
(``run_sums._summed``) give what summing every call of every replay anew gives: for the
measured replay, a replay whose GPU work changed, one where a few CPU calls changed (the
first's sums corrected), and one where many did (summed again)."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
import pytest

from kernelscope.timeline.analysis.critical_path import run_sums
from kernelscope.timeline.analysis.critical_path.path import PathWalker
from kernelscope.timeline.analysis.critical_path.schedule import replay
from kernelscope.timeline.analysis.critical_path.vocabulary import CPU, GPU
from kernelscope.timeline.analysis.critical_path.whatif import Model
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.model import TimelineReport


def _walker(model: Model, dur: list[int] | None) -> PathWalker:
    run = model.measured if dur is None else replay(model.plan, dur)
    walker = PathWalker(model.graph, model.plan, run, model.plan.dur if dur is None else dur)
    for step, begin, finish in model.graph.steps.select("step", "begin", "finish").iter_rows():
        walker.walk(step, begin, finish)
    return walker


def _by_key(frames: list[pl.DataFrame]) -> list[tuple[int, int, int]]:
    summed = pl.concat(frames).group_by("key").agg(pl.col("ns").sum(), pl.col("count").sum())
    return sorted(summed.filter((pl.col("ns") != 0) | (pl.col("count") != 0)).rows())


def _counted(parts: list[int], frames: list[pl.DataFrame]) -> list[pl.DataFrame]:
    parts.append(len(frames))
    return frames


@pytest.mark.parametrize("sample", ["timeline_torch", "many_launches", "zoo"])
def test_corrected_sums_equal_the_sums_of_every_call(
        sample: str, sample_report: Callable[[str], TimelineReport],
        monkeypatch: pytest.MonkeyPatch) -> None:
    model = TimelineData(sample_report(sample)).critical_model
    nodes = model.graph.nodes
    durations: list[list[int] | None] = [None]
    for cls, every in ((GPU, 2), (CPU, 10), (CPU, 2)):  # some operations (calls) faster
        dur = list(model.plan.dur)
        for node in nodes.filter(pl.col("cls") == cls)["node"].to_list()[::every]:
            dur[node] //= 2
        durations.append(dur)
    parts: list[int] = []  # how many frames each sum came as: 3 where corrected
    summed = run_sums._summed
    monkeypatch.setattr(run_sums, "_summed", lambda *args: _counted(parts, summed(*args)))
    corrected = [_by_key([_walker(model, dur).sums()[0]]) for dur in durations]
    assert 3 in parts and 1 in parts  # corrected, and summed anew (the changed CPU calls)
    monkeypatch.setattr(run_sums, "_summed",  # every call of every replay summed anew
                        lambda keys, part, key, ns, times: [run_sums._by_key(key, ns, times)])
    anew = [_by_key([_walker(model, dur).sums()[0]]) for dur in durations]
    assert corrected == anew
    assert any(count for _, _, count in corrected[0])
