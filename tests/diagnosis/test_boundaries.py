"""Each label and flag at its thresholds, on a real kernel's metrics with a few values changed.

The real-kernel tests (test_labels, test_flags) say the engine is right on real data; these say
each threshold sits where docs/diagnosis.md puts it, for the cases a sample does not show yet.
"""

from __future__ import annotations

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import DEFAULT_THRESHOLDS as T
from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis, diagnose
from kernelscope.kinds.ncu.analysis.diagnosis.derived import register_cap
from kernelscope.kinds.ncu.model import Metric
from tests.diagnosis.conftest import find

SM = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
MEM = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
DRAM = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
L1 = "l1tex__throughput.avg.pct_of_peak_sustained_active"
L2 = "lts__throughput.avg.pct_of_peak_sustained_elapsed"
ACH = "sm__warps_active.avg.pct_of_peak_sustained_active"
THEO = "sm__maximum_warps_per_active_cycle_pct"
FMA = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"
TENSOR = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"
TPI = "smsp__thread_inst_executed_per_inst_executed.ratio"
ISSUE = "smsp__issue_active.avg.pct_of_peak_sustained_active"
LAT = "smsp__average_warp_latency_per_inst_issued.ratio"
BARRIER = "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"
HFMA = "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed"


def run(base: str, sections: tuple[str, ...] | None = None, **changes: float) -> Diagnosis:
    """Diagnose zoo_a's ``base`` kernel with metrics replaced (keys use __ for dots)."""
    k = find("zoo_a", base)
    metrics = dict(k.summary.metrics)
    for key, value in changes.items():
        name = NAMES.get(key, key)
        metrics[name] = Metric(name=name, value=value, unit="")
    return diagnose(metrics, k.summary.rules, k.summary.sections if sections is None else sections)


NAMES = {
    "sm": SM,
    "mem": MEM,
    "dram": DRAM,
    "l1": L1,
    "l2": L2,
    "ach": ACH,
    "theo": THEO,
    "fma": FMA,
    "tensor": TENSOR,
    "tpi": TPI,
    "issue": ISSUE,
    "lat": LAT,
    "barrier": BARRIER,
    "long_sb": "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "lsu": "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
    "sm_active": "sm__cycles_active.avg",
    "sm_elapsed": "sm__cycles_elapsed.avg",
    "membar": "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio",
    "grid": "launch__grid_size",
    "waves": "launch__waves_per_multiprocessor",
    "dur": "gpu__time_duration.sum",
    "hfma": HFMA,
    "local_ld": "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
    "limit_regs": "launch__occupancy_limit_registers",
}


# -- labels ---------------------------------------------------------------------------------
def test_launch_bound_small_grid_idle_gpu() -> None:
    assert run("saxpy", grid=8, sm=3, mem=5, dram=5).label == "launch-bound"
    # the same grid with a busy memory side is not launch-bound
    assert run("saxpy", grid=8, sm=3, mem=90, dram=85).label == "dram-bound"


def test_launch_bound_short_kernel() -> None:
    assert run("saxpy", dur=3000, sm=2, mem=4, dram=4).label == "launch-bound"
    assert run("saxpy", dur=T.short_kernel_ns, sm=2, mem=4, dram=4).label != "launch-bound"


def test_dram_bound_threshold() -> None:
    assert run("transpose_sm<1>", dram=T.dram_bound_pct).label == "dram-bound"
    assert run("transpose_sm<1>", dram=T.dram_bound_pct - 0.1).label != "dram-bound"


def test_l2_bound_when_l2_is_the_hot_unit() -> None:
    d = run("transpose_sm<1>", dram=40, mem=85, sm=20, l1=30, l2=85)
    assert d.label == "l2-bound"


def test_compute_bound_needs_a_busy_pipe() -> None:
    assert run("mm_tiled", sm=90, mem=40, fma=85).label == "compute-bound"
    assert run("mm_tiled", sm=90, mem=40, fma=30).label == "instruction-bound"


