"""Every flag raised (or not) on real sample kernels, with its evidence and NCU's speedup."""

from __future__ import annotations

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import CATALOG
from kernelscope.kinds.ncu.analysis.diagnosis.result import flag_dict
from tests.conftest import NCU_SAMPLES, read_csv_xz
from tests.diagnosis.conftest import find, kernels_of

# (sample, kernel, flag, expected severity or None for "must not be raised")
CASES = [
    # memory path
    ("zoo_a", "strided_gather", "uncoalesced-global-access", "critical"),
    ("zoo_a", "saxpy_f4", "uncoalesced-global-access", None),
    ("zoo_a", "mm_naive", "uncoalesced-global-access", None),
    ("zoo_a", "transpose_sm<0>", "shared-bank-conflicts", "critical"),
    ("zoo_a", "transpose_sm<1>", "shared-bank-conflicts", None),
    ("zoo_a", "mm_tiled", "shared-bank-conflicts", None),
    ("zoo_a", "saxpy_f4", "dram-bandwidth-saturated", "warning"),
    ("zoo_a", "strided_gather", "dram-bandwidth-saturated", "warning"),
    ("zoo_a", "mm_naive", "dram-bandwidth-saturated", None),
    ("zoo_a", "transpose_sm<1>", "dram-bandwidth-saturated", None),
    ("zoo_a", "mm_naive", "l1tex-pressure", "warning"),
    ("zoo_a", "mm_tiled", "l1tex-pressure", "warning"),
    ("zoo_a", "saxpy_f4", "l1tex-pressure", None),
    ("zoo_a", "transpose_sm<1>", "l1tex-pressure", None),
    ("zoo_a", "saxpy_f4", "l2-low-hit-rate", "warning"),
    ("zoo_a", "strided_gather", "l2-low-hit-rate", "warning"),
    ("zoo_a", "mm_naive", "l2-low-hit-rate", None),
    ("zoo_a", "transpose_sm<1>", "l2-low-hit-rate", None),
    ("zoo_a", "saxpy_f4", "register-spill", None),
    # scheduler
    ("zoo_a", "mm_tiled", "mio-throttle", "critical"),
    ("zoo_a", "transpose_sm<0>", "mio-throttle", "warning"),
    ("zoo_a", "saxpy_f4", "mio-throttle", None),
    ("zoo_a", "transpose_sm<1>", "long-scoreboard-stalls", "info"),
    ("zoo_a", "mm_naive", "long-scoreboard-stalls", "warning"),
    ("zoo_a", "mm_tiled", "long-scoreboard-stalls", None),
    ("zoo_a", "transpose_sm<0>", "barrier-stalls", None),
    ("zoo_a", "mm_tiled", "barrier-stalls", None),
    # launch and occupancy
    ("zoo_a", "saxpy_f4", "grid-too-small", None),
    ("zoo_a", "saxpy_f4", "short-kernel", None),
    ("zoo_a", "mm_naive", "tail-effect", None),
    ("zoo_a", "mm_tiled", "low-occupancy", None),
    ("zoo_a", "mm_tiled", "occupancy-limiter", None),
    ("zoo_a", "mm_tiled", "warp-divergence", None),
    ("zoo_a", "mm_tiled", "no-tensor-core", None),
    # the zoo, one kernel per behaviour
    ("zoo", "tiny_kernel_1_warp", "short-kernel", "warning"),
    ("zoo", "small_grid_8_blocks", "short-kernel", None),
    ("zoo", "small_grid_8_blocks", "grid-too-small", "critical"),
    ("zoo", "tiny_kernel_1_warp", "grid-too-small", "critical"),
    ("zoo", "dram_stream_saxpy_f4", "grid-too-small", None),
    ("zoo", "small_grid_8_blocks", "low-occupancy", "info"),  # 8 blocks: the grid, not a resource
    ("zoo", "fp32_fma_compute_bound", "low-occupancy", None),
    ("zoo", "tiny_kernel_1_warp", "occupancy-limiter", "info"),
    ("zoo", "register_spill_local_array", "register-spill", "critical"),
    ("zoo", "dram_stream_saxpy_f4", "register-spill", None),
    ("zoo", "fp32_fma_compute_bound", "register-spill", None),
    ("zoo", "uncoalesced_strided_gather", "uncoalesced-global-access", "critical"),
    ("zoo", "smem_transpose_padded", "uncoalesced-global-access", None),
    ("zoo", "smem_transpose_bank_conflicts", "shared-bank-conflicts", "critical"),
    ("zoo", "smem_transpose_padded", "shared-bank-conflicts", None),
    ("zoo", "reduce_syncthreads_per_step", "shared-bank-conflicts", None),
    ("zoo", "warp_divergence_odd_even", "warp-divergence", "warning"),
    ("zoo", "reduce_syncthreads_per_step", "warp-divergence", None),
    ("zoo", "fp32_fma_compute_bound", "warp-divergence", None),
    ("zoo", "dram_stream_saxpy_f4", "dram-bandwidth-saturated", "warning"),
    ("zoo", "fp64_dfma_compute_bound", "dram-bandwidth-saturated", None),
    ("zoo", "small_grid_8_blocks", "long-scoreboard-stalls", "critical"),
    # issue 23: the warps queue behind the atomics, so the stall is their symptom (info)
    ("zoo", "atomic_contention_8_addresses", "long-scoreboard-stalls", "info"),
    ("zoo", "register_spill_local_array", "long-scoreboard-stalls", "warning"),
    ("zoo", "smem_transpose_bank_conflicts", "mio-throttle", "warning"),
    ("zoo", "reduce_syncthreads_per_step", "barrier-stalls", None),
    ("zoo", "fp32_fma_compute_bound", "no-tensor-core", None),
    # PyTorch / cuBLAS
    ("torch_ops", "splitKreduce_kernel", "short-kernel", "warning"),
    ("torch_ops", "splitKreduce_kernel", "grid-too-small", "info"),
    # 5.17 waves, but the SMs are active 97 % of the time and achieved occupancy (67 %) is
    # within 10 points of theoretical (75 %): no idle SMs, no empty warp slots, no tail
    ("torch_ops", "vectorized_layer_norm_kernel", "tail-effect", None),
    # 5.17 waves with the SMs active 88 % of the time
    ("thrust_lambdas", "transform_kernel", "tail-effect", "warning"),
    ("torch_ops", "vectorized_elementwise_kernel", "tail-effect", None),
    ("torch_ops", "splitK_NNT", "low-occupancy", "critical"),
    ("torch_ops", "splitK_NNT", "occupancy-limiter", "warning"),
    ("torch_ops", "nvjet_sm90_tst_256x128", "occupancy-limiter", "info"),
    ("torch_ops", "vectorized_layer_norm_kernel", "uncoalesced-global-access", "critical"),
    ("torch_ops", "vectorized_elementwise_kernel", "uncoalesced-global-access", None),
    ("torch_ops", "splitK_NNT", "l2-low-hit-rate", "warning"),
    ("torch_ops", "vectorized_elementwise_kernel", "dram-bandwidth-saturated", "warning"),
    ("torch_ops", "nvjet_sm90_tst_256x128", "dram-bandwidth-saturated", None),
    ("torch_ops", "nvjet_sm90_tst_256x128", "barrier-stalls", "info"),
    ("torch_ops", "nvjet_sm90_tst_256x128", "no-tensor-core", None),
    ("torch_ops", "cunn_SoftMaxForwardReg", "no-tensor-core", None),
    # default set: only launch, occupancy and SOL checks can run
    ("many_launches", "ml_scale_4k", "grid-too-small", "critical"),
    ("many_launches", "ml_add_256k", "short-kernel", "warning"),
    ("many_launches", "ml_copy_2m_f4", "low-occupancy", "info"),  # 0.48 waves, theoretical 100 %
    # 6.0 µs, SMs active on 70 % of its cycles: ramp-up and drain (issue 24)
    ("many_launches", "ml_copy_2m_f4", "short-kernel", "warning"),
]


