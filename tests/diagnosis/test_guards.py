"""The guard rails (the notes' common misjudgments), each on real kernels."""

from __future__ import annotations

from tests.diagnosis.conftest import find


def test_memory_high_dram_low_is_not_an_hbm_bottleneck() -> None:
    # mm_naive: memory throughput 97% but DRAM 0.3%.
    d = find("zoo_a", "mm_naive").diagnosis
    assert d.label not in ("dram-bound",)
    assert not d.has_flag("dram-bandwidth-saturated")
    assert any(g.id == "memory-not-dram" for g in d.guard_rails)


def test_guard_not_applied_when_dram_is_really_busy() -> None:
    d = find("zoo_a", "saxpy_f4").diagnosis
    assert not any(g.id == "memory-not-dram" for g in d.guard_rails)


def test_register_block_limit_with_large_blocks_is_not_a_problem() -> None:
    # mm_tiled: registers allow 2 blocks of 1024 threads = 64 warps = 100% occupancy.
    k = find("zoo_a", "mm_tiled")
    assert k.summary.metrics["launch__occupancy_limit_registers"].number == 2
    d = k.diagnosis
    assert any(g.id == "register-limit-large-blocks" for g in d.guard_rails)
    assert not d.has_flag("occupancy-limiter", min_severity="warning")
    assert not d.has_flag("low-occupancy")


def test_register_guard_absent_for_small_register_pressure() -> None:
    d = find("zoo_a", "saxpy_f4").diagnosis
    assert not any(g.id == "register-limit-large-blocks" for g in d.guard_rails)


def test_long_scoreboard_at_the_dram_roof_is_only_info() -> None:
    d = find("zoo_a", "saxpy_f4").diagnosis
    flag = d.flag("long-scoreboard-stalls")
    assert flag is not None and flag.severity == "info" and flag.guard
    assert any(g.id == "long-scoreboard-at-dram-roof" for g in d.guard_rails)


def test_long_scoreboard_below_the_roof_stays_a_warning() -> None:
    d = find("zoo_a", "mm_naive").diagnosis
    flag = d.flag("long-scoreboard-stalls")
    assert flag is not None and flag.severity == "warning" and not flag.guard


def test_stall_flags_only_when_issue_slots_are_underused() -> None:
    # All of zoo_a issues on < 40% of cycles, so stall flags are allowed there.
    d = find("zoo_a", "mm_tiled").diagnosis
    assert d.has_flag("mio-throttle")
    assert not any(g.id == "stalls-with-busy-issue" for g in d.guard_rails)


def test_low_occupancy_of_a_busy_tensor_core_gemm_is_not_a_warning() -> None:
    d = find("torch_ops", "nvjet_sm90_tst_256x128").diagnosis
    assert d.label == "compute-bound"
    for flag_id in ("low-occupancy", "occupancy-limiter"):
        flag = d.flag(flag_id)
        assert flag is not None and flag.severity == "info" and flag.guard, flag_id
    assert any(g.id == "occupancy-by-design" for g in d.guard_rails)


def test_low_occupancy_without_busy_pipes_stays_a_problem() -> None:
    d = find("torch_ops", "splitK_NNT").diagnosis
    assert d.flag("low-occupancy").severity == "critical"
    assert not any(g.id == "occupancy-by-design" for g in d.guard_rails)


def test_stall_ranking_ignored_when_issue_slots_are_busy() -> None:
    # warp_divergence_odd_even issues on 70% of cycles.
    d = find("zoo", "warp_divergence_odd_even").diagnosis
    assert any(g.id == "stalls-with-busy-issue" for g in d.guard_rails)
    for flag_id in ("barrier-stalls", "long-scoreboard-stalls", "mio-throttle"):
        assert d.flag(flag_id) is None


def test_stalls_of_a_kernel_at_its_compute_roof_are_info() -> None:
    d = find("torch_ops", "nvjet_sm90_tst_256x128").diagnosis
    assert any(g.id == "stalls-at-compute-roof" for g in d.guard_rails)
    assert d.flag("barrier-stalls").severity == "info"


def test_register_block_limit_guard_on_softmax_with_1024_thread_blocks() -> None:
    d = find("torch_ops", "cunn_SoftMaxForwardReg").diagnosis
    assert any(g.id == "register-limit-large-blocks" for g in d.guard_rails)
    assert d.flag("occupancy-limiter") is None


def test_memory_not_dram_on_a_gemm() -> None:
    d = find("torch_ops", "nvjet_sm90_tst_256x128").diagnosis
    assert any(g.id == "memory-not-dram" for g in d.guard_rails)
    assert not d.has_flag("dram-bandwidth-saturated")


def test_percentages_above_100_are_set_aside() -> None:
    d = find("zoo", "tiny_kernel_1_warp").diagnosis
    assert not d.has_flag("l1tex-pressure")
    assert "l1tex__throughput" in d.notes[0]
