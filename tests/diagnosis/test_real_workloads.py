"""Verdicts on the samples made for real workloads: contended atomics, a family of many small
launches, GEMMs and FP64 kernels with the default and the full section set, a PyTorch step.

Every expectation is argued from NVIDIA's raw oracle of the sample (``samples/ncu/oracle``,
``ncu --page raw --print-units base``) and the method's thresholds; the tests read the same
values back from the oracle so a changed sample cannot pass silently.
"""

from __future__ import annotations

import shutil

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import DEFAULT_THRESHOLDS as T
from kernelscope.kinds.ncu.analysis.diagnosis import diagnose
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.verdict import top_flag
from kernelscope.kinds.ncu.analysis.families import kernel_families
from kernelscope.kinds.ncu.model import sass
from kernelscope.kinds.ncu.render.flag_cells import top_flag_text
from tests.diagnosis.conftest import find, kernels_of, opened
from tests.ncu.oracle import load_raw, parse_number


def raw(stem: str, kernel_id: int, metric: str) -> float:
    value = parse_number(load_raw(stem).rows[kernel_id][metric])
    assert value is not None, (stem, kernel_id, metric)
    return value


# (sample, piece of the name, label, top flag) and why, from the raw oracle:
VERDICTS = [
    # 4 bins: the busiest L2 slice's atomic unit is 79.66 % busy, the average slice 0.85 %; RED
    # requests are half of the global requests (524,288 of 1,048,576). SM 0.52 %, memory 1.70 %:
    # the Speed Of Light averages alone would say latency-bound.
    ("histogram", "histogram_global_atomics_4bins", "atomic-bound", "atomic-contention (critical)"),
    # Privatised: the busiest slice 2.05 % (< 25 %); SM 14.57 %, memory 47.95 % (< 60), achieved
    # occupancy 96 %, long-scoreboard 83.75 of 93.02 cycles (90 %, issue active 16.6 % < 60).
    (
        "histogram",
        "histogram_shared_privatized",
        "latency-bound",
        "long-scoreboard-stalls (critical)",
    ),
    # 64 blocks for 132 SMs (≥ 33 = 0.25×132, < 66 = 0.5×132: warning); SM 1.8 %, memory 1.3 %.
    # Achieved 12 % at 100 % theoretical is the grid's doing: low-occupancy stands down to info.
    ("small_family", "vec_mul_64blocks", "launch-bound", "grid-too-small (warning)"),
    # Default set: SM 69.03 %; no _active pipes, the _elapsed ones: ALU 69.03 %, FMA 20.15 %.
    # 13.3 µs: short-kernel (info, launch step) comes before the low occupancy it stands down.
    ("small_family", "rng_uniform_fill", "instruction-bound", "short-kernel (info)"),
    # Memory 82.65 % vs SM 61.09 % (21 points): memory side; L1 85.63 % > L2 13.62 %, DRAM 1.32 %;
    # L1 ≥ 80 % with DRAM < 50 % is l1tex-pressure, which decided the label (low-occupancy at
    # 46 % is a warning too). The full set carries NCU's estimates: its bank-conflict rule
    # estimates 66.9 %, more than the 62.0 % of the L1TEX and coalescing rules, so it leads.
    ("gemm_sets_default", "gemm_regtile", "l1-bound", "l1tex-pressure (warning)"),
    ("gemm_sets_full", "gemm_regtile", "l1-bound", "shared-bank-conflicts (warning)"),
    # SM 42.33 %, memory 37.78 %: neither busy; achieved 47.79 % of a 50 % theoretical ceiling
    # is what the registers allow (issue 23: not "warps not resident"), so occupancy is not
    # low: latency-bound, the register limit as info.
    ("gemm_sets_default", "gemm_wmma", "latency-bound", "occupancy-limiter (info)"),
    # The full set adds the stalls: long scoreboard holds 62 % of the cycles between issues,
    # more than half: latency-bound by it, and it leads.
    ("gemm_sets_full", "gemm_wmma", "latency-bound", "long-scoreboard-stalls (critical)"),
    ("gemm_sets_default", "dgemm_tiled", "l1-bound", "l1tex-pressure (warning)"),
    ("gemm_sets_full", "dgemm_tiled", "l1-bound", "mio-throttle (critical)"),
    # FP64 pipe 86.51 % (elapsed, default set) / 87.44 % (active, full set), SM 89.22 %.
    ("gemm_sets_default", "fp64_dfma_chain", "compute-bound", "—"),
    # The full set's math-pipe-throttle stalls (40 %) are the compute roof's waiting: info.
    ("gemm_sets_full", "fp64_dfma_chain", "compute-bound", "math-pipe-throttle (info)"),
    # Tensor pipe 90.16 % (elapsed; the default set has no _active form): compute-bound, and the
    # 14.6 % occupancy is by design (info) — before, the default set made this instruction-bound.
    ("gemm_torch_default", "nvjet_sm90_tst_256x128", "compute-bound", "low-occupancy (info)"),
    ("gemm_torch_full", "nvjet_sm90_tst_256x128", "compute-bound", "low-occupancy (info)"),
    # FP32 without TF32: FMA pipe 76.86 %.
    ("gemm_torch_default", "sm80_xmma_gemm_f32f32", "compute-bound", "low-occupancy (info)"),
    (
        "gemm_torch_full",
        "sm80_xmma_gemm_f32f32",
        "compute-bound",
        "shared-bank-conflicts (warning)",
    ),
    # FP64 DMMA: tensor pipe 91.52 % (sm__pipe_tensor_op_dmma the same).
    ("gemm_torch_default", "sm90_xmma_gemm_f64f64", "compute-bound", "low-occupancy (info)"),
    ("gemm_torch_full", "sm90_xmma_gemm_f64f64", "compute-bound", "low-occupancy (info)"),
    # FP64 exp: SM 22.25 %, memory 51.71 % (< 60), achieved occupancy 77 %.
    ("gemm_torch_default", "vectorized_elementwise_kernel", "latency-bound", "—"),
    (
        "gemm_torch_full",
        "vectorized_elementwise_kernel",
        "latency-bound",
        "long-scoreboard-stalls (warning)",
    ),
    # cuDNN flash attention: SM 48.71 %, memory 37.21 %: both low. Occupancy 14.1 % by design:
    # tensor pipe 54.36 % with 168 × 384 registers (98 % of the file) and 232,448 + 1,024 bytes of
    # shared memory (100 % of the SM's 233,472).
    (
        "join_kernels",
        "cudnn_generated_fort_native_sdpa",
        "latency-bound",
        "barrier-stalls (warning)",
    ),
    ("join_kernels", "nvjet_sm90_tst_256x128", "compute-bound", "low-occupancy (info)"),
    # The split-K GEMM's 18.75 % theoretical occupancy is its resources (128 blocks on 132 SMs do
    # not explain it) and its tensor pipe idles at 6 %: still critical.
    ("torch_ops", "splitK_NNT", "l2-bound", "low-occupancy (critical)"),
    # 3.7 µs, 128 blocks: short-kernel (warning) leads; grid-too-small is only info (4 idle SMs).
    ("torch_ops", "splitKreduce_kernel", "launch-bound", "short-kernel (warning)"),
    # Existing labels with the verdict order: the small grid before its low occupancy.
    ("zoo", "small_grid_8_blocks", "launch-bound", "grid-too-small (critical)"),
    # issue 23: 8 addresses, the busiest slice's atomic unit 33 % (94× the average): the cause,
    # atomic-contention, leads; the long-scoreboard stalls are its queue (info, no cp.async).
    ("zoo", "atomic_contention_8_addresses", "latency-bound", "atomic-contention (warning)"),
    # 512 blocks are 0.48 waves: the grid cannot fill the GPU, so launch-bound (issue 24).
    # 6.0 µs with the SMs active on 70 % of its cycles: short-kernel is a warning and leads.
    ("many_launches", "ml_copy_2m_f4", "launch-bound", "short-kernel (warning)"),
]