@pytest.mark.parametrize(
    ("stem", "name", "flag_id", "severity"), CASES, ids=[f"{c[2]}:{c[1]}" for c in CASES]
)
def test_flag_on_real_kernel(stem: str, name: str, flag_id: str, severity: str | None) -> None:
    d = find(stem, name).diagnosis
    flag = d.flag(flag_id)
    if severity is None:
        assert flag is None, flag_dict(flag) if flag else None
    else:
        assert flag is not None, [f.id for f in d.flags]
        assert flag.severity == severity, flag_dict(flag)


@pytest.mark.parametrize("stem", ["zoo_a", "zoo", "torch_ops"])
def test_flags_carry_the_catalog_contract(stem: str) -> None:
    for k in kernels_of(stem):
        for flag in k.diagnosis.to_dict()["flags"]:
            spec = CATALOG[flag["id"]]
            assert set(flag) >= {
                "id",
                "severity",
                "level",
                "title",
                "evidence",
                "remedy",
                "ncu_speedup",
            }
            assert flag["severity"] in ("info", "warning", "critical")
            assert flag["level"] == spec.level and 0 <= flag["level"] <= 6
            # a grid's remedy says how many SMs lack a block, or that every SM has one
            assert flag["title"] == spec.title
            assert flag["remedy"] == spec.remedy or flag["id"] == "grid-too-small", flag["id"]
            if flag["id"] == "grid-too-small" and flag["severity"] != "info":
                assert flag["remedy"].endswith(spec.remedy)
            assert flag["evidence"], flag["id"]
            for ev in flag["evidence"]:
                assert ev["metric"] and "value" in ev and "threshold" in ev


