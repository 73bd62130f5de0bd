"""The Kineto trace's exports: the timeline's tables plus HTA's numbers and the gap causes
the host events name."""

from __future__ import annotations

import json

from tests.conftest import SAMPLES
from tests.kineto.test_kineto_inputs import run_cli

STEP = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


def test_json_has_the_breakdown_and_the_data_loading_gaps() -> None:
    out = run_cli("export", str(STEP), "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["schema"] == "kernelscope/kineto/1"
    assert doc["temporal_breakdown"] == {
        "idle_ns": 38448000, "compute_ns": 1033000, "non_compute_ns": 65000,
        "kernel_ns": 39546000, "idle_pct": 97.22, "compute_pct": 2.61, "non_compute_pct": 0.16,
    }
    assert doc["comm_comp_overlap_pct"] is None
    longest = sorted(doc["gaps"], key=lambda g: -g["duration_ns"])[:2]
    assert [g["cause"] for g in longest] == ["data-loading", "data-loading"]
    assert [s["step"] for s in doc["kineto"]["steps"]] == [2, 3, 4]


def test_markdown_ends_with_htas_numbers() -> None:
    out = run_cli("export", str(STEP), "--format", "md")
    assert out.returncode == 0, out.stderr
    assert "| 97.22 % | 2.61 % | 0.16 % | 39.55 ms |" in out.stdout
    assert "Communication overlapped by computation: no communication kernels" in out.stdout


def test_diff_of_two_kineto_traces() -> None:
    ranks = SAMPLES / "kineto" / "ranks"
    out = run_cli("diff", str(ranks / "rank0.pt.trace.json.xz"),
                  str(ranks / "rank2.pt.trace.json.xz"), "--format", "md")
    assert out.returncode == 0, out.stderr
    assert "- Summed kernel time: 759.68 us → 761.18 us (+0.2 %, 1.00×)" in out.stdout
    assert ("| vectorized_elementwise<tanh> | 16 | 73.66 us | 73.38 us | −0.4 % | 4.60 us | "
            "4.59 us |") in out.stdout


def test_kineto_trace_joins_with_kernel_reports() -> None:
    # torch_ops.ncu-rep profiles another program: only its float add kernel is the same
    # function and template instance as one of the trace's (matched by name, with another
    # grid: a weak estimate); the Kineto trace is the join's timeline (its families, its idle
    # time by cause, including allocation).
    out = run_cli("join", str(STEP), str(SAMPLES / "ncu" / "torch_ops.ncu-rep.xz"),
                  "--format", "md")
    assert out.returncode == 0, out.stderr
    assert ("Timeline: 171 kernels in 47 families, 1.202 ms of kernel time; GPU busy 1.275 ms "
            "of a 39.55 ms span. torch\\_ops.ncu-rep.xz: 7 kernels, 1 matched.") in out.stdout
    assert ("- Weak estimate: matched by name only: the profiled grid × block differs from the "
            "timeline's") in out.stdout
    assert "nsys" not in out.stdout.lower() and "nvtx" not in out.stdout.lower()  # own words
    assert ", mostly in range `forward`" in out.stdout
    assert ("| 6 | Memory allocation or pinning: GPU idle | idle | n/a | "
            "1.8 % | 3 | 721.6 us | all | ≤ 721.6 us | alloc |") in out.stdout
