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

import polars as pl

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
