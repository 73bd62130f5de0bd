"""The critical path of the committed Kineto trace against HTA 0.5.0's
(``samples/kineto/oracle/hta_critical_path.py``): both find the steps bound by the host.

HTA's path is shorter (7.5-9.2 ms, the nodes of the instance's operators and kernels, where
the ProfilerStep ranges span 15.7-19.8 ms), so the shares are compared, not the times: HTA
puts 99.7 % of every instance on the CPU and 0.01 % on kernels; kernelscope puts no kernel on
any step's path and at least 97 % on the host (its own time, CUDA calls, the other thread),
the rest launch latency, copies and the synchronisation's return.
"""

from __future__ import annotations

import csv
import lzma
import re

import orjson
import polars as pl
import pytest

from kernelscope.kinds.kineto.analysis.timeline import open_kineto
from tests.conftest import SAMPLES

TRACE = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"
ORACLE = SAMPLES / "kineto" / "oracle" / "kineto_step.critical_path.csv"
HOST = ("cpu", "api", "thread wait", "untraced")


def test_both_find_every_step_bound_by_the_host() -> None:
    hta = list(csv.DictReader(ORACLE.open()))
    segments = open_kineto(TRACE).critical_path.segments
    shares = segments.group_by("step").agg(
        (100 * pl.col("ns").filter(pl.col("kind").is_in(HOST)).sum() / pl.col("ns").sum())
        .alias("host"),
        pl.col("ns").filter(pl.col("kind").is_in(["kernel", "communication"])).sum()
        .alias("kernel_ns")).sort("step")
    assert len(hta) == shares.height == 3
    for theirs, ours in zip(hta, shares.iter_rows(named=True), strict=True):
        assert float(theirs["cpu_bound"]) > 99 and float(theirs["gpu_compute_bound"]) < 0.1
        assert ours["host"] > 97 and ours["kernel_ns"] == 0


# -- the what-if cases (samples/whatif), GPU-bound but for one ------------------------------
WHATIF = SAMPLES / "whatif"
WHATIF_ORACLE = WHATIF / "oracle"


def _hta_kernels(case: str) -> dict[int, dict[str, float]]:
    """Per ProfilerStep instance, the µs each kernel name spends on HTA's path; its memsets'
    zero and negative durations left out."""
    out: dict[int, dict[str, float]] = {}
    for row in csv.DictReader((WHATIF_ORACLE / f"{case}_base.hta_path_kernels.csv").open()):
        if abs(float(row["us"])) >= 10:
            out.setdefault(int(row["instance"]), {})[row["kernel"]] = float(row["us"])
    return out


def _as_hta_names(name: str) -> str:
    """A kernel's name as HTA's path names it: no anonymous namespace, no parameters."""
    return re.sub(r"\(.*\)$", "", name.replace("(anonymous namespace)", ""))


def _our_kernels(case: str) -> tuple[dict[int, dict[str, float]], list[int]]:
    """The same of kernelscope's path of the first three steps, and those steps' path
    lengths in ns."""
    segments = open_kineto(WHATIF / f"{case}_base.pt.trace.json.xz").critical_path.segments
    first = sorted(segments["step"].unique().to_list())[:3]
    out: dict[int, dict[str, float]] = {i: {} for i in range(len(first))}
    kernels = segments.filter(pl.col("kind") == "kernel").group_by("step", "name").agg(
        pl.col("ns").sum())
    for step, name, ns in kernels.iter_rows():
        if step in first:
            out[first.index(step)][_as_hta_names(name)] = ns / 1000
    lengths = segments.group_by("step").agg(pl.col("ns").sum()).sort("step")
    return out, [ns for step, ns in lengths.iter_rows() if step in first]


@pytest.mark.parametrize("case", ["serial", "beside", "shift"])
def test_both_put_the_same_kernels_on_the_path_of_a_gpu_bound_step(case: str) -> None:
    theirs = _hta_kernels(case)
    ours, _ = _our_kernels(case)
    assert len(theirs) == 3
    for instance, kernels in theirs.items():
        assert set(ours[instance]) == set(kernels)
        for name, us in kernels.items():
            assert ours[instance][name] == pytest.approx(us, rel=0.005), (case, instance, name)


def test_host_work_before_the_synchronise_bounds_the_step_which_hta_leaves_out() -> None:
    # HTA's path ends with the instance's last kernel: the 4 ms spin. The host then works
    # 10 ms before it synchronises; kernelscope's path is that host work, no kernel on it,
    # and the re-run with the spin halved took as long, as the path says
    theirs = _hta_kernels("hidden")
    ours, lengths = _our_kernels("hidden")
    measured = orjson.loads(lzma.decompress((WHATIF / "hidden_base.steps.json.xz").read_bytes()))
    rerun = orjson.loads(lzma.decompress((WHATIF / "hidden_fast.steps.json.xz").read_bytes()))
    for instance, kernels in theirs.items():
        assert list(kernels) == ["at::cuda::::spin_kernel"]
        assert kernels["at::cuda::::spin_kernel"] < 0.5 * measured["median_ms"] * 1000
        assert ours[instance] == {}
    for ns in lengths:
        assert ns / 1e6 == pytest.approx(measured["median_ms"], rel=0.01)
    assert rerun["median_ms"] == pytest.approx(measured["median_ms"], rel=0.01)
