"""The timeline exports print numbers as nsys does: the kernel CSV equals ``nsys stats -r
cuda_gpu_kern_sum --format csv`` byte for byte, the Markdown's ``Bytes (MB)`` holds MB, no raw
field name leaks into a header, and a nearly idle GPU's busy strip still shows when it
worked."""

from __future__ import annotations

import lzma

import pytest

from kernelscope.export.writer import ExportOptions, render
from tests.conftest import SAMPLES

NSYS = SAMPLES / "nsys"
TORCH = NSYS / "timeline_torch.sqlite.xz"
WITH_ORACLE = sorted(
    p for p in NSYS.glob("*.sqlite.xz")
    if (NSYS / "oracle" / f"{p.name.removesuffix('.sqlite.xz')}_cuda_gpu_kern_sum.csv.xz").exists()
)


@pytest.fixture(scope="module")
def torch_md() -> str:
    return render(TORCH, ExportOptions(fmt="md"))


@pytest.mark.parametrize("path", WITH_ORACLE, ids=lambda p: p.name.split(".")[0])
def test_the_kernel_csv_is_what_nsys_prints(path):
    stem = path.name.removesuffix(".sqlite.xz")
    oracle = NSYS / "oracle" / f"{stem}_cuda_gpu_kern_sum.csv.xz"
    assert render(path, ExportOptions(fmt="csv")) == lzma.decompress(oracle.read_bytes()).decode()


def test_bytes_are_in_mb_as_nsys_prints_them(torch_md):
    assert "| 9.341 ms | 9.6991 | Pageable | Device | 67.109 | 751 | 0 | 1 |  | 7 |" in torch_md
    assert "| 1.312 us | 4.2232 | Pageable | Device | 0.008 | 751 |" in torch_md
    assert "67108864" not in torch_md


def test_no_raw_field_name_is_a_header(torch_md):
    assert "end_ns" not in torch_md
    assert "| Row# | Duration | Start (s) | End (s) | PID | Device ID | Context ID |" in torch_md


def test_a_nearly_idle_gpu_still_shows_when_it_worked(torch_md):
    assert (
        "Device 0, busy over time (72 windows, left to right; ▁ = any work, full block = "
        "100 %; busiest window 5.8 %):\n\n```text\n"
        "|                          ▁                                 ▁▁▁▁▁▁      |\n```"
    ) in torch_md


def test_the_kernel_csv_of_several_processes_names_them(tmp_path):
    from tests.ranks.test_wild import merge_traces

    plain = []
    for rank in (0, 1):
        target = tmp_path / f"rank{rank}.sqlite"
        target.write_bytes(lzma.decompress((NSYS / "ranks" / f"rank{rank}.sqlite.xz").read_bytes()))
        plain.append(target)
    merged = merge_traces(plain[0], plain[1], tmp_path / "both.sqlite")
    lines = render(merged, ExportOptions(fmt="csv")).splitlines()
    assert lines[0] == (
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name,"
        "PIDs"
    )
    assert all(line.endswith(",1369 1375") for line in lines[1:]), lines[1:3]
    one = render(plain[0], ExportOptions(fmt="csv")).splitlines()
    assert one[0].endswith(",Name")