@pytest.mark.parametrize(
    ("stem", "name", "label", "flag"), VERDICTS, ids=[f"{v[0]}:{v[1]}" for v in VERDICTS]
)
def test_label_and_top_flag(stem: str, name: str, label: str, flag: str) -> None:
    d = find(stem, name).diagnosis
    assert d.label == label, d.bottleneck.to_dict()
    assert top_flag_text(d) == flag, [(f.id, f.severity) for f in d.flags]


# -- atomics --------------------------------------------------------------------------------
def test_atomic_bound_evidence_is_the_oracles_atomic_unit() -> None:
    k = find("histogram", "histogram_global_atomics_4bins")
    top = raw("histogram", k.id, n.ATOMIC_SLICE_MAX)
    avg = raw("histogram", k.id, n.ATOMIC_SLICE_AVG)
    assert top >= T.atomic_busy_pct and top / avg >= T.atomic_concentration
    # The Speed Of Light averages are nowhere near busy: the averages hide the hot slice.
    assert raw("histogram", k.id, n.SM_PCT) < T.sol_busy_pct
    assert raw("histogram", k.id, n.MEM_PCT) < T.sol_busy_pct
    b = k.diagnosis.bottleneck
    assert b.decided_by == "atomic-contention"
    unit = next(e for e in b.evidence if e.metric == n.ATOMIC_SLICE_MAX)
    assert unit.value == pytest.approx(top, abs=0.01) and unit.holds
    flag = k.diagnosis.flag("atomic-contention")
    assert flag is not None and flag.severity == "critical"
    share = next(e for e in flag.evidence if "global requests" in e.metric)
    red = raw("histogram", k.id, n.GLOBAL_RED_REQUESTS)
    loads = raw("histogram", k.id, n.GLOBAL_LD_REQUESTS)
    assert share.value == pytest.approx(red / (red + loads))
    assert "cp.async" not in flag.advice and "shared memory" in flag.advice


