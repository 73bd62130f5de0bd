"""Where the report cannot decide, the label is ``undetermined`` with the sections to collect,
never ``balanced`` or ``instruction-bound`` by default; where the ``_active`` pipe metrics are
missing, their ``_elapsed`` forms decide instead."""

from __future__ import annotations

import math

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import diagnose
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.model import Metric
from tests.diagnosis.conftest import Kernel, find, kernels_of

PIPES = [name for _, name in (*n.BUSY_PIPES, *n.OTHER_PIPES)]


def without(k: Kernel, *prefixes: str, names: tuple[str, ...] = ()) -> dict[str, Metric]:
    return {
        name: m
        for name, m in k.summary.metrics.items()
        if not name.startswith(prefixes) and name not in names
    }


def test_no_speed_of_light_is_undetermined_and_names_the_section() -> None:
    k = find("zoo", "small_grid_8_blocks")
    metrics = without(k, "sm__throughput", "gpu__compute_memory", "gpu__dram_throughput")
    sections = set(k.summary.sections) - {"SpeedOfLight"}
    d = diagnose(metrics, k.summary.rules, sections)
    assert d.label == "undetermined"
    assert d.bottleneck.collect == ("SpeedOfLight",)
    assert "--section SpeedOfLight" in d.bottleneck.summary
    # What could be checked still is: the 8-block grid.
    assert d.has_flag("grid-too-small", min_severity="critical")


def test_compute_side_without_pipes_is_not_instruction_bound() -> None:
    k = find("gemm_torch_default", "nvjet_sm90_tst_256x128")
    pipes = (*PIPES, *(n.elapsed_form(p) for p in PIPES))
    d = diagnose(without(k, names=pipes), k.summary.rules, k.summary.sections)
    assert d.label == "undetermined"
    assert d.bottleneck.collect == ("ComputeWorkloadAnalysis",)
    assert k.diagnosis.label == "compute-bound"  # with the _elapsed pipes it is decided


def test_memory_side_without_the_breakdown_is_undetermined() -> None:
    k = find("zoo_a", "mm_tiled")
    d = diagnose(without(k, "l1tex__throughput", "lts__throughput"), (), k.summary.sections)
    assert d.label == "undetermined"
    assert "SpeedOfLight" in d.bottleneck.collect


def test_latency_side_without_occupancy_is_undetermined() -> None:
    k = find("histogram", "histogram_shared_privatized")
    occupancy = (n.THEORETICAL_OCC, n.ACHIEVED_OCC)
    d = diagnose(without(k, names=occupancy), (), set(k.summary.sections) - {"Occupancy"})
    assert d.label == "undetermined"
    assert d.bottleneck.collect == ("Occupancy",)
    assert k.diagnosis.label == "latency-bound"


def test_both_busy_without_pipes_is_not_balanced() -> None:
    k = find("zoo_a", "mm_naive")
    metrics = without(k, names=(*PIPES, *(n.elapsed_form(p) for p in PIPES)))
    for name in (n.SM_PCT, n.MEM_PCT):
        metrics[name] = Metric(name, 80.0, "%")
    metrics[n.DRAM_PCT] = Metric(n.DRAM_PCT, 10.0, "%")
    d = diagnose(metrics, (), k.summary.sections)
    assert d.label == "undetermined" and d.bottleneck.collect == ("ComputeWorkloadAnalysis",)


def test_a_kernel_whose_profiling_failed_says_so() -> None:
    k = find("zoo", "dram_stream_saxpy_f4")
    metrics = dict(k.summary.metrics)
    for name in (n.DURATION, n.SM_PCT, n.MEM_PCT, n.DRAM_PCT):
        metrics[name] = Metric(name, math.nan, "")
    d = diagnose(metrics, k.summary.rules, k.summary.sections)
    assert d.label == "undetermined"
    assert "failed" in d.bottleneck.summary and "NaN" in d.bottleneck.summary
    assert d.flags == ()
    assert d.notes == (d.bottleneck.summary,)


@pytest.mark.parametrize("stem", ["gemm_sets_full", "gemm_torch_full", "zoo", "join_kernels"])
def test_elapsed_pipes_decide_as_the_active_ones_do(stem: str) -> None:
    """Dropping every ``_active`` pipe metric of a full-set report (what a default-set report
    lacks) leaves each kernel with the label its ``_elapsed`` forms give: the same one."""
    for k in kernels_of(stem):
        d = diagnose(without(k, names=tuple(PIPES)), k.summary.rules, k.summary.sections)
        assert d.label == k.diagnosis.label, (stem, k.name)