def test_divergence_bound_on_the_compute_side() -> None:
    assert run("mm_tiled", sm=90, mem=40, fma=30, tpi=12).label == "divergence-bound"


def test_occupancy_bound_when_nothing_is_busy() -> None:
    # no stall reason holds more than half of the cycles between issues (20 of 50), and no
    # memory unit is half busy (transpose_sm<1>'s own L2 is 83 %: lowered with the rest)
    d = run("transpose_sm<1>", dram=20, mem=30, l2=30, sm=20, ach=20, lat=50, long_sb=20,
            issue=20)
    assert d.label == "occupancy-bound"
    unit = d.bottleneck.evidence[-1]
    assert (unit.metric, unit.value, unit.op, unit.threshold) == (L2, 30, "<", 50)
    quiet = {"lat": 50, "long_sb": 20, "issue": 20}
    assert run("transpose_sm<1>", dram=20, mem=30, sm=20, ach=60, **quiet).label == (
        "latency-bound"
    )


def test_a_busy_pipe_decides_before_neither_side_is_busy() -> None:
    # issue 35: SOL low on both sides, one pipe busy on the SMs that ran: that pipe leads
    quiet = {"dram": 20, "mem": 30, "sm": 40, "lat": 50, "long_sb": 20, "issue": 40}
    d = run("transpose_sm<1>", tensor=62.8, **quiet)
    assert d.label == "compute-bound"
    assert d.bottleneck.summary.startswith("The Tensor pipe is 63% busy on the SMs that ran")
    xu_pipe = "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active"
    assert run("transpose_sm<1>", **{xu_pipe: 40.0}, **quiet).label != "instruction-bound"
    xu = run("transpose_sm<1>", **{xu_pipe: 61.0}, **quiet)
    assert xu.label == "instruction-bound"
    assert "Neither compute nor memory is busy" not in xu.bottleneck.summary


def test_a_stall_reason_over_half_the_cycles_leads_over_low_occupancy() -> None:
    quiet = {"dram": 20, "mem": 30, "l2": 30, "sm": 20, "ach": 20, "lat": 50, "long_sb": 5,
             "issue": 20}
    d = run("transpose_sm<1>", membar=26, **quiet)
    assert d.label == "latency-bound"
    assert d.bottleneck.decided_by == "membar-stalls"
    assert "membar stalls" in d.bottleneck.summary
    at_half = run("transpose_sm<1>", membar=25, **quiet)
    assert at_half.label == "occupancy-bound"


def test_achieved_occupancy_at_its_theoretical_ceiling_is_not_called_low() -> None:
    # issue 23: 50 % theoretical, 48.35 % achieved is what the resources allow, not "warps
    # not resident at run time"
    quiet = {"lat": 50, "long_sb": 20, "issue": 20}
    d = run("transpose_sm<1>", dram=20, mem=30, sm=20, ach=48.35, theo=50, **quiet)
    assert d.flag("low-occupancy") is None
    assert d.label == "latency-bound"
    far = run("transpose_sm<1>", dram=20, mem=30, sm=20, ach=38, theo=50, **quiet)
    assert far.flag("low-occupancy") is not None
    assert far.flag("low-occupancy").detail == (
        "Theoretical occupancy is fine but warps are not resident at run time."
    )


def test_divergence_bound_when_nothing_is_busy() -> None:
    quiet = {"lat": 50, "long_sb": 20, "issue": 20}
    d = run("transpose_sm<1>", dram=20, mem=30, sm=20, l2=30, tpi=10, **quiet)
    assert d.label == "divergence-bound"


def test_balanced_when_both_sides_busy_without_a_math_pipe() -> None:
    assert run("mm_tiled", sm=85, mem=88, fma=30, lsu=30).label == "balanced"
    assert run("mm_tiled", sm=85, mem=88, fma=70).label == "compute-bound"


