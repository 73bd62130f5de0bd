"""Timeline diff rows are named as a summary names kernels (issue 34): the short names of every
kernel of the table, spelled out until they differ, so no two rows read alike and no name is
both new and gone.

An nvFuser training step (``../shared/wild``, NVIDIA/Fuser, H200) against the PyTorch join
sample: both run several ``vectorized_elementwise_kernel``, ``reduce_kernel``,
``unrolled_elementwise_kernel`` and ``FillFunctor`` instantiations, which compact names alone
would print alike. The rows are one per kernel name of either trace, as ``nsys stats``
``cuda_gpu_kern_sum`` lists them.
"""

from __future__ import annotations

import json

import pytest

from kernelscope.tui.cli import main
from tests.conftest import SAMPLES
from tests.nsys.oracle import read_csv
from tests.wild.conftest import require_wild
from tests.wild.oracles import nsys_csv

FUSER = "NVIDIA__Fuser__report1_2025-03"
JOIN = SAMPLES / "nsys" / "join_trace.sqlite.xz"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


def family_cells(markdown: str) -> list[list[str]]:
    """The cells of the Markdown's "Kernel families" table, one list per row."""
    section = markdown.split("## Kernel families", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ")][2:]
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in lines]


def test_no_two_rows_read_alike(capsys: pytest.CaptureFixture[str]) -> None:
    fuser = str(require_wild() / "nsys" / f"{FUSER}.sqlite.xz")
    before = {r["Name"] for r in nsys_csv(FUSER, "cuda_gpu_kern_sum") or []}
    after = {r["Name"] for r in read_csv(SAMPLES / "nsys" / "oracle"
                                         / "join_trace_cuda_gpu_kern_sum.csv.xz")}
    assert before and after
    rows = family_cells(run(capsys, "diff", fuser, str(JOIN), "-f", "md"))
    names = [r[0] for r in rows]
    assert len(rows) == len(before | after)
    assert len(set(names)) == len(names), sorted(n for n in names if names.count(n) > 1)
    new = {r[0] for r in rows if r[4] == "new"}
    gone = {r[0] for r in rows if r[4] == "gone"}
    assert len(new) == len(after - before) and len(gone) == len(before - after)
    assert not new & gone
    assert {"vectorized_elementwise<4, AUnaryFunctor<MulFunctor<float>>>",
            "vectorized_elementwise<8, AUnaryFunctor<MulFunctor<float>>>"} <= new
    doc = json.loads(run(capsys, "diff", fuser, str(JOIN), "-f", "json"))
    assert {f["name"] for f in doc["families"]} == before | after


def test_the_summary_names_them_apart_too(capsys: pytest.CaptureFixture[str]) -> None:
    fuser = str(require_wild() / "nsys" / f"{FUSER}.sqlite.xz")
    out = run(capsys, "summary", "diff", fuser, str(JOIN))
    rows = [line.split("|")[0].strip() for line in out.splitlines() if "|" in line][1:]
    assert rows and len(set(rows)) == len(rows)
