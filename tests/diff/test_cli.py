"""``kernelscope diff`` headless: the JSON contract, Markdown with the filled case record, CSV,
--fail-if-slower's exit 1, and one sentence with exit 2 for bad inputs."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from kernelscope.export.markdown import BLANK
from kernelscope.tui.cli import main
from tests.diff.conftest import NSYS, ncu

NAIVE, WMMA = ncu("gemm_naive"), ncu("gemm_wmma")
# gemm_naive and gemm_wmma share neither a function name nor a launch shape, so they are
# paired by hand (issue 34: "the only kernels left" pairs only kernels that share one).
AHEAD = ("--pair", "gemm_naive=gemm_wmma")
BACK = ("--pair", "gemm_wmma=gemm_naive")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_contract(capsys, tmp_path: Path) -> None:
    target = tmp_path / "diff.json"
    assert main(["diff", NAIVE, WMMA, *AHEAD, "--format", "json", "-o", str(target)]) == 0
    doc = json.loads(target.read_text(encoding="utf-8"))
    assert doc["schema"] == "kernelscope/diff/1" and doc["kind"] == "ncu"
    assert doc["before"]["path"] == NAIVE and doc["after"]["path"] == WMMA
    (pair,) = doc["pairs"]
    assert pair["before"] == {**pair["before"], "id": 0, "name": "gemm_naive",
                              "duration_ns": 3177344.0, "bottleneck": "l1-bound"}
    assert pair["after"]["name"] == "gemm_wmma" and pair["after"]["duration_ns"] == 356768.0
    assert pair["speedup"] == pytest.approx(3177344 / 356768)
    assert pair["label_change"] == "l1-bound → latency-bound"
    assert "l1tex-pressure" in pair["flags_resolved"] and "occupancy-limiter" in pair["flags_new"]
    assert pair["metrics"]["launch__registers_per_thread"] == {
        "before": 32.0, "after": 63.0, "unit": "register/thread"}
    assert doc["unmatched_before"] == doc["unmatched_after"] == []
    (family,) = doc["families"]
    assert family["before_ns"] == 3177344.0 and family["after_ns"] == 356768.0
    assert family["change_pct"] == pytest.approx(100 * (356768 / 3177344 - 1))


def test_markdown_fills_the_case_record(capsys) -> None:
    code, out, _ = run(capsys, "diff", ncu("transpose_conflicts"), ncu("transpose_padded"),
                       "-f", "md")
    assert code == 0
    assert "| shared-bank-conflict → dram-bound |" in out
    record = out[out.index("### Change"):]
    change, remeasure, conclusion = (record.split(f"### {h}")[1].split("###")[0]
                                     for h in ("Change", "Re-measure", "Conclusion"))
    assert "transpose_smem" in change and f"What was changed: {BLANK}" in change
    assert "327.49 us → 143.49 us" in remeasure and "2.28× faster" in remeasure
    assert BLANK not in remeasure + conclusion
    assert "`shared-bank-conflict → dram-bound`" in conclusion
    assert "Moved: neither kernel has a roofline point" in out  # a transpose does no FLOPs
    out = run(capsys, "diff", NAIVE, WMMA, *AHEAD, "-f", "md")[1]
    assert "◆ after  • before" in out and "after: gemm_wmma ◆" in out  # both on one chart
    assert "Moved: before 5.41TFLOP/s FP32" in out and "after 48.2TFLOP/s Tensor" in out


def test_csv_and_timelines(capsys) -> None:
    code, out, _ = run(capsys, "diff", str(NSYS / "graph_eager.sqlite.xz"),
                       str(NSYS / "graph_replay.sqlite.xz"), "-f", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    launch = next(r for r in rows if r["table"] == "api" and r["name"] == "cudaLaunchKernel")
    assert (launch["before_count"], launch["after_count"]) == ("1034", "172")
    assert {r["table"] for r in rows} >= {"gpu", "family", "gap", "nvtx", "copy", "finding"}
    code, out, _ = run(capsys, "diff", NAIVE, WMMA, *AHEAD, "-f", "csv")
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert row["after_name"] == "gemm_wmma" and row["gpu__time_duration.sum:after"] == "356768"


def test_fail_if_slower_exits_1_naming_the_kernels(capsys) -> None:
    code, out, err = run(capsys, "diff", WMMA, NAIVE, *BACK, "--fail-if-slower", "5", "-f", "json")
    assert code == 1 and json.loads(out)["schema"] == "kernelscope/diff/1"
    assert err.startswith("kernelscope: The summed kernel time regressed by +790.6 %")
    assert "gemm_naive (ID 0 → 0) 356.77 us → 3.18 ms" in err and err.count("\n") == 1
    assert run(capsys, "diff", NAIVE, WMMA, *AHEAD, "--fail-if-slower", "5")[0] == 0
    assert run(capsys, "export", "diff", WMMA, NAIVE, *BACK, "--fail-if-slower", "900")[0] == 0


@pytest.mark.parametrize(
    ("inputs", "sentence"),
    [
        (["missing.ncu-rep", NAIVE], "The before input: missing.ncu-rep: no such file."),
        ([NAIVE, "BAD"], "The after input: "),
        ([NAIVE, str(NSYS / "graph_eager.sqlite.xz")],
         "gemm_naive.ncu-rep.xz is a kernel report (Nsight Compute) and graph_eager.sqlite.xz "
         "is a timeline (Nsight Systems): a diff compares two of one kind."),
        ([NAIVE], "'diff' takes 2 inputs, not 1."),
    ],
)
def test_bad_inputs_one_sentence_exit_2(capsys, tmp_path: Path, inputs, sentence) -> None:
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes(b"\x01\x02 random bytes")
    inputs = [str(bad) if p == "BAD" else p for p in inputs]
    code, out, err = run(capsys, "diff", *inputs, "-f", "md")
    assert code == 2 and not out
    assert err.startswith(f"kernelscope: {sentence}") and err.count("\n") == 1


def test_pair_and_gate_belong_to_diff(capsys) -> None:
    code, _, err = run(capsys, "export", NAIVE, "--pair", "0=0")
    assert code == 2 and "use it with 'kernelscope diff BEFORE AFTER'" in err
    code, _, err = run(capsys, "diff", NAIVE, WMMA, "--pair", "gemm_naive", "-f", "md")
    assert code == 2 and "--pair takes BEFORE=AFTER" in err


def test_percentages_change_in_percentage_points(capsys) -> None:
    """A hit rate of 87.45 % → 7.55 % fell by 79.90 points, not by 91.4 %; counts keep their
    relative change."""
    out = run(capsys, "diff", NAIVE, WMMA, *AHEAD, "-f", "md")[1]
    assert "| Memory | L1/TEX hit rate | 87.45 % | 7.55 % | −79.90 pp (worse) |" in out
    assert "| Occupancy | Theoretical occupancy | 100 % | 50 % | −50.00 pp (worse) |" in out
    assert "| Memory | Shared wavefronts | 262,144 | 21,893,137 | +8,251.6 % (worse) |" in out
    assert "- L1/TEX hit rate: 87.45 % → 7.55 % (−79.90 pp)" in out
    assert "−91.4 %" not in out


def test_unrelated_reports_get_no_verdict(capsys) -> None:
    """Nothing of gemm_naive pairs with the histogram kernels: no summed-time verdict, and
    --fail-if-slower neither passes nor fails them: it says so and exits 2."""
    histogram = ncu("histogram")
    code, out, err = run(capsys, "diff", NAIVE, histogram, "-f", "md")
    assert code == 0 and err == ""
    assert ("- Summed kernel time: 3.18 ms → 3.50 ms; nothing could be paired between the two "
            "inputs, so they are not compared (no verdict)") in out
    code, out, err = run(capsys, "diff", NAIVE, histogram, "-f", "json", "--fail-if-slower", "5")
    assert code == 2
    assert err == ("kernelscope: --fail-if-slower gives no verdict: nothing of the two inputs "
                   "could be paired (no kernel of one matches one of the other), so their times "
                   "are not compared; check that both are of the same program, or pair kernels "
                   "with --pair BEFORE=AFTER.\n")
    summed = json.loads(out)["summed"]
    assert (summed["basis"], summed["change_pct"]) == ("unpaired", None)
    # paired by hand, the same two reports are compared again
    code, _, err = run(capsys, "diff", NAIVE, histogram, "-f", "md", "--pair", "0=0",
                       "--fail-if-slower", "900")
    assert (code, err) == (0, "")
