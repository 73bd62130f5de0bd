"""``--model-flops``: MFU from the model's FLOPs per step in ``summary`` and ``export``; a
value that is not a positive number is one sentence and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import SAMPLES

STEP = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


def kernelscope(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kernelscope", *args], capture_output=True,
                          stdin=subprocess.DEVNULL, text=True, timeout=300)


def test_export_and_summary_take_the_models_flops() -> None:
    done = kernelscope("export", str(STEP), "-f", "json", "--model-flops", "2e12")
    assert done.returncode == 0, done.stderr
    mfu = json.loads(done.stdout)["mfu"]
    assert [m["step"] for m in mfu] == [2, 3, 4]
    for step in mfu:
        assert step["source"] == "--model-flops" and step["model_flops"] == 2e12
        assert step["mfu_pct"] == pytest.approx(
            100 * 2e12 / (step["duration_ns"] * 1e-9 * 989.5e12))
    summary = kernelscope("summary", str(STEP), "--model-flops", "2e12")
    assert summary.returncode == 0, summary.stderr
    assert "MFU step 2: " in summary.stdout and "FLOPs from --model-flops" in summary.stdout


@pytest.mark.parametrize("value", ["0", "-5", "inf"])
def test_a_model_flops_that_is_not_positive_is_refused(value: str) -> None:
    done = kernelscope("summary", str(STEP), f"--model-flops={value}")
    assert done.returncode == 2 and not done.stdout
    assert done.stderr.strip() == ("kernelscope: --model-flops takes the model's FLOPs per "
                                   "step, a finite number above 0.")
