"""Two timelines of the same PyTorch step, eager and captured in a CUDA graph: every number
of the diff is the one ``nsys stats`` printed for each report."""

from __future__ import annotations

import pytest

from kernelscope.kinds.diff.analysis.gate import check_slower
from kernelscope.kinds.diff.analysis.timelines import SHORT_GAPS, appeared
from kernelscope.kinds.diff.export.diff_export import gate_sentence
from kernelscope.kinds.diff.render.diff import family_row, summed_text
from tests.nsys.oracle import oracle_csv, read_csv


def oracle_rows(name: str, report: str, key: str = "Name") -> dict[str, dict[str, str]]:
    return {row[key]: row for row in read_csv(oracle_csv(name, report))}


def test_families_are_nsys_stats_kernel_rows(graph_diff) -> None:
    before = oracle_rows("graph_eager", "cuda_gpu_kern_sum")
    after = oracle_rows("graph_replay", "cuda_gpu_kern_sum")
    assert {f.name for f in graph_diff.families} == set(before) | set(after)
    for family in graph_diff.families:
        for rows, total, count in ((before, family.before_ns, family.before_count),
                                   (after, family.after_ns, family.after_count)):
            row = rows.get(family.name)
            if row is None:
                assert (total, count) == (None, 0)
            else:
                assert total == float(row["Total Time (ns)"])
                assert count == int(row["Instances"])
    new_names = [f.name for f in appeared(graph_diff.families)]
    assert new_names == sorted(set(after) - set(before))
    assert graph_diff.summed.before_ns == sum(float(r["Total Time (ns)"]) for r in before.values())


def test_the_graph_replaces_launches(graph_diff) -> None:
    before = oracle_rows("graph_eager", "cuda_api_sum")
    after = oracle_rows("graph_replay", "cuda_api_sum")
    calls = {a.name: a for a in graph_diff.launch_calls}
    launch = calls["cudaLaunchKernel"]
    assert launch.before_count == int(before["cudaLaunchKernel"]["Num Calls"]) == 1034
    assert launch.after_count == int(after["cudaLaunchKernel"]["Num Calls"]) == 172
    graph = next(a for a in appeared(graph_diff.api) if a.name.startswith("cudaGraphLaunch"))
    assert graph.after_count == 40  # one replay a step
    assert "cudaStreamBeginCapture_v10000" in {a.name for a in appeared(graph_diff.api)}


def test_busy_gaps_nvtx_copies_findings(graph_diff) -> None:
    busy = graph_diff.busy
    for data, pct in ((graph_diff.before, busy.before.pct), (graph_diff.after, busy.after.pct)):
        assert pct == pytest.approx(data.gpu_busy_pct)
    assert busy.after.pct > busy.before.pct
    gaps = {g.name: g for g in graph_diff.gaps}
    assert sum(g.before_count for g in gaps.values()) == graph_diff.before.gaps.height
    # the graph removes the launch spacing (the short gaps between eager launches); the large
    # gaps at first launches are module loading, one-time on both sides, not launch overhead
    assert gaps[SHORT_GAPS].after_ns < gaps[SHORT_GAPS].before_ns / 5
    assert "launch-overhead" not in gaps
    assert (gaps["module-loading"].before_count, gaps["module-loading"].after_count) == (7, 8)
    nvtx = {r.name: r for r in graph_diff.nvtx}
    assert nvtx[":eager"].status == "gone" and nvtx[":graph"].status == "new"
    step = nvtx[":step 5"]
    assert step.after_ns < step.before_ns / 5  # the replayed step's CPU range is short
    copies = oracle_rows("graph_replay", "cuda_gpu_mem_time_sum", "Operation")
    for copy in graph_diff.copies:
        assert copy.after_ns == float(copies[copy.name]["Total Time (ns)"])
    findings = {f.id: f for f in graph_diff.findings}
    assert findings["pageable-memcpy"].status == "same"
    assert findings["low-gpu-utilization"].before_items == 1


def test_fail_if_slower_on_timelines(graph_diff) -> None:
    """The replay ran 1,292 kernel instances, the eager run 1,206 (the capture's warm-up adds
    launches): the summed times (+7.5 %) compare runs of different lengths, so the headline
    and the gate compare the time per instance (+0.37 %), and say so."""
    summed = graph_diff.summed
    assert (summed.before_count, summed.after_count, summed.basis) == (1206, 1292,
                                                                      "per instance")
    assert summed_text(summed) == (
        "9.57 ms in 1,206 kernel instances → 10.29 ms in 1,292; the counts differ, so per "
        "instance: 7.93 us → 7.96 us (+0.4 %, 1.00×)")
    gate = check_slower(graph_diff, 5)
    assert not gate.failed and gate.summed.change_pct == pytest.approx(
        100 * ((10_286_044 / 1292) / (9_566_172 / 1206) - 1))
    assert check_slower(graph_diff, 0.3).failed
    # a family whose instance count differs is judged per instance too, and named so
    assert gate.regressed and all(r.change_pct is None or r.change_pct > 5
                                  for r in gate.regressed)
    assert any(r.name.endswith(" (per instance)") for r in gate.regressed)
    assert gate_sentence(check_slower(graph_diff, 0.3)).startswith(
        "The kernel time per instance (1,206 → 1,292 instances) regressed by +0.4 % "
        "(7.93 us → 7.96 us), more than the 0.3 % allowed; slower: ")


def test_a_family_whose_counts_differ_changes_per_instance(graph_diff) -> None:
    """sgemm_largek_lds64 ran 172 times eager, 184 with the graph: its total grew 5.3 % but
    each instance got 1.5 % faster; the table says the latter, and that it is per instance."""
    sgemm = next(f for f in graph_diff.families if f.name.startswith("void sgemm_largek_lds64"))
    assert (sgemm.before_count, sgemm.after_count) == (172, 184) and sgemm.counts_differ
    assert family_row(sgemm)[1:] == ["172 → 184", "4.12 ms", "4.34 ms", "−1.5 % per instance",
                                     "23.95 us", "23.58 us"]
    reduce = next(f for f in graph_diff.families
                  if f.name.startswith("void at::native::reduce_kernel"))
    assert family_row(reduce)[4] == "+6.7 %"
