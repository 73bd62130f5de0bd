"""Every CSV export writes whole numbers as integers (``182592``, not ``182592.0``)."""

from __future__ import annotations

import csv
import io
import re

import pytest

from kernelscope.export.writer import ExportOptions, render
from tests.conftest import NCU_SAMPLES, SAMPLES

WHOLE_AS_FLOAT = re.compile(r"^-?\d+\.0$")


def cells(text: str) -> list[str]:
    return [c for row in csv.reader(io.StringIO(text)) for c in row]


def test_the_kernel_csv_writes_integers_as_integers():
    text = render(NCU_SAMPLES / "zoo_a.ncu-rep.xz", ExportOptions(fmt="csv"))
    assert text.splitlines()[1].startswith(
        '0,saxpy_f4,"saxpy_f4(const float4 *, float4 *, float, int)",saxpy_f4,65536,256,65536,'
        "256,182592,18,11.226857757607942,"
    )
    assert not [c for c in cells(text) if WHOLE_AS_FLOAT.match(c)]


def test_the_ranks_csv_writes_integers_as_integers():
    text = render(SAMPLES / "nsys" / "ranks", ExportOptions(fmt="csv"))
    assert "rank0.sqlite.xz,1369,vm,150,8,nvtx,112679092,1.775181833285965,24535124," in (
        text.splitlines()[1]
    )
    assert not [c for c in cells(text) if WHOLE_AS_FLOAT.match(c)]


@pytest.mark.parametrize("inputs", [
    (NCU_SAMPLES / "gemm_naive.ncu-rep.xz", NCU_SAMPLES / "gemm_wmma.ncu-rep.xz"),
    (SAMPLES / "nsys" / "graph_eager.sqlite.xz", SAMPLES / "nsys" / "graph_replay.sqlite.xz"),
], ids=["kernels", "timelines"])
def test_the_diff_csv_writes_integers_as_integers(inputs):
    text = render(inputs, ExportOptions(fmt="csv"), subcommand="diff")
    assert not [c for c in cells(text) if WHOLE_AS_FLOAT.match(c)]


def test_the_join_csv_writes_integers_as_integers():
    inputs = (SAMPLES / "nsys" / "join_trace.sqlite.xz", NCU_SAMPLES / "join_kernels.ncu-rep.xz")
    text = render(inputs, ExportOptions(fmt="csv"), subcommand="join")
    assert not [c for c in cells(text) if WHOLE_AS_FLOAT.match(c)]