def test_ncu_speedup_comes_from_the_matching_rule() -> None:
    flag = find("zoo_a", "transpose_sm<0>").diagnosis.flag("shared-bank-conflicts")
    assert flag is not None
    rules = find("zoo_a", "transpose_sm<0>").summary.rules
    expected = max(
        r.speedup_pct
        for r in rules
        if r.rule in ("SharedMemoryConflicts", "UncoalescedSharedAccess") and r.speedup_pct
    )
    assert flag.speedup == pytest.approx(expected)
    assert flag.rule is not None and flag.rule.startswith("UncoalescedSharedAccess")


def test_ncu_speedup_matches_stall_titles() -> None:
    k = find("zoo_a", "mm_tiled")
    flag = k.diagnosis.flag("mio-throttle")
    rule = next(r for r in k.summary.rules if r.title == "Mio Throttle Stalls")
    assert flag is not None and flag.speedup == pytest.approx(rule.speedup_pct)


def test_flag_without_ncu_rule_has_no_speedup() -> None:
    flag = find("zoo_a", "saxpy_f4").diagnosis.flag("dram-bandwidth-saturated")
    assert flag is not None and flag.speedup is None


def test_uncoalesced_evidence_reports_bytes_per_sector() -> None:
    flag = find("zoo_a", "strided_gather").diagnosis.flag("uncoalesced-global-access")
    assert flag is not None
    by_metric = {e.metric: e for e in flag.evidence}
    ev = by_metric["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"]
    assert ev.value == 4.0 and ev.threshold == 16.0 and ev.holds


def test_flags_sorted_by_checklist_level() -> None:
    for k in kernels_of("zoo_a"):
        levels = [f.level for f in k.diagnosis.flags]
        assert levels == sorted(levels)


def test_spill_evidence_separates_spills_from_local_arrays() -> None:
    flag = find("zoo", "register_spill_local_array").diagnosis.flag("register-spill")
    assert flag is not None and "register spills" in flag.detail
    spills = {e.metric: e.value for e in flag.evidence}["sass__inst_executed_register_spilling"]
    assert spills and spills > 0
    assert flag.rule is not None and "Local" in flag.rule


def test_occupancy_limiter_names_block_slots_for_one_warp_blocks() -> None:
    flag = find("zoo", "tiny_kernel_1_warp").diagnosis.flag("occupancy-limiter")
    assert flag is not None and flag.detail.startswith("Block slots limit the SM to 32 block")
    gemm = find("torch_ops", "splitK_NNT").diagnosis.flag("occupancy-limiter")
    assert gemm is not None and gemm.detail.startswith("Registers and shared memory limit")


def test_every_flag_is_raised_on_some_real_kernel() -> None:
    from kernelscope.kinds.ncu.analysis.diagnosis import FLAG_IDS

    samples = ("zoo_a", "zoo", "torch_ops", "many_launches", "diag_membar", "diag_sgemm",
               "thrust_lambdas")
    raised = {f.id for s in samples for k in kernels_of(s) for f in k.diagnosis.flags}
    # wait stalls (curand's dependency chains) and local memory without spills (curand's
    # states) are raised on the third-party reports (tests/wild/test_labelled_corpus.py);
    # short-scoreboard stalls on none yet.
    assert set(FLAG_IDS) - raised == {"wait-stalls", "short-scoreboard-stalls", "local-memory"}


def test_local_access_pattern_is_not_read_as_uncoalesced_global() -> None:
    """NCU words the spill kernel's local traffic as an access-pattern problem ("L2 Local
    Load/Store Access Pattern": 1.6 and 1.5 of 32 bytes used, "uncoalesced local loads"),
    while its global loads use all 32 bytes of a sector (``ncu --page raw``): the coalescing
    flag reads global counters only, and the local rules' estimate goes to register-spill."""
    k = find("zoo", "register_spill_local_array")
    rows = read_csv_xz(NCU_SAMPLES / "oracle" / "zoo.raw.csv.xz")
    header = rows[0]
    row = next(r for r in rows[2:] if "register_spill_local_array" in r[header.index(
        "Kernel Name")])
    raw = dict(zip(header, row, strict=True))
    assert float(raw["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"]) == 32
    assert float(raw["l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"].replace(",", "")) > 0
    local_rules = [r for r in k.summary.rules
                   if r.rule == "MemoryCacheAccessPattern" and "Local" in r.title]
    assert {r.title for r in local_rules} == {"L2 Local Load Access Pattern",
                                              "L2 Local Store Access Pattern"}
    assert k.diagnosis.flag("uncoalesced-global-access") is None
    spill = k.diagnosis.flag("register-spill")
    assert spill is not None
    assert spill.speedup == pytest.approx(max(r.speedup_pct or 0 for r in local_rules))
