"""A document that reads every launch's label and roofline point, and the flags of a few,
diagnoses only those few: MCP's summary of a report its families' median launches, the join
each profiled family's longest launch. Counted by the calls of the one diagnosis function
an analysed kernel makes its diagnosis with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelscope.kinds.ncu.analysis import analyzed_kernel
from kernelscope.kinds.ncu.export import ncu_answers
from kernelscope.tui.cli import main
from tests.conftest import NCU_SAMPLES, SAMPLES

MANY = NCU_SAMPLES / "many_launches.ncu-rep.xz"
TRACE = SAMPLES / "nsys" / "many_launches.sqlite.xz"


@pytest.fixture
def diagnosed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The IDs of the kernels diagnosed, in order, while the test runs."""
    ids: list[int] = []
    plain = analyzed_kernel.diagnose_summary

    def counted(summary: analyzed_kernel.KernelSummary, *weighing: object) -> object:
        ids.append(summary.id)
        return plain(summary, *weighing)  # type: ignore[arg-type]

    monkeypatch.setattr(analyzed_kernel, "diagnose_summary", counted)
    return ids


def test_mcp_summary_diagnoses_only_the_families_medians(diagnosed: list[int]) -> None:
    head, families = ncu_answers.summary(MANY, lambda *_: None)
    assert head["report"]["kernel_count"] == 1000
    assert head["report"]["roofline_collect"]["kernels"] == 1000  # every launch's point read
    assert len(families) == 4
    assert sorted(diagnosed) == sorted({int(f["representative"]) for f in families})


def test_join_diagnoses_only_each_familys_lead_launch(
    diagnosed: list[int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "join.json"
    assert main(["join", str(TRACE), str(MANY), "-f", "json", "-o", str(target)]) == 0
    assert capsys.readouterr().err == ""
    ranked = [r for r in json.loads(target.read_text())["ranking"] if r["kind"] == "kernel"]
    assert ranked and all(r["bottleneck"] for r in ranked)
    assert len(diagnosed) == len(set(diagnosed)) == len(ranked)
