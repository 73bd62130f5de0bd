"""Roofline numbers equal what Nsight Compute states: its SOLFPRoofline rule and chart metrics."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest

from kernelscope.kinds.ncu.analysis.roofline import PRECISION_KEYS, compute_roofline
from kernelscope.kinds.ncu.analysis.roofline.compute import _NOTHING_READ, _computed
from tests.conftest import ncu_sample_paths
from tests.diagnosis.conftest import kernels_of, opened
from tests.ncu.oracle import load_details, stem_of

STEMS = [stem_of(p) for p in ncu_sample_paths()]
RULE = re.compile(
    r"performance on this device is (\d+):1\. The (?:workload|kernel) achieved\s+(close to\s+)?"
    r"(\d+)% of this device's FP32 peak performance and\s+(close to\s+)?(\d+)% of its FP64",
    re.IGNORECASE,
)


def _check(pct: float, close: str | None, printed: str) -> None:
    assert f"{pct:.0f}" == printed, (pct, printed)
    assert bool(close) == (0.0 < pct < 1.0), (pct, close)


def rule_cases() -> list[tuple[str, int]]:
    out = []
    for stem in STEMS:
        for k in kernels_of(stem):
            if any(r.rule == "SOLFPRoofline" for r in k.summary.rules):
                out.append((stem, k.id))
    return out


CASES = rule_cases()


def test_there_are_roofline_kernels_to_check() -> None:
    assert len(CASES) >= 6


@pytest.mark.parametrize(("stem", "kernel_id"), CASES, ids=[f"{s}:{i}" for s, i in CASES])
def test_fp32_fp64_share_equals_the_solfproofline_rule(stem: str, kernel_id: int) -> None:
    k = kernels_of(stem)[kernel_id]
    rule = next(r for r in k.summary.rules if r.rule == "SOLFPRoofline")
    found = RULE.search(rule.message)
    assert found, rule.message
    ratio, fp32_close, fp32, fp64_close, fp64 = found.groups()
    roof = k.diagnosis.roofline
    assert roof is not None
    p32, p64 = roof.point("fp32"), roof.point("fp64")
    assert p32 is not None and p64 is not None
    _check(p32.pct_of_peak, fp32_close, fp32)
    _check(p64.pct_of_peak, fp64_close, fp64)
    assert f"{p32.peak_flops_per_s / p64.peak_flops_per_s:.0f}" == ratio


@pytest.mark.parametrize("stem", STEMS)
def test_rule_text_in_the_oracle_csv_agrees(stem: str) -> None:
    """The same check against what the ncu CLI printed (the committed details oracle)."""
    rows = [r for r in load_details(stem) if r.get("Rule Name") == "SOLFPRoofline"]
    for row in rows:
        k = kernels_of(stem)[int(row["ID"])]
        found = RULE.search(row["Rule Description"])
        assert found, row["Rule Description"]
        _, c32, fp32, c64, fp64 = found.groups()
        roof = k.diagnosis.roofline
        assert roof is not None
        _check(roof.points["fp32"].pct_of_peak, c32, fp32)
        _check(roof.points["fp64"].pct_of_peak, c64, fp64)


def _chart_value(metrics: dict, name: str) -> float:
    return float(metrics[name].value)


@pytest.mark.parametrize(("stem", "kernel_id"), CASES, ids=[f"{s}:{i}" for s, i in CASES])
def test_points_equal_the_chart_sections_metrics(stem: str, kernel_id: int) -> None:
    """Achieved work and ceilings rebuilt from NCU's own derived chart metrics."""
    everything = opened(stem).all_metrics(kernel_id)
    roof = compute_roofline(kernels_of(stem)[kernel_id].summary.metrics)
    v = lambda name: _chart_value(everything, name)  # noqa: E731
    smsp_clock, sm_clock = (
        v("smsp__cycles_elapsed.avg.per_second"),
        v("sm__cycles_elapsed.avg.per_second"),
    )
    fp32 = (
        v("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed")
        + v("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed")
        + v("derived__smsp__sass_thread_inst_executed_op_ffma_pred_on_x2")
    ) * smsp_clock
    p32 = roof.points["fp32"]
    assert p32.flops_per_s == pytest.approx(fp32, rel=1e-9)
    peak32 = v("derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2") * sm_clock
    assert p32.peak_flops_per_s == pytest.approx(peak32, rel=1e-9)
    peak64 = v("derived__sm__sass_thread_inst_executed_op_dfma_pred_on_x2") * sm_clock
    assert roof.points["fp64"].peak_flops_per_s == pytest.approx(peak64, rel=1e-9)
    half = (
        v("derived__smsp__sass_thread_inst_executed_op_hadd_pred_on_x2")
        + v("derived__smsp__sass_thread_inst_executed_op_hmul_pred_on_x2")
        + v("derived__smsp__sass_thread_inst_executed_op_hfma_pred_on_x4")
    ) * smsp_clock
    assert roof.points["fp16"].flops_per_s == pytest.approx(half, rel=1e-9, abs=1e-6)
    peak16 = v("derived__sm__sass_thread_inst_executed_op_hfma_pred_on_x4") * sm_clock
    assert roof.points["fp16"].peak_flops_per_s == pytest.approx(peak16, rel=1e-9)
    dram = v("dram__bytes.sum.per_second")
    if p32.flops_per_s > 0 and dram > 0:
        assert p32.intensity == pytest.approx(p32.flops_per_s / dram, rel=1e-9)
    l2 = v("derived__lts__lts2xbar_bytes.sum.per_second")
    if p32.flops_per_s > 0 and l2 > 0:
        assert p32.intensity_by_level["l2"] == pytest.approx(p32.flops_per_s / l2, rel=1e-9)
    ceilings = {c.level: c.bytes_per_s for c in p32.ceilings}
    assert ceilings["dram"] == pytest.approx(
        v("dram__bytes.sum.peak_sustained") * v("dram__cycles_elapsed.avg.per_second")
    )
    assert ceilings["l2"] == pytest.approx(
        v("derived__lts__lts2xbar_bytes.sum.peak_sustained")
        * v("lts__cycles_elapsed.avg.per_second")
    )
    assert ceilings["l1"] == pytest.approx(
        v("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained")
        * v("l1tex__cycles_elapsed.avg.per_second")
    )


