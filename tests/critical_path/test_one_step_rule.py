"""One rule says what a trace's steps are (``timeline.analysis.steps``): the critical path,
the ranks and operator efficiency per step find the same ranges, and differ only where a
view needs a step to hold its GPU work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelscope.export.whatif import timeline_of
from kernelscope.kinds.ranks.analysis.reduce import ReduceOptions
from kernelscope.kinds.ranks.analysis.run import analyse_run
from kernelscope.timeline.analysis.steps import report_steps
from tests.conftest import SAMPLES

WITH_STEPS = ["nsys/join_trace.sqlite.xz", "nsys/ranks/rank1.sqlite.xz",
              "nsys/timeline_torch.sqlite.xz", "whatif/shift_base.sqlite.xz",
              "nsys/managed/managed.sqlite.xz"]


def _steps(path: Path) -> dict[str, Any]:
    def answer(data: Any) -> dict[str, Any]:
        graph = data.critical_model.graph
        return {"path": graph.steps.select("start", "end", "name"),
                "held": report_steps(data.report, hold_work=True).select("start", "end",
                                                                         "name"),
                "named": report_steps(data.report, hold_work=False).select("start", "end",
                                                                            "name")}
    return dict(timeline_of(path, None, answer))


def _rank(path: Path, cache_dir: Path) -> Any:
    run = analyse_run([path], options=ReduceOptions(cache_dir=str(cache_dir)), workers=0)
    (rank,) = run.ranks.values()
    return rank


@pytest.mark.parametrize("sample", WITH_STEPS)
def test_the_critical_path_and_the_ranks_find_the_same_steps(sample: str, tmp_path: Path):
    found = _steps(SAMPLES / sample)
    assert found["path"].height >= 2
    assert found["path"].equals(found["named"]) and found["path"].equals(found["held"])
    rank = _rank(SAMPLES / sample, tmp_path)
    assert rank.step_source == "nvtx"
    assert rank.steps.select("start", "end", "name").equals(found["path"])


def test_ranges_numbered_without_the_word_step_are_steps():
    # managed.cu times four "pass N" ranges, each holding that pass's kernels and faults
    found = _steps(SAMPLES / "nsys" / "managed" / "managed.sqlite.xz")
    assert found["path"]["name"].to_list() == ["pass 0", "pass 1", "pass 2", "pass 3"]


def test_steps_that_only_launch_their_work_are_cpu_spans_for_the_path_alone(tmp_path: Path):
    # graph_replay launches a CUDA graph in each "step N" range and runs ahead of its GPU:
    # the ranges are the path's steps (CPU-side spans), but they hold none of the GPU's work,
    # so the ranks fall back to the kernel pattern and MFU per step has no steps
    path = SAMPLES / "nsys" / "graph_replay.sqlite.xz"
    found = _steps(path)
    assert found["path"].height == 40 and found["path"]["name"][0] == "step 0"
    assert found["held"].is_empty()
    assert _rank(path, tmp_path).step_source != "nvtx"


def test_a_trace_without_step_ranges_is_one_step_on_the_path():
    found = _steps(SAMPLES / "nsys" / "many_tiny.sqlite.xz")
    assert found["named"].is_empty() and found["path"].height == 1
    assert found["path"]["name"].null_count() == 1