def test_sm_throughput_carried_by_the_lsu_pipe_is_the_memory_side() -> None:
    # labels_notes 9: SM throughput equal to the LSU pipe is memory instructions, not math
    d = run("mm_tiled", sm=97.7, mem=97.7, fma=10, lsu=97.7, l1=98.3, l2=19.7, dram=50.8)
    assert d.label == "l1-bound"
    assert d.flag("l1tex-pressure") is not None


# -- flags ----------------------------------------------------------------------------------
def test_grid_too_small_and_its_severity() -> None:
    assert run("saxpy", grid=100).flag("grid-too-small").severity == "info"
    assert run("saxpy", grid=50).flag("grid-too-small").severity == "warning"
    assert run("saxpy", grid=8).flag("grid-too-small").severity == "critical"
    assert run("saxpy", grid=132).flag("grid-too-small") is None


@pytest.mark.parametrize(
    ("waves", "severity"), [(1.5, "critical"), (2.6, "warning"), (3.9, None), (62.06, None)]
)
def test_tail_effect(waves: float, severity: str | None) -> None:
    flag = run("saxpy", waves=waves).flag("tail-effect")
    assert (flag.severity if flag else None) == severity


def test_short_kernel() -> None:
    assert run("saxpy", dur=2000).flag("short-kernel").severity == "warning"
    assert run("saxpy", dur=6000).flag("short-kernel").severity == "info"
    assert run("saxpy", dur=16000).flag("short-kernel") is None
    ramping = run("saxpy", dur=9000, sm_active=6000, sm_elapsed=9000)
    assert ramping.flag("short-kernel").severity == "warning"


def test_low_occupancy_and_the_by_design_guard() -> None:
    quiet = {"dram": 20, "mem": 30, "sm": 20, "l2": 30}
    assert run("transpose_sm<1>", ach=40, **quiet).flag("low-occupancy").severity == "warning"
    assert run("transpose_sm<1>", ach=20, **quiet).flag("low-occupancy").severity == "critical"
    busy = run("mm_tiled", ach=30, theo=30, tensor=80)
    flag = busy.flag("low-occupancy")
    assert flag is not None and flag.severity == "info" and flag.guard
    assert any(g.id == "occupancy-by-design" for g in busy.guard_rails)
    assert busy.label != "occupancy-bound"


def test_occupancy_limiter_names_the_resource() -> None:
    d = run("transpose_sm<1>", theo=25, limit_regs=1, dram=20, mem=30, sm=20, l2=30)
    flag = d.flag("occupancy-limiter")
    assert flag is not None and flag.severity == "warning"
    assert flag.detail.startswith("Registers limit the SM to 1 block")


def test_local_memory_is_a_spill_only_with_spill_evidence() -> None:
    # local traffic without spill counters, registers below the cap: stack arrays
    d = run("transpose_sm<1>", local_ld=2_000_000)
    flag = d.flag("local-memory")
    assert flag is not None and flag.severity == "critical" and d.flag("register-spill") is None
    assert "stack arrays or dynamically indexed locals" in flag.detail
    # the report's spill counter, or registers at the cap for the block size: spills
    spilled = run("transpose_sm<1>", local_ld=2_000_000, sass__inst_executed_register_spilling=8.0)
    assert spilled.flag("register-spill") is not None and spilled.flag("local-memory") is None
    block = find("zoo_a", "transpose_sm<1>").summary.metrics["launch__block_size"].value
    cap = register_cap(block, 65536.0)
    capped = run("transpose_sm<1>", local_ld=2_000_000, launch__registers_per_thread=cap,
                 device__attribute_max_registers_per_multiprocessor=65536.0)
    flag = capped.flag("register-spill")
    assert flag is not None and f"per-thread cap of {cap:.0f}" in flag.detail
    assert run("transpose_sm<1>", local_ld=0).flag("register-spill") is None
    assert run("transpose_sm<1>", local_ld=0).flag("local-memory") is None