def test_ridge_point_is_peak_over_bandwidth() -> None:
    p = kernels_of("zoo_a")[0].diagnosis.roofline.points["fp32"]
    for c in p.ceilings:
        assert c.ridge_intensity == pytest.approx(p.peak_flops_per_s / c.bytes_per_s)


def test_to_dict_contract() -> None:
    d = kernels_of("zoo_a")[3].diagnosis.to_dict()["roofline"]
    assert set(d) == set(PRECISION_KEYS)
    for entry in d.values():
        assert {"flops_per_s", "intensity", "peak_flops_per_s", "pct_of_peak"} <= set(entry)
    assert d["fp32"]["pct_of_peak"] == pytest.approx(13.876, abs=1e-3)
    assert math.isclose(d["fp32"]["intensity"], 379.68, rel_tol=1e-3)


def test_missing_metrics_give_no_point_and_a_reason() -> None:
    roof = compute_roofline({})
    assert not roof.points
    assert set(roof.missing) == set(PRECISION_KEYS)


@pytest.mark.parametrize("stem", ["many_launches", "zoo", "gemm_sets_full", "gemm_torch_full"])
def test_metrics_without_the_names_read_of_none_give_the_roofline_of_none(stem: str) -> None:
    """The roofline of metrics that hold none of the names the roofline of no metrics reads is
    made without reading them (``compute._NOTHING_READ``): the same as reading them, and a
    roofline of its own (not one shared between kernels)."""
    for kernel in kernels_of(stem)[:40]:
        metrics = kernel.summary.metrics
        roof = compute_roofline(metrics)
        assert roof == _computed(metrics) and repr(roof) == repr(_computed(metrics))
        assert list(vars(roof).items()) == list(vars(_computed(metrics)).items())
        assert roof.missing is not compute_roofline(metrics).missing
        with pytest.raises(dataclasses.FrozenInstanceError):
            roof.points = {}  # type: ignore[misc]
        if stem == "many_launches":  # collected without the roofline's metrics: the short way
            assert metrics.keys().isdisjoint(_NOTHING_READ) and not roof.points
    assert compute_roofline({}) == _computed({}) and _NOTHING_READ


@pytest.mark.parametrize(
    ("name", "m", "n", "k"),
    [("nvjet_sm90_tst_256x128", 4096, 4096, 4096), ("splitK_NNT", 16, 4096, 4096)],
)
def test_tensor_flops_equal_the_gemm_arithmetic(name: str, m: int, n: int, k: int) -> None:
    """cuBLAS bf16 GEMMs: achieved tensor FLOP/s = 2·M·N·K / duration, read from the counters."""
    kernel = next(x for x in kernels_of("torch_ops") if name in x.demangled)
    point = kernel.diagnosis.roofline.points["tensor"]
    duration_s = kernel.summary.metrics["gpu__time_duration.sum"].number * 1e-9
    assert point.flops_per_s == pytest.approx(2 * m * n * k / duration_s, rel=2e-3)
    assert point.detail.keys() == {"bf16"}
    assert point.pct_of_peak == pytest.approx(point.detail["bf16"])


def test_big_gemm_reaches_90_percent_of_the_dense_bf16_peak() -> None:
    kernel = next(x for x in kernels_of("torch_ops") if "256x128" in x.demangled)
    point = kernel.diagnosis.roofline.points["tensor"]
    assert 85 < point.pct_of_peak < 95
    sm = kernel.summary.metrics["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"]
    assert point.pct_of_peak == pytest.approx(sm.number, abs=6)
