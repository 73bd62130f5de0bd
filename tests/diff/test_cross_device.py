"""A diff across two GPUs says so (issue 34), on two third-party kernel reports: an RMS norm's
random fill on an NVIDIA GH200 and NVIDIA's vector add on a GeForce RTX 3070. The devices' name,
SM count and clocks are those ``ncu --page raw`` printed for each report; the two single-kernel
reports share neither a function name nor a launch shape, so nothing is paired unless asked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelscope.tui.cli import main
from tests.conftest import SAMPLES
from tests.ncu.oracle import parse_number
from tests.wild.conftest import require_wild
from tests.wild.oracles import ncu_raw

GH200 = "AlpriElse__cs599k__rms-norm-pytorch.ncu-rep"
RTX3070 = "NVIDIA__nsight-training__CuVectorAddDrv.ncu-rep"
SAME_GPU = "thedavidchu__speedy_scan__profile.ncu-rep"


def wild(name: str) -> str:
    return str(require_wild() / "ncu" / f"{name}.xz")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def oracle_device(name: str) -> dict[str, object]:
    raw = ncu_raw(name)
    assert raw is not None
    row = raw.rows[0]

    def number(metric: str) -> float | None:
        return parse_number(row[metric])

    sm_count = number("device__attribute_multiprocessor_count")
    return {"name": row["device__attribute_display_name"],
            "sm_count": None if sm_count is None else int(sm_count),
            "clock_khz": number("device__attribute_clock_rate"),
            "memory_clock_khz": number("device__attribute_memory_clock_rate")}


def test_the_json_says_the_gpus_differ_and_pairs_nothing(capsys, tmp_path: Path) -> None:
    code, out = run(capsys, "diff", wild(GH200), wild(RTX3070), "-f", "json")
    assert code == 0
    doc = json.loads(out)
    devices = doc["devices"]
    assert devices["before"] == [oracle_device(GH200)]
    assert devices["after"] == [oracle_device(RTX3070)]
    assert devices["same"] is False
    assert devices["differ_in"] == ["name", "SM count", "clock", "memory clock"]
    assert doc["summed"]["across_gpus"] is True
    assert doc["pairs"] == [] and doc["summed"]["basis"] == "unpaired"
    assert [k["name"] for k in doc["unmatched_before"]] == [
        "distribution_elementwise_grid_stride_kernel"]
    assert [k["name"] for k in doc["unmatched_after"]] == ["VecAdd_kernel"]


def test_the_headline_and_a_speedup_say_across_gpus(capsys) -> None:
    code, out = run(capsys, "diff", wild(GH200), wild(RTX3070), "--pair", "0=0", "-f", "md")
    assert code == 0
    assert ("**Different GPUs (name, SM count, clock, memory clock): before on NVIDIA GH200 "
            "480GB (132 SMs, 1.98 GHz), after on NVIDIA GeForce RTX 3070 (46 SMs, 1.73 GHz); "
            "speedups compare the GPUs as well as the code.**") in out.splitlines()[2]
    headline = next(line for line in out.splitlines() if line.startswith("- Summed kernel"))
    assert headline.endswith("× across GPUs)")
    row = next(line for line in out.splitlines() if line.startswith("| 0 distribution"))
    assert "× across GPUs |" in row
    assert "× faster, across GPUs)" in out  # the case record's Re-measure
    code, out = run(capsys, "summary", "diff", wild(GH200), wild(RTX3070))
    assert out.splitlines()[1].startswith("Different GPUs (name, SM count, clock, memory clock)")


def test_one_gpu_model_on_both_sides_is_no_difference(capsys) -> None:
    code, out = run(capsys, "diff", wild(RTX3070), wild(SAME_GPU), "-f", "json")
    doc = json.loads(out)
    assert code == 0 and doc["devices"]["same"] is True and doc["devices"]["differ_in"] == []
    assert doc["summed"]["across_gpus"] is False
    assert doc["pairs"] == []  # VecAdd_kernel and kernel: no name or shape in common
    code, out = run(capsys, "diff", wild(RTX3070), wild(SAME_GPU), "-f", "md")
    assert "Different GPUs" not in out


def test_two_timelines_from_different_gpus(capsys, tmp_path: Path) -> None:
    """A timeline records each GPU's name and SM count (``TARGET_INFO_GPU``), no clocks: the
    NTHU-SC trace (GeForce RTX 4070 SUPER) against the join sample (H200)."""
    nthu = require_wild() / "nsys" / "NTHU-SC__ISC25-ICON-C__gpu.sqlite.xz"
    trace = SAMPLES / "nsys" / "join_trace.sqlite.xz"
    code, out = run(capsys, "diff", str(nthu), str(trace), "-f", "json")
    assert code == 0
    devices = json.loads(out)["devices"]
    assert devices["before"] == [{"name": "NVIDIA GeForce RTX 4070 SUPER", "sm_count": 56,
                                  "clock_khz": None, "memory_clock_khz": None}]
    assert devices["after"][0]["name"] == "NVIDIA H200" and devices["after"][0]["sm_count"] == 132
    assert devices["differ_in"] == ["name", "SM count"]
    code, out = run(capsys, "diff", str(nthu), str(trace), "-f", "md")
    assert ("**Different GPUs (name, SM count): before on NVIDIA GeForce RTX 4070 SUPER (56 "
            "SMs), after on NVIDIA H200 (132 SMs)") in out
