"""Two kernel reports compared, on the real before/after samples: what is matched, the
speedups (equal to the durations ncu printed for each report), the label transitions and the
flags resolved."""

from __future__ import annotations

import pytest

from kernelscope.core.errors import ReportError
from kernelscope.kinds.diff.analysis.gate import check_slower
from kernelscope.kinds.diff.analysis.kernels import FAMILY, HAND, NAME, ONLY, with_pair
from kernelscope.kinds.diff.analysis.matching import _family_key, _family_keys
from tests.ncu.oracle import load_raw, parse_number

# (before, after, how they are matched, label transition, flags that must be resolved); the
# rungs that share neither a function name nor a launch shape are paired by hand
LADDER = [
    ("gemm_naive", "gemm_tiled", HAND, None, ()),
    ("gemm_tiled", "gemm_regtile", HAND, None, ("mio-throttle",)),
    ("gemm_regtile", "gemm_wmma", ONLY, "l1-bound → latency-bound", ("l1tex-pressure",)),
    ("gemm_naive", "gemm_wmma", HAND, "l1-bound → latency-bound", ("l1tex-pressure",)),
    ("transpose_conflicts", "transpose_padded", NAME, "shared-bank-conflict → dram-bound",
     ("shared-bank-conflicts",)),
]


def oracle_duration(stem: str, kernel_id: int = 0) -> float:
    value = parse_number(load_raw(stem).rows[kernel_id]["gpu__time_duration.sum"])
    assert value is not None
    return value


@pytest.mark.parametrize(("before", "after", "how", "label", "resolved"), LADDER)
def test_pairs_speedups_and_labels(kernel_diff, before, after, how, label, resolved) -> None:
    diff = kernel_diff(before, after, pairs=((before, after),) if how == HAND else ())
    assert len(diff.pairs) == 1 and not diff.unmatched_before and not diff.unmatched_after
    pair = diff.pairs[0]
    assert pair.matched_by == how
    old, new = oracle_duration(before), oracle_duration(after)
    assert pair.before_ns == old and pair.after_ns == new
    assert pair.speedup == pytest.approx(old / new, rel=1e-12)
    assert pair.speedup > 1  # every step of the ladder is faster
    assert pair.label_change == label
    assert set(resolved) <= set(pair.flags_resolved)
    assert not set(pair.flags_new) & set(pair.flags_resolved)
    durations = {m.name: m for m in pair.metrics}["gpu__time_duration.sum"]
    assert (durations.before, durations.after) == (old, new)
    assert durations.verdict == "better"


def test_the_ladder_ends_on_tensor_cores(kernel_diff) -> None:
    pair = kernel_diff("gemm_naive", "gemm_wmma", pairs=(("gemm_naive", "gemm_wmma"),)).pairs[0]
    precision, before, after = pair.chart_points()
    assert precision == "tensor"  # the after kernel's work
    assert before is not None and before.precision == "fp32"
    assert after is not None and after.precision == "tensor"
    assert pair.speedup == pytest.approx(3177344 / 356768)


def test_padding_removes_the_bank_conflicts(kernel_diff) -> None:
    pair = kernel_diff("transpose_conflicts", "transpose_padded").pairs[0]
    metrics = {m.name: m for m in pair.metrics}
    conflicts = metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"]
    raw = {s: load_raw(s).rows[0] for s in ("transpose_conflicts", "transpose_padded")}
    name = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
    assert conflicts.before == parse_number(raw["transpose_conflicts"][name])
    assert conflicts.after == parse_number(raw["transpose_padded"][name])
    assert conflicts.after < conflicts.before / 10 and conflicts.verdict == "better"
    dram = metrics["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"]
    assert dram.after > 60 > dram.before  # now the DRAM is the limit: dram-bound


def test_same_report_matches_every_family_in_launch_order(kernel_diff) -> None:
    diff = kernel_diff("small_family", "small_family")
    assert len(diff.pairs) == 151 and all(p.matched_by == FAMILY for p in diff.pairs)
    assert all(p.before.id == p.after.id for p in diff.pairs)
    assert all(p.speedup == 1 and p.label_change is None for p in diff.pairs)
    assert [f.change_pct for f in diff.families] == [0.0, 0.0]


