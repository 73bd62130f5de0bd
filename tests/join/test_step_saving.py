"""The join's what-if per family (``step_saving.py``) leaves out the replay of a family no step
can wait on (every launch one of the steps' operations, its least slack positive, or no step
waiting): its saving is 0. Checked here against the replay itself, on every kernel family of
real timelines (an nsys report and a Kineto trace), at the largest speed-up the join applies."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from kernelscope.kinds.join.analysis.opener import open_timeline
from kernelscope.kinds.join.analysis.step_saving import MOST_FASTER, _waited_on
from kernelscope.kinds.join.analysis.timeline_families import timeline_families
from tests.conftest import SAMPLES
from tests.join.conftest import unpack

TIMELINES = [
    SAMPLES / "nsys" / "join_trace.sqlite.xz",  # 11 of its 16 families left out
    SAMPLES / "opeff" / "gemm_sweep.pt.trace.json.xz",  # 24 of 35
    SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz",  # 47 of 47 (CPU-bound)
]


def _opened(packed: Path, tmp_path: Path) -> Path:
    """A trace as the join opens it: an nsys export unpacked (a Kineto trace as it is)."""
    if packed.name.endswith(".sqlite.xz"):
        return unpack(packed, tmp_path / packed.name.removesuffix(".xz"))
    return packed


@pytest.mark.parametrize("packed", TIMELINES, ids=lambda p: p.name)
def test_a_family_left_unreplayed_saves_nothing_in_the_replay(packed: Path,
                                                              tmp_path: Path) -> None:
    timeline = open_timeline(_opened(packed, tmp_path))
    model = timeline.critical_model
    path = timeline.critical_path
    gpu = model.graph.nodes.filter(pl.col("cls") == 2).select("node", "name", "start")
    nodes: dict[tuple[str, int], list[int]] = {}
    for node, name, start in gpu.iter_rows():
        nodes.setdefault((name, start), []).append(node)
    slack = dict(path.families.select("name", "slack_ns").iter_rows())
    waited = _waited_on(path.slack_known, slack, set(model.graph.step_ops["node"].to_list()))
    left_out = 0
    for family in timeline_families(timeline.report).families:
        launches = [n for start in set(family.starts) for n in nodes.get((family.name, start), ())]
        if launches and not waited(family.name, launches):
            left_out += 1
            assert max(model.steps_saved_ns(launches, MOST_FASTER), 0) == 0, family.name
    assert left_out, "no family was left unreplayed: the check proved nothing"