def test_a_block_on_every_sm_is_never_launch_bound_and_a_fence_stall_leads() -> None:
    # issue 35's H800 case: 132 blocks on 132 SMs (0.17 of a wave), warps 160 of 184 cycles at
    # memory fences, local traffic from a 40-register kernel without spill counters
    d = run(
        "transpose_sm<1>", grid=132, launch__sm_count=132, waves=0.17, lat=184, membar=160,
        long_sb=5, issue=20, sm=10, mem=20, dram=10, ach=15, local_ld=2_000_000,
        launch__registers_per_thread=40, device__attribute_max_registers_per_multiprocessor=65536,
    )
    assert d.label == "latency-bound" and d.bottleneck.decided_by == "membar-stalls"
    grid = d.flag("grid-too-small")
    assert grid is not None and grid.severity == "info"
    assert grid.detail == (
        "132 blocks on 132 SMs: 1 per SM of the 8 its resources allow (0.17 of a wave)."
    )
    assert grid.advice.startswith("Every SM has a block")
    said = " ".join([d.bottleneck.summary, *(f.advice + f.detail for f in d.flags),
                     *(g.text for g in d.guard_rails)])
    assert "no block" not in said and "Most SMs" not in said
    assert d.flag("register-spill") is None and d.flag("local-memory") is not None


def test_register_cap_follows_the_block_size() -> None:
    assert register_cap(768, 65536.0) == 80  # 65,536 / 768 = 85.3, down to a multiple of 8
    assert register_cap(1024, 65536.0) == 64
    assert register_cap(128, 65536.0) == 255  # the per-thread maximum
    assert register_cap(None, 65536.0) is None


def test_warp_divergence() -> None:
    assert run("saxpy", tpi=20).flag("warp-divergence").severity == "warning"
    assert run("saxpy", tpi=12).flag("warp-divergence").severity == "critical"
    assert run("saxpy", tpi=31).flag("warp-divergence") is None


def test_no_tensor_core_for_half_fma_work() -> None:
    d = run("mm_tiled", hfma=1200.0, tensor=0.0)
    flag = d.flag("no-tensor-core")
    assert flag is not None and flag.severity == "warning"
    assert run("mm_tiled", hfma=1200.0, tensor=50.0).flag("no-tensor-core") is None
    assert run("mm_tiled", hfma=1.0, tensor=0.0).flag("no-tensor-core") is None


def test_barrier_stalls() -> None:
    d = run("transpose_sm<1>", barrier=0.4 * 83.89)
    assert d.flag("barrier-stalls").severity == "warning"


def test_stalls_ignored_when_issue_slots_are_busy() -> None:
    d = run("mm_tiled", issue=75)
    assert d.flag("mio-throttle") is None
    assert any(g.id == "stalls-with-busy-issue" for g in d.guard_rails)


def test_l1tex_pressure_needs_dram_below_its_bound() -> None:
    assert run("mm_naive", dram=75).flag("l1tex-pressure") is None
    assert run("mm_naive", dram=60).flag("l1tex-pressure") is not None


def test_bank_conflict_severity_steps() -> None:
    k = find("zoo_a", "transpose_sm<1>")
    wavefronts = k.summary.metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"].number
    name = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
    assert (
        run("transpose_sm<1>", **{name: 0.2 * wavefronts}).flag("shared-bank-conflicts").severity
        == "warning"
    )
    assert (
        run("transpose_sm<1>", **{name: 0.6 * wavefronts}).flag("shared-bank-conflicts").severity
        == "critical"
    )


# -- issue 24: FP64 rate, matrix work off the tensor cores, many waves ----------------------
def _with(stem: str, name: str, **changes: float) -> Diagnosis:
    """Diagnose a sample kernel with metrics replaced by their full ncu names."""
    k = find(stem, name)
    metrics = dict(k.summary.metrics)
    for metric, value in changes.items():
        metrics[metric] = Metric(name=metric, value=value, unit="")
    return diagnose(metrics, k.summary.rules, k.summary.sections)


FFMA_PEAK = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"
DFMA_PEAK = "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"
CC_MAJOR = "device__attribute_compute_capability_major"
CC_MINOR = "device__attribute_compute_capability_minor"


