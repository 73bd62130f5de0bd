"""A 1,000-launch pair: ``samples/nsys/many_launches`` (nsys) and ``samples/ncu/many_launches``
(ncu) of the same program and arguments. Every launch is matched, the families equal
``nsys stats``, and the Markdown names the launches of each family compactly."""

from __future__ import annotations

import csv
import io
import lzma

import pytest

from kernelscope.kinds.join.analysis import JoinReport, build_join, open_join
from kernelscope.kinds.join.export.join_export import join_markdown
from kernelscope.kinds.join.render.join_text import launches_text
from tests.conftest import SAMPLES
from tests.join.conftest import unpack

ORACLE = SAMPLES / "nsys" / "oracle" / "many_launches_cuda_gpu_kern_sum.csv.xz"


@pytest.fixture(scope="module")
def big_join(tmp_path_factory: pytest.TempPathFactory) -> JoinReport:
    folder = tmp_path_factory.mktemp("join_1000")
    trace = unpack(SAMPLES / "nsys" / "many_launches.sqlite.xz", folder / "trace.sqlite")
    kernels = unpack(SAMPLES / "ncu" / "many_launches.ncu-rep.xz", folder / "k.ncu-rep")
    inputs = open_join([trace, kernels])
    try:
        return build_join(inputs.timeline, inputs.reports)
    finally:
        inputs.close()


def test_every_launch_is_matched_and_the_families_equal_nsys_stats(big_join: JoinReport):
    assert [(r.kernels, r.matched) for r in big_join.kernel_reports] == [(1000, 1000)]
    oracle = list(csv.DictReader(io.StringIO(lzma.decompress(ORACLE.read_bytes()).decode())))
    kernels = {i.family: i for i in big_join.ranking if i.kind == "kernel"}
    assert len(kernels) == len(oracle) == 4
    for row in oracle:
        item = kernels[row["Name"]]
        assert item.total_ns == int(row["Total Time (ns)"])
        assert item.instances == int(row["Instances"]) == 250
        assert f"{100 * item.time_share:.1f}" == row["Time (%)"]
        assert item.profiled and len(item.ncu_ids) == 250


def test_the_launches_of_a_family_are_named_compactly(big_join: JoinReport):
    scale = next(i for i in big_join.ranking if i.title.startswith("ml_scale_4k"))
    assert launches_text(scale.ncu_ids) == "report 1 kernels 0–996 step 4 (250)"
    assert launches_text(((0, 7),)) == "report 1 kernel 7"
    assert launches_text(((1, 3), (0, 2), (1, 4))) == "report 1 kernel 2; report 2 kernels 3, 4 (2)"
    text = join_markdown(big_join)
    assert "report 1 kernels 0–996 step 4 (250)" in text
    assert "report 1 kernel 4," not in text
