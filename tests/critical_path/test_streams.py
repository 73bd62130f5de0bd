"""The forward pass with the pairs' chains in closed form (``streams.py``) gives what the
loop over every event gives: the same times and the same deciding edges, for the measured
durations and for changed ones."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kernelscope.kinds.kineto.analysis.timeline import open_kineto
from kernelscope.timeline.analysis.critical_path.schedule import Replay, replay
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
