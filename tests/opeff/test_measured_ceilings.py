"""In a join, the operators are set against the ceilings the kernel report measured: the peak
per cycle × the SM clock the profiled launches ran at, as Nsight Compute's roofline computes
them; checked against ``ncu --import … --page raw --csv`` (``samples/**/oracle``)."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest

from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.join.analysis.measured_peaks import CEILING_METRICS, launch_ceilings
from kernelscope.kinds.kineto.analysis.op_efficiency import kineto_op_efficiency
from kernelscope.kinds.kineto.model.model import read_trace
from kernelscope.kinds.ncu.analysis.roofline import compute_roofline
from kernelscope.kinds.ncu.model.report import NcuReport
from tests.conftest import NCU_ORACLE, NCU_SAMPLES, SAMPLES, read_csv_xz

OPEFF = SAMPLES / "opeff"
BF16_HGMMA = "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum.peak_sustained"
SOL_CLOCK = "gpc__cycles_elapsed.avg.per_second"
DURATION = "gpu__time_duration.sum"


def _oracle(path: Path) -> list[dict[str, str]]:
    header, _units, *rows = read_csv_xz(path)
    return [dict(zip(header, row, strict=True)) for row in rows]


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _clock(rows: list[dict[str, str]]) -> float:
    """The SM clock of ``rows`` weighted by their duration, from ncu's own numbers."""
    time = sum(_number(r[DURATION]) for r in rows)
    return sum(_number(r[SOL_CLOCK]) * _number(r[DURATION]) for r in rows) / time


PAIRS = [("gemm_sweep.pt.trace.json.xz", "opeff_gemm"), ("sdpa.pt.trace.json.xz", "opeff_sdpa")]


@pytest.mark.parametrize(("trace", "report"), PAIRS)
def test_operators_take_the_ceilings_nsight_compute_measured(trace: str, report: str) -> None:
    doc = json.loads(render([OPEFF / trace, OPEFF / f"{report}.ncu-rep.xz"],
                            ExportOptions(fmt="json"), subcommand="join"))
    oracle = _oracle(OPEFF / "oracle" / f"{report}.raw.csv.xz")
    unmatched = {u["id"] for u in doc["unmatched_kernels"]}
    matched = [r for r in oracle if int(r["ID"]) not in unmatched]
    assert matched and doc["kernels_matched"] == len(matched)
    per_cycle = _number(oracle[0][BF16_HGMMA])
    assert per_cycle == 132 * 4096  # H100 SXM: 132 SMs, 4,096 dense BF16 operations a cycle
    basis = doc["op_efficiency_basis"]["device_peaks"]
    assert basis["product"].startswith("NVIDIA H100 80GB HBM3 (measured by Nsight Compute")
    device_peak = per_cycle * _clock(matched) / 1e12
    assert basis["tflops"]["bf16"] == pytest.approx(device_peak, rel=1e-6)
    assert basis["tflops"]["fp32"] == 67  # the report has no CUDA-core peak: the datasheet's
    assert "fp32 from the H100 SXM" in basis["source"]
    memory = 2 * _number(oracle[0]["device__attribute_memory_clock_rate"]) * 1e3 * _number(
        oracle[0]["device__attribute_global_memory_bus_width"]) / 8 / 1e9
    assert basis["memory_gbps"] == pytest.approx(memory, abs=0.05)
    kernels = {(r.op, r.input_shapes, r.dtype, r.model): {name for name, _ in r.kernel_ns}
               for r in kineto_op_efficiency(read_trace(OPEFF / trace)).rows}
    # which trace kernel each launch is: the join's pairing (tests/join/test_join_kineto.py)
    trace_name = {kernel_id: item["family"] for item in doc["ranking"] if item["profiled"]
                  for _, kernel_id in item["ncu_ids"]}
    own_rows = 0
    for row in doc["op_efficiency"]:
        if row["dtype"] != "bf16" or row["flops"] is None:
            continue
        names = kernels[(row["op"], row["input_shapes"], row["dtype"], row["model"])]
        own = [r for r in matched if trace_name[int(r["ID"])] in names]
        expected = per_cycle * _clock(own) / 1e12 if own else device_peak
        own_rows += bool(own)
        assert row["peak_tflops"] == pytest.approx(expected, rel=1e-6), row["op"]
        assert row["pct_of_peak"] == pytest.approx(
            100 * row["achieved_tflops"] / expected, rel=1e-6)
        assert "measured by Nsight Compute" in row["peak_source"]
    assert own_rows >= 2
    step = doc["mfu"][0]
    assert step["peak_tflops"] == pytest.approx(device_peak, rel=1e-6)
    markdown = render([OPEFF / trace, OPEFF / f"{report}.ncu-rep.xz"], ExportOptions(fmt="md"),
                      subcommand="join")
    clock = _clock(matched) / 1e9
    assert (f"Device NVIDIA H100 80GB HBM3 = NVIDIA H100 80GB HBM3 (measured by Nsight Compute "
            f"at {clock:.3f} GHz): dense peaks (TFLOP/s)") in markdown
    assert f"bf16 {device_peak:.5g}" in markdown