@pytest.mark.skipif(
    not (sass.binding_available() or shutil.which("nvdisasm")),
    reason="naming the hot line and its SASS needs a disassembler (ncu-report or nvdisasm)",
)
def test_atomic_flag_names_the_hot_source_line() -> None:
    report = opened("histogram")
    k = find("histogram", "histogram_global_atomics_4bins")
    detail = report.detail(k.id)
    source = report.source_hotspots(k.id)
    assert source is not None
    d = diagnose(detail.metrics, detail.rules, set(detail.sections), source=source)
    flag = d.flag("atomic-contention")
    assert flag is not None
    line = next(e for e in flag.evidence if e.step == "source")
    assert line.metric == "histogram_atomics.cu:33"
    assert "atomicAdd(&bins[keys[i] % BINS], 1u);" in line.note and "REDG" in line.note
    top_line = max(source.lines, key=lambda s: s.samples)
    assert line.value == pytest.approx(100 * top_line.samples / source.total_samples)
    assert "histogram_atomics.cu:33" in flag.detail


def test_privatised_histogram_and_incidental_atomics_raise_no_atomic_flag() -> None:
    private = find("histogram", "histogram_shared_privatized")
    assert raw("histogram", private.id, n.ATOMIC_SLICE_MAX) < T.atomic_slice_warn_pct
    assert not private.diagnosis.has_flag("atomic-contention")
    # The reduction's one atomicAdd per block: its slice is 23.7 % busy, and 65,536 RED
    # requests against 524,288 loads are 11 % of the global requests.
    reduce = find("zoo", "reduce_syncthreads_per_step")
    assert not reduce.diagnosis.has_flag("atomic-contention")
    red = raw("zoo", reduce.id, n.GLOBAL_RED_REQUESTS)
    loads = raw("zoo", reduce.id, n.GLOBAL_LD_REQUESTS)
    assert red / (red + loads) < T.atomic_request_share


def test_eight_counters_contend_without_saturating_the_atomic_unit() -> None:
    k = find("zoo", "atomic_contention_8_addresses")
    top = raw("zoo", k.id, n.ATOMIC_SLICE_MAX)
    assert T.atomic_slice_warn_pct <= top < T.atomic_busy_pct  # 33.27 %
    flag = k.diagnosis.flag("atomic-contention")
    assert flag is not None and flag.severity == "warning"
    assert k.diagnosis.label == "latency-bound"  # the existing label holds


# -- families and step 0 --------------------------------------------------------------------
def test_small_family_is_ranked_by_its_summed_launches() -> None:
    oracle = load_raw("small_family").rows
    durations = {i: parse_number(r["gpu__time_duration.sum"]) for i, r in oracle.items()}
    names = {i: r["Kernel Name"] for i, r in oracle.items()}
    families = kernel_families(k.summary for k in kernels_of("small_family"))
    assert [f.count for f in families] == [150, 1]
    vec, rng = families.families
    assert vec.name == "vec_mul_64blocks" and rng.name == "rng_uniform_fill"
    assert vec.ids == tuple(i for i in sorted(names) if names[i].startswith("vec_mul"))
    total = sum(durations.values())
    assert vec.total_duration_ns == sum(durations[i] for i in vec.ids)
    assert vec.time_share == pytest.approx(vec.total_duration_ns / total)
    # The one-off kernel is the longest single launch, the family takes 96 % of the time.
    assert max(durations, key=durations.get) == rng.ids[0]
    assert vec.time_share > 0.95 and rng.time_share < 0.04
    assert vec.min_duration_ns == min(durations[i] for i in vec.ids)
    assert vec.max_duration_ns == max(durations[i] for i in vec.ids)
    assert (vec.grid, vec.block, vec.split) == ("64", "256", False)