def test_fp64_compute_bound_names_the_devices_fp64_rate() -> None:
    h200 = _with("zoo", "fp64_dfma_compute_bound")
    assert h200.bottleneck.summary == (
        "The FP64 pipe does the work and is busy. This GPU runs FP64 at 1:2 of its FP32 rate."
    )
    consumer = _with("zoo", "fp64_dfma_compute_bound", **{FFMA_PEAK: 8704.0, DFMA_PEAK: 136.0})
    assert consumer.bottleneck.summary == (
        "The FP64 pipe does the work and is busy. This GPU runs FP64 at 1:64 of its FP32 rate: "
        "where precision allows, FP32 (or mixed precision) is far faster here."
    )


def test_fp32_matrix_work_wants_tensor_cores_from_ampere_on() -> None:
    sgemm = "sgemm_fp32_regtile"
    assert _with("diag_sgemm", sgemm).flag("no-tensor-core") is not None
    ampere_consumer = _with("diag_sgemm", sgemm, **{CC_MAJOR: 8.0, CC_MINOR: 6.0})
    assert ampere_consumer.flag("no-tensor-core") is not None
    volta = _with("diag_sgemm", sgemm, **{CC_MAJOR: 7.0, CC_MINOR: 0.0})
    assert volta.flag("no-tensor-core") is None
    busy_tensor = _with("diag_sgemm", sgemm, **{TENSOR: 30.0})
    assert busy_tensor.flag("no-tensor-core") is None


def test_tensor_cores_for_fp64_only_on_data_centre_parts() -> None:
    from kernelscope.kinds.ncu.analysis.diagnosis.compute_flags import has_tensor_cores_for

    assert has_tensor_cores_for("FP64", (9, 0)) and has_tensor_cores_for("FP64", (8, 0))
    assert not has_tensor_cores_for("FP64", (7, 0))  # V100
    assert not has_tensor_cores_for("FP64", (8, 6)) and not has_tensor_cores_for("FP64", (12, 0))
    assert has_tensor_cores_for("FP32", (8, 6)) and not has_tensor_cores_for("FP32", (7, 5))


def test_no_tail_effect_from_eight_waves_on() -> None:
    assert run("saxpy", waves=7.05).flag("tail-effect") is not None
    assert run("saxpy", waves=8.05).flag("tail-effect") is None


def test_a_small_grid_busy_on_the_fp64_pipe_names_the_fp64_rate() -> None:
    # issue 24: a 40-block kernel on a 56-SM consumer GPU, FP64 pipe ~86 % on its SMs
    d = _with(
        "zoo",
        "fp64_dfma_compute_bound",
        **{
            "launch__grid_size": 40.0,
            "launch__sm_count": 56.0,
            "sm__throughput.avg.pct_of_peak_sustained_elapsed": 49.0,
            "sm__cycles_active.avg": 57.0,
            "sm__cycles_elapsed.avg": 100.0,
            "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active": 86.0,
            FFMA_PEAK: 8704.0,
            DFMA_PEAK: 136.0,
            ACH: 30.0,
            THEO: 37.5,
        },
    )
    assert d.label == "launch-bound"
    assert d.bottleneck.summary == (
        "The kernel leaves 16 of the 56 SMs without a block: on the SMs that have work the FP64 "
        "pipe "
        "is 86% busy (compute-bound there), but the GPU-wide averages stay low because the "
        "other SMs get no block. More blocks (or concurrent work) first. This GPU runs FP64 at "
        "1:64 of its FP32 rate: where precision allows, FP32 (or mixed precision) is far "
        "faster here."
    )
    # it read low-occupancy (critical) and occupancy-limiter before: the pipe is full
    for flag_id in ("low-occupancy", "occupancy-limiter"):
        flag = d.flag(flag_id)
        assert flag is not None and flag.severity == "info"
        assert flag.guard.startswith("Occupancy is low but the FP64 pipe is 86% busy")
