"""The passes with the pairs' chains in closed form (``streams.py``) give what the loops
over every event give: the same times and deciding edges forward, the same latest ends
backward, for the measured durations and for changed ones."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kernelscope.kinds.kineto.analysis.timeline import open_kineto
from kernelscope.timeline.analysis.critical_path import schedule, streams
from kernelscope.timeline.analysis.critical_path.schedule import (
    INF,
    Replay,
    latest_ends,
    replay,
)
from kernelscope.timeline.analysis.critical_path.whatif import Model
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.model import TimelineReport
from tests.conftest import SAMPLES

NSYS = ["timeline_torch", "graph_eager", "join_trace", "zoo", "many_launches"]
KINETO = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


@pytest.fixture(params=[*NSYS, "kineto_step"])
def model(request: pytest.FixtureRequest, sample_report: Callable[[str], TimelineReport]
          ) -> Model:
    if request.param == "kineto_step":
        return open_kineto(KINETO).critical_model
    return TimelineData(sample_report(request.param)).critical_model


def _columns(run: Replay) -> tuple[list[int], ...]:
    return list(run.start), list(run.end), list(run.start_by), list(run.end_by)


def test_the_chains_and_the_loop_go_over_every_event_once(model: Model) -> None:
    streams = model.plan.streams()
    assert streams is not None
    slots = streams.frame["slot"].to_list() + list(streams.loop_slots)
    assert sorted(slots) == list(range(len(model.plan.chains.order)))
    assert streams.frame.height >= 1


def test_the_scan_replays_the_measured_durations_as_the_loop_does(model: Model) -> None:
    assert _columns(replay(model.plan)) == _columns(replay(model.plan, scan=False))


@pytest.mark.parametrize("factor", [3, 0.5])
def test_the_scan_replays_changed_durations_as_the_loop_does(model: Model, factor: float
                                                             ) -> None:
    """Every third node's duration divided by ``factor`` (a third of the GPU operations and
    CPU calls: which edge decides a start changes on many of them)."""
    dur = list(model.plan.dur)
    for node in range(0, len(dur), 3):
        dur[node] = round(dur[node] / factor)
    scanned, looped = replay(model.plan, dur), replay(model.plan, dur, scan=False)
    assert _columns(scanned) == _columns(looped)
    assert _columns(scanned) != _columns(replay(model.plan))  # the change moved something
    late = latest_ends(model.plan, scanned, dur)
    assert late.to_list() == latest_ends(model.plan, scanned, dur, scan=False).to_list()
    assert late.to_list() != latest_ends(model.plan, model.measured).to_list()


def test_the_scan_gives_the_measured_latest_ends_as_the_loop_does(model: Model) -> None:
    looped = latest_ends(model.plan, model.measured).to_list()
    assert model.plan.streams(make=False) is None  # the backward pass alone makes no chains
    assert model.plan.streams() is not None
    late = latest_ends(model.plan, model.measured)
    assert late.to_list() == looped
    assert late.to_list() == latest_ends(model.plan, model.measured, scan=False).to_list()
    assert (late < INF // 2).any()  # some node is bounded by a step's end


def test_the_backward_pass_alone_makes_the_chains_from_scan_events_on(
        model: Model, monkeypatch: pytest.MonkeyPatch) -> None:
    """An export's slack (no forward replay made the chains) scans them from
    ``SCAN_EVENTS`` events on: the latest ends the loop below that gives."""
    looped = latest_ends(model.plan, model.measured).to_list()
    assert model.plan.streams(make=False) is None  # the samples' events: fewer
    monkeypatch.setattr(schedule, "SCAN_EVENTS", len(model.plan.chains.order))
    assert latest_ends(model.plan, model.measured).to_list() == looped
    assert model.plan.streams(make=False) is not None  # made by the pass


def test_the_chains_running_maxima_by_window_are_those_by_slice(
        model: Model, monkeypatch: pytest.MonkeyPatch) -> None:
    """More chains than ``CHAIN_SLICES`` take their running maxima and minima by a window
    over the chains instead of slice by slice: the same passes."""
    dur = [d // 2 for d in model.plan.dur]
    by_slice = replay(model.plan, dur)
    late = latest_ends(model.plan, by_slice, dur).to_list()
    monkeypatch.setattr(streams, "CHAIN_SLICES", 0)
    by_window = replay(model.plan, dur)
    assert _columns(by_window) == _columns(by_slice)
    assert latest_ends(model.plan, by_window, dur).to_list() == late