def test_the_emit_nvtx_trace_of_the_sweep_takes_every_launch_measured(tmp_path: Path) -> None:
    """The Nsight Systems trace names the kernels as the kernel report does: every launch
    matches, and the device's ceiling is the clock of all 44 weighted by their time."""
    trace = tmp_path / "gemm_sweep_nvtx.sqlite"
    trace.write_bytes(lzma.decompress((OPEFF / "gemm_sweep_nvtx.sqlite.xz").read_bytes()))
    doc = json.loads(render([trace, OPEFF / "opeff_gemm.ncu-rep.xz"], ExportOptions(fmt="json"),
                            subcommand="join"))
    oracle = _oracle(OPEFF / "oracle" / "opeff_gemm.raw.csv.xz")
    assert doc["kernels_matched"] == len(oracle) == 44
    peaks = doc["op_efficiency_basis"]["device_peaks"]
    device_peak = _number(oracle[0][BF16_HGMMA]) * _clock(oracle) / 1e12
    assert peaks["tflops"]["bf16"] == pytest.approx(device_peak, rel=1e-6)
    modelled = [row for row in doc["op_efficiency"] if not row["model"].startswith("no model")]
    assert modelled and all("measured by Nsight Compute at" in row["peak_source"]
                            for row in modelled)


def test_a_launch_with_the_roofline_section_gives_its_roofline_ceilings() -> None:
    """``--set full`` collects the roofline: a launch's ceilings are its roofline's (SM clock
    × peak per cycle; the DRAM's peak bytes per cycle × its clock), as ncu prints them."""
    report = NcuReport(NCU_SAMPLES / "join_kernels.ncu-rep.xz")
    oracle = _oracle(NCU_ORACLE / "join_kernels.raw.csv.xz")
    gemms = [i for i, row in enumerate(oracle) if row["Kernel Name"].startswith("nvjet")]
    assert gemms
    for kernel_id in gemms:
        row = oracle[kernel_id]
        metrics = report.all_metrics(kernel_id)
        found = launch_ceilings(report.metrics(kernel_id, CEILING_METRICS), row["Kernel Name"],
                                "join_kernels", 1.0)
        assert found == launch_ceilings(metrics, row["Kernel Name"], "join_kernels", 1.0)
        clock = _number(row["sm__cycles_elapsed.avg.per_second"])
        assert found.sm_hz == pytest.approx(clock, rel=1e-6)
        assert found.ops_per_cycle["bf16"] == _number(row[BF16_HGMMA])
        dram = _number(row["dram__bytes.sum.peak_sustained"]) * _number(
            row["dram__cycles_elapsed.avg.per_second"])
        assert found.dram_bytes_per_s == pytest.approx(dram, rel=1e-6)
        assert found.dram_from == "roofline"
        point = compute_roofline(metrics).point("tensor")
        assert point is not None and point.peak_flops_per_s == pytest.approx(
            found.ops_per_cycle["bf16"] * clock, rel=1e-6)
        assert {c.level: c.bytes_per_s for c in point.ceilings}["dram"] == pytest.approx(dram)


def test_a_report_of_another_program_leaves_the_datasheet_peaks() -> None:
    doc = json.loads(render([SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz",
                             NCU_SAMPLES / "gemm_naive.ncu-rep.xz"],
                            ExportOptions(fmt="json"), subcommand="join"))
    assert doc["kernels_matched"] == 0
    assert doc["op_efficiency_basis"]["device_peaks"]["product"] == "H200 SXM"
    estimated = [u for u in doc["unprofiled"] if u["headroom_source"].startswith("estimate")]
    assert estimated and all("datasheet peaks" in u["weak_estimate"] for u in estimated)