def test_step_zero_weighs_a_launch_by_its_family() -> None:
    from kernelscope.kinds.ncu.analysis.kernel_analysis import analyze

    analyzed = analyze(opened("small_family"))
    k = next(k for k in analyzed.kernels if k.summary.row["name"] == "vec_mul_64blocks")
    first = k.diagnosis.bottleneck.evidence[0]
    assert first.step == "time" and "family of 150 launches" in first.metric
    assert first.value == pytest.approx(analyzed.family(k.id).time_share)
    assert k.time_share < 0.01  # alone, a launch looks negligible …
    assert not any("0.6" in note and "GPU time" in note for note in k.diagnosis.notes)


def test_defaults_and_full_sets_agree_on_every_gemm() -> None:
    for default, full in (
        ("gemm_sets_default", "gemm_sets_full"),
        ("gemm_torch_default", "gemm_torch_full"),
    ):
        a, b = kernels_of(default), kernels_of(full)
        assert [k.name for k in a] == [k.name for k in b]
        assert [k.diagnosis.label for k in a] == [k.diagnosis.label for k in b]
        assert "instruction-bound" not in {k.diagnosis.label for k in a}


def test_default_set_reads_the_elapsed_pipes() -> None:
    k = find("gemm_sets_default", "fp64_dfma_chain")
    assert n.PIPE_FP64 not in k.summary.metrics  # the default set has no _active pipes
    elapsed = n.elapsed_form(n.PIPE_FP64)
    pipe = next(e for e in k.diagnosis.bottleneck.evidence if e.step == "compute")
    assert pipe.metric == elapsed
    # read against the SMs that ran: the elapsed form over the SMs' active share
    active = raw("gemm_sets_default", k.id, n.SM_ACTIVE_CYCLES)
    cycles = raw("gemm_sets_default", k.id, n.SM_ELAPSED_CYCLES)
    expected = raw("gemm_sets_default", k.id, elapsed) * cycles / active
    assert pipe.value == pytest.approx(expected, abs=0.005)


def test_attention_occupancy_is_by_design_from_its_resources() -> None:
    k = find("join_kernels", "cudnn_generated_fort_native_sdpa")
    regs = raw("join_kernels", k.id, "launch__registers_per_thread")
    threads = raw("join_kernels", k.id, "launch__block_size")
    register_file = raw("join_kernels", k.id, n.SM_REGISTERS)
    shared = sum(raw("join_kernels", k.id, m) for m in (n.SHARED_DYNAMIC, n.SHARED_DRIVER))
    assert regs * threads / register_file >= T.design_resource_share  # 0.98, one block per SM
    assert shared / raw("join_kernels", k.id, n.SM_SHARED) >= T.design_resource_share  # 1.0
    assert raw("join_kernels", k.id, n.PIPE_TENSOR) >= T.design_tensor_pct  # 54.36 %
    d = k.diagnosis
    guard = next(g for g in d.guard_rails if g.id == "occupancy-by-design")
    assert "tensor pipe" in guard.text
    assert d.flag("low-occupancy").severity == "info"
    assert d.label != "occupancy-bound"


def test_top_flag_follows_the_chain_among_equals() -> None:
    d = find("small_family", "vec_mul_64blocks").diagnosis
    warnings = {f.id for f in d.flags if f.severity == "warning"}
    assert {"short-kernel", "grid-too-small"} <= warnings
    assert top_flag(d).id == d.bottleneck.decided_by == "grid-too-small"
    low = d.flag("low-occupancy")
    assert low.severity == "info" and "grid" in low.guard


def test_stalls_behind_saturated_atomics_get_no_latency_advice() -> None:
    d = find("histogram", "histogram_global_atomics_4bins").diagnosis
    stall = d.flag("long-scoreboard-stalls")
    assert stall is not None and stall.severity == "info"
    assert any(g.id == "stalls-behind-atomics" for g in d.guard_rails)
    # issue 23: the 8 counters of the zoo keep the unit at 33 % (94× the average slice): their
    # wait is the atomics' queue too, and the atomics, not cp.async, lead.
    zoo = find("zoo", "atomic_contention_8_addresses").diagnosis
    assert zoo.flag("long-scoreboard-stalls").severity == "info"
    assert any(g.id == "stalls-behind-atomics" for g in zoo.guard_rails)
    assert zoo.bottleneck.decided_by == "atomic-contention"
    assert "queued behind atomics to a few addresses" in zoo.bottleneck.summary
