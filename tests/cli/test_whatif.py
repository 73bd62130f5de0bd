"""``kernelscope whatif``: the JSON and Markdown of a what-if on a real trace, and a sentence
with exit 2 for what it cannot answer."""

from __future__ import annotations

import json

import pytest

from kernelscope.tui.cli import main
from tests.conftest import NCU_SAMPLES, SAMPLES

KINETO = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


def test_json_has_the_steps_the_medians_the_changes_and_both_paths(capsys) -> None:
    assert main(["whatif", str(KINETO), "--faster", "aten::randn=4", "--faster", "memcpy=2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "kernelscope/whatif/1"
    assert [s["name"] for s in doc["steps"]] == ["ProfilerStep#2", "ProfilerStep#3",
                                                 "ProfilerStep#4"]
    measured = sorted(s["measured_ns"] for s in doc["steps"])
    assert doc["measured_step_ns"] == measured[1]
    assert doc["predicted_step_ns"] == sorted(s["predicted_ns"] for s in doc["steps"])[1]
    assert doc["predicted_step_ns"] < doc["measured_step_ns"]
    randn, memcpy = doc["changes"]
    assert randn["ranges"] == ["aten::randn"] and randn["launches"] == 0
    assert memcpy["launches"] == 9 and memcpy["range_instances"] == 0
    before, after = doc["critical_path"]["before"], doc["critical_path"]["after"]
    assert before["median_step_ns"] == doc["measured_step_ns"]
    assert after["median_step_ns"] == doc["predicted_step_ns"]
    assert {k["kind"] for k in before["kinds"]} >= {"cpu", "api"}
    assert abs(sum(k["pct"] for k in before["kinds"]) - 100) < 0.1


def test_markdown_says_the_measured_and_predicted_median(capsys) -> None:
    assert main(["whatif", str(KINETO), "--faster", "aten::randn=4", "-f", "md"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# What-if: kineto_step.pt.trace.json.xz")
    assert "Median step: measured 17.00 ms, predicted" in text
    assert "## Critical path, predicted" in text


@pytest.mark.parametrize(("faster", "sentence"), [
    ("nothing-like-this=2", "matches no GPU operation and no CPU range"),
    ("gemm", "--faster takes REGEX=FACTOR"),
    ("gemm=0", "the factor must be a number above 0"),
    ("gemm=fast", "the factor must be a number above 0"),
    ("(=2", "is not a regex"),
    ("gemm=2@x", "the rank after @ must be a whole number"),
    ("gemm=2@-1", "the rank after @ must be a whole number"),
])
def test_bad_faster_is_one_sentence_and_exit_2(capsys, faster: str, sentence: str) -> None:
    assert main(["whatif", str(KINETO), "--faster", faster]) == 2
    err = capsys.readouterr().err.strip()
    assert sentence in err and "\n" not in err and "Traceback" not in err


def test_a_kernel_report_is_not_a_timeline(capsys) -> None:
    report = NCU_SAMPLES / "zoo_a.ncu-rep.xz"
    assert main(["whatif", str(report), "--faster", "a=2"]) == 2
    assert "is not a timeline" in capsys.readouterr().err


def test_the_predicted_path_claims_no_slack_it_did_not_compute(capsys) -> None:
    """The predicted replay computes no slack: its families table has no Slack column, so a
    family on the predicted path (the two-rank run's spin kernel) is never called one that no
    step waits on."""
    run = SAMPLES / "whatif" / "ranks_base_kineto"
    assert main(["whatif", str(run), "--faster", "spin_kernel=2", "-f", "md"]) == 0
    text = capsys.readouterr().out
    measured, predicted = text.split("## Critical path, predicted")
    spin = next(line for line in predicted.splitlines() if line.startswith("| spin_kernel |"))
    assert spin.count("|") == 5
    assert "no step waits on it" not in predicted
    assert "| Family | Launches | GPU time | On the path | Slack |" in measured
    assert "slack is computed on the measured path only" in predicted


def test_a_run_s_paths_name_kernels_short_and_say_why_path_time_exceeds_gpu_time(
        capsys) -> None:
    """The two-rank run: rank 1's spin kernel (47.8 ms of GPU time) lies on both ranks'
    paths (95.5 ms), and the section says why; kernels carry short names, as a trace's do,
    in the what-if and in the ranks export."""
    run = SAMPLES / "whatif" / "ranks_base_kineto"
    assert main(["whatif", str(run), "--faster", "spin_kernel=2", "-f", "md"]) == 0
    text = capsys.readouterr().out
    assert "| spin_kernel | 6 | 47.77 ms | 95.53 ms | 0 ns |" in text
    assert "so its time on them can exceed its GPU time" in text
    assert "at::native::" not in text
    assert main(["whatif", str(run), "--faster", "spin_kernel=2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["critical_path"]["before"]["families"][0]["short_name"] == "spin_kernel"
    assert main(["export", str(run), "-f", "md"]) == 0
    ranks = capsys.readouterr().out.split("## Critical path of the run")[1]
    assert "| spin_kernel |" in ranks and "at::native::" not in ranks.split("\n## ")[0]