@pytest.mark.parametrize("stem", ["small_family", "zoo", "torch_ops", "multi_process"])
def test_family_keys_read_from_the_families_are_each_kernels_own(opened, stem) -> None:
    """Matching reads a kernel's family key (demangled name, grid, block) from its report's
    families: the same key its own name and launch shape give, kernel by kernel."""
    report, _ = opened(stem, stem).analysed()
    key = _family_keys(report)
    assert len({key(k) for k in report.kernels}) == len(report.families.families)
    assert all(key(k) == _family_key(k) for k in report.kernels)


def test_different_kernels_stay_unmatched(kernel_diff) -> None:
    diff = kernel_diff("small_family", "gemm_sets_default")
    assert not diff.pairs
    assert len(diff.unmatched_before) == 151 and len(diff.unmatched_after) == 4
    assert {f.status for f in diff.families} == {"gone", "new"}


def test_pairing_by_hand(kernel_diff) -> None:
    diff = kernel_diff("gemm_sets_default", "gemm_sets_full")
    assert [(p.before.id, p.after.id, p.matched_by) for p in diff.pairs] == [
        (i, i, FAMILY) for i in range(4)
    ]
    by_hand = kernel_diff("gemm_sets_default", "gemm_sets_full", pairs=(("gemm_regtile", "3"),))
    pairs = {p.before.id: (p.after.id, p.matched_by) for p in by_hand.pairs}
    assert pairs[0] == (3, HAND)
    assert pairs[1] == (1, FAMILY) and pairs[2] == (2, FAMILY)
    # the one family left on each side (gemm_wmma, gemm_naive) shares neither a function name
    # nor a launch shape: unmatched
    assert 3 not in pairs
    assert [k.id for k in by_hand.unmatched_before] == [3]
    assert [k.id for k in by_hand.unmatched_after] == [0]
    again = with_pair(diff, 0, 3)
    assert {(p.before.id, p.after.id) for p in again.pairs} == {(0, 3), (1, 1), (2, 2)}
    assert [k.id for k in again.unmatched_before] == [3]
    assert [k.id for k in again.unmatched_after] == [0]


def test_pairs_by_hand_that_name_nothing_are_refused(kernel_diff) -> None:
    with pytest.raises(ReportError, match="named 'nope'"):
        kernel_diff("gemm_naive", "gemm_tiled", pairs=(("nope", "0"),))
    with pytest.raises(ReportError, match="has no kernel with ID 7"):
        kernel_diff("gemm_naive", "gemm_tiled", pairs=(("0", "7"),))


def test_filter_chooses_a_family(kernel_diff) -> None:
    diff = kernel_diff("gemm_sets_default", "gemm_sets_full", pattern="wmma")
    assert [p.before.summary.row["name"] for p in diff.pairs] == ["gemm_wmma"]
    assert diff.summed.before_ns == oracle_duration("gemm_sets_default", 1)
    with pytest.raises(ReportError, match="nothing to compare"):
        kernel_diff("gemm_naive", "gemm_tiled", pattern="nothing-like-this")


def test_fail_if_slower(kernel_diff) -> None:
    ahead, back = (("gemm_naive", "gemm_tiled"),), (("gemm_tiled", "gemm_naive"),)
    faster = check_slower(kernel_diff("gemm_naive", "gemm_tiled", pairs=ahead), 0)
    assert not faster.failed and not faster.regressed
    slower = check_slower(kernel_diff("gemm_tiled", "gemm_naive", pairs=back), 5)
    assert slower.failed
    assert [r.name for r in slower.regressed] == ["gemm_naive (ID 0 → 0)"]
    assert slower.summed.change_pct == pytest.approx(100 * (3177344 / 1840224 - 1))
    assert not check_slower(kernel_diff("gemm_tiled", "gemm_naive", pairs=back), 80).failed


def test_the_only_kernels_left_must_share_a_name_or_a_shape(kernel_diff) -> None:
    """gemm_naive (grid and block of its own) and gemm_tiled: one family on each side, but
    nothing in common, so not paired; gemm_regtile and gemm_wmma share their launch shape."""
    apart = kernel_diff("gemm_naive", "gemm_tiled")
    assert not apart.pairs and apart.summed.basis == "unpaired"
    assert [k.id for k in apart.unmatched_before] == [k.id for k in apart.unmatched_after] == [0]
    old, new = apart.unmatched_before[0].summary.identity, apart.unmatched_after[0].summary.identity
    assert old.function != new.function and old.shape != new.shape
    alike = kernel_diff("gemm_regtile", "gemm_wmma")
    (pair,) = alike.pairs
    assert pair.matched_by == ONLY
    assert pair.before.summary.identity.shape == pair.after.summary.identity.shape
