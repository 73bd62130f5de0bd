"""The join of the real pair, checked against NVIDIA's CLI output and by hand.

The ranking, worked out from the oracles (``nsys stats`` of ``join_trace``, ``ncu --page raw``
of ``join_kernels``): the program spends a steady step of ~3.6 ms of which only ~0.85 ms is
kernel time; ~2.4 ms of each step is the GPU idling between the 150 ~1 µs launches of
``tiny_ops`` (cudaLaunchKernel ~16 µs apart), ~44 ms over steps 1-19. That outranks every
kernel: the cuBLAS GEMM family is 61.1 % of kernel time (10.55 ms) and already runs at 80-91 %
of its SM/tensor ceiling (~14 % headroom, ~1.47 ms of kernel time), but the steps wait on the
host's launches, not on it: its launches have ~2.1 ms of slack in every step, so reaching its
headroom saves no step time (docs/critical_path.md), and neither does any other kernel. The per-step
``.item()`` sync leaves ~2.6 ms of idle after the host returns, and the short gaps between
the other launches ~5.6 ms. Step 0 (1.76 s: set-up, library loading, autotuning) is one-time
and is ranked last.
"""

from __future__ import annotations

import csv
import io
import lzma
import re
from collections import Counter, defaultdict

import polars as pl
import pytest

from kernelscope.kinds.join.analysis import JoinInputs, JoinReport
from kernelscope.kinds.join.analysis.names import match_name
from kernelscope.kinds.join.analysis.ncu_command import range_filter, representative
from kernelscope.kinds.join.render.join_evidence import evidence_lines
from kernelscope.kinds.join.render.join_text import headroom_text, top_flags_words, what_text
from tests.conftest import read_csv_xz
from tests.join.conftest import NCU_ORACLE, ORACLE


def oracle_rows(name: str) -> list[dict[str, str]]:
    text = lzma.decompress((ORACLE / f"join_trace_{name}.csv.xz").read_bytes()).decode()
    return list(csv.DictReader(io.StringIO(text)))


def ncu_raw() -> list[dict[str, str]]:
    rows = read_csv_xz(NCU_ORACLE)
    header = rows[0]
    return [dict(zip(header, r, strict=True)) for r in rows[2:]]


def num(text: str) -> float:
    return float(text.replace(",", ""))


def test_shares_equal_nsys_stats(join: JoinReport) -> None:
    by_name: dict[str, list] = defaultdict(list)
    for f in join.kernels.families:
        by_name[f.name].append(f)
    oracle = oracle_rows("cuda_gpu_kern_sum")
    assert len(by_name) == len(oracle) == 15
    for row in oracle:
        families = by_name[row["Name"]]
        assert sum(f.total_ns for f in families) == int(row["Total Time (ns)"])
        assert sum(f.instances for f in families) == int(row["Instances"])
        share = sum(f.time_share for f in families)
        assert f"{100 * share:.1f}" == row["Time (%)"], row["Name"]
    ranked = {i.name: i for i in join.ranking + join.unprofiled if i.kind == "kernel"}
    gemm = ranked["nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"]
    assert f"{100 * gemm.time_share:.1f}" == "61.1"


def test_nvtx_ranges_of_kernels_equal_nvtx_kern_sum(join: JoinReport) -> None:
    """Each kernel's innermost range, counted per range, as ``nsys stats -r nvtx_kern_sum``."""
    counts: Counter[tuple[str, str]] = Counter()
    for f in join.kernels.families:
        for r in f.nvtx:
            if r is not None:
                counts[(r, f.name)] += 1
    inner = {"attention", "mlp", "norm", "tiny_ops", "sync"}
    expected = {(row["NVTX Range"].lstrip(":"), row["Kernel Name"]): int(row["Kern Inst"])
                for row in oracle_rows("nvtx_kern_sum")
                if row["NVTX Range"].lstrip(":") in inner}
    assert counts == Counter(expected)


GEMM = {0, 1, 2, 4, 7, 9, 12, 13, 14, 16, 19, 21}
MLP_GEMM = {7, 9, 19, 21}


def test_every_profiled_kernel_is_matched_to_its_family(join: JoinReport) -> None:
    raw = {int(r["ID"]): r for r in ncu_raw()}
    assert not join.unmatched
    assert len(join.matches.matched) == 24
    families = join.kernels.families
    for m in join.matches.matched:
        row = raw[m.launch.kernel_id]
        family = families[m.family]
        # the ncu CLI prints the name without at::native's namespace: compare the bare name
        assert family.short_name in row["Kernel Name"]
        grid = tuple(int(x) for x in re.findall(r"\d+", row["Grid Size"]))
        block = tuple(int(x) for x in re.findall(r"\d+", row["Block Size"]))
        assert family.grid == "×".join(str(g) for g in grid).removesuffix("×1").removesuffix("×1")
        assert family.block == "×".join(str(b) for b in block).removesuffix("×1").removesuffix("×1")
        assert not m.shape_differs
        assert match_name(m.launch.demangled) == match_name(family.name)
    by_id = {m.launch.kernel_id: m for m in join.matches.matched}
    assert {k for k, m in by_id.items()
            if families[m.family].short_name.startswith("nvjet")} == GEMM
    # launch order laid against the timeline puts the big GEMMs in mlp, the others in attention
    for k in GEMM:
        m = by_id[k]
        assert families[m.family].nvtx[m.instance] == ("mlp" if k in MLP_GEMM else "attention")
    assert {k for k, m in by_id.items() if "sdpa" in families[m.family].name} == {3, 15}
    assert {k for k, m in by_id.items() if "layer_norm" in families[m.family].name} == {6, 11,
                                                                                      18, 23}


def test_unprofiled_families_get_an_ncu_command(join: JoinReport,
                                                join_inputs: JoinInputs) -> None:
    assert not [i for i in join.ranking if i.kind == "kernel" and not i.profiled]
    unprofiled = list(join.unprofiled)
    assert len(unprofiled) == 11  # 16 families, 5 profiled
    kernels = join_inputs.timeline.report.kernels
    mangled = dict(zip(kernels["name"].cast(pl.String).to_list(),
                       kernels["mangled_name"].cast(pl.String).to_list(), strict=True))
    tiny = [i for i in unprofiled if i.nvtx == "tiny_ops"]
    assert len(tiny) == 3 and all(i.instances == 1000 for i in tiny)
    for item in tiny:
        cmd = item.ncu_command or ""
        assert cmd.startswith("ncu --set full --import-source yes --kernel-name-base mangled ")
        assert f"-k 'regex:^{re.escape(mangled[item.family])}$'" in cmd
        assert "--nvtx --nvtx-include tiny_ops/" in cmd
        assert "--launch-count 1" in cmd
        family = join.kernels.families[item.timeline_family]
        chosen = representative(family, range_filter("tiny_ops"))
        skip = int(re.search(r"--launch-skip (\d+)", cmd).group(1))
        # every instance of these families runs in tiny_ops: the skip is the instance's index
        assert skip == chosen
        assert family.durations[chosen] == sorted(family.durations[1:])[(999 - 1) // 2]
        assert item.weak and "not profiled" in item.weak
    assert join.kernels.shortest_ns == 672  # FillFunctor<BFloat16>, Min (ns) in kern_sum


def test_unprofiled_gain_is_unknown_and_listed_apart_by_time(join: JoinReport) -> None:
    """A family nobody profiled has no measured headroom: no saving is guessed for it (the old
    bound, every launch as short as the shortest kernel, put a 20 µs copy above profiled
    kernels), and it is listed apart from the ranking, by its time."""
    assert all(i.potential_saving_ns is None and i.headroom is None for i in join.unprofiled)
    totals = [i.total_ns for i in join.unprofiled]
    assert totals == sorted(totals, reverse=True)
    assert "launch_clamp_scalar" in join.unprofiled[0].family
    assert [(i.instances, i.total_ns) for i in join.unprofiled[:2]] == [(1000, 1_068_447),
                                                                        (1000, 993_408)]
    doc = join.to_dict()
    assert [r["profiled"] for r in doc["ranking"] if r["kind"] == "kernel"] == [True] * 5
    assert len(doc["unprofiled"]) == 11
    assert {r["potential_saving_ns"] for r in doc["unprofiled"]} == {None}


def test_gemm_headroom_from_the_raw_oracle(join: JoinReport) -> None:
    """The GEMMs are closest to their SM/tensor ceiling; NCU's estimates are not lower, so
    the headroom is the duration-weighted distance to 100 % SM throughput."""
    raw = {int(r["ID"]): r for r in ncu_raw()}
    weights = [num(raw[k]["gpu__time_duration.sum"]) for k in sorted(GEMM)]
    distance = [1 - num(raw[k]["sm__throughput.avg.pct_of_peak_sustained_elapsed"]) / 100
                for k in sorted(GEMM)]
    expected = sum(w * d for w, d in zip(weights, distance, strict=True)) / sum(weights)
    gemm = next(i for i in join.ranking if i.title.startswith("nvjet"))
    assert gemm.profiled and gemm.bottleneck == "compute-bound"
    assert gemm.headroom == pytest.approx(expected, abs=0.002)
    assert 10_553_756 * gemm.headroom == pytest.approx(1_466_037, rel=0.01)  # kernel time
    assert gemm.potential_saving_ns == 0.0  # … but no step waits on it
    assert gemm.ncu_ids == tuple((0, k) for k in sorted(GEMM))
    # both NVTX ranges profiled, durations steady within each: only the slack is said
    assert gemm.weak == "off the critical path: 2.127 ms of slack before a step moves"


def test_ranking_order(join: JoinReport) -> None:
    order = [i.family if i.kind == "idle" else i.title for i in join.ranking]
    assert order[:6] == ["launch-overhead", "short-gaps", "sync", "copies", "cpu-busy",
                         "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"]
    assert order[-1] == "start-up" and join.ranking[-1].one_time
    first = join.ranking[0]
    assert first.nvtx == "tiny_ops"
    savings = [i.potential_saving_ns for i in join.ranking[:-1]]
    assert savings == sorted(savings, reverse=True)
    profiled = [i for i in join.ranking if i.kind == "kernel" and i.profiled]
    assert {i.potential_saving_ns for i in profiled} == {0.0}  # then by their time
    assert [i.title[:12] for i in profiled] == ["nvjet_sm90_t", "vectorized_e", "cudnn_genera",
                                                "vectorized_l", "vectorized_e"]


def test_idle_time_is_counted_once(join: JoinReport, join_inputs: JoinInputs) -> None:
    gaps = join_inputs.timeline.gaps
    idle = [i for i in join.ranking if i.kind == "idle" and i.family != "copies"]
    assert sum(i.total_ns for i in idle) == int(gaps["duration_ns"].sum())
    assert sum(i.instances for i in idle) == gaps.height
    copies = next(i for i in join.ranking if i.family == "copies")
    mem = oracle_rows("cuda_gpu_mem_time_sum")
    assert copies.total_ns == sum(int(r["Total Time (ns)"]) for r in mem)
    # kernel time + copy time covers the busy time (no overlap here: one stream)
    assert join.kernels.total_ns + copies.total_ns == join.busy_ns


def test_json_contract(join: JoinReport) -> None:
    doc = join.to_dict()
    assert doc["schema"] == "kernelscope/join/2"
    assert doc["timeline"]["path"].endswith("join_trace.sqlite")
    assert doc["kernel_reports"][0]["path"].endswith("join_kernels.ncu-rep")
    assert doc["unmatched_kernels"] == []
    for entry in doc["ranking"] + doc["unprofiled"]:
        for key in ("family", "time_share", "instances", "total_ns", "profiled", "ncu_ids",
                    "bottleneck", "headroom", "potential_saving_ns"):
            assert key in entry
        if entry["kind"] == "kernel":
            assert ("ncu_command" in entry) is (not entry["profiled"])
            assert bool(entry["ncu_ids"]) is entry["profiled"]


def test_next_never_repeats_a_remedy_the_diagnosis_calls_not_a_problem(
        join: JoinReport, join_inputs: JoinInputs) -> None:
    """The GEMM's Diagnosis pane says its low occupancy is "not a problem here" (the Tensor
    pipe is 92 % busy): its Next must not tell the user to raise occupancy."""
    gemm = next(i for i in join.ranking if i.title.startswith("nvjet"))
    assert [(f.id, f.severity, bool(f.guard)) for f in gemm.top_flags] == [
        ("low-occupancy", "info", True), ("occupancy-limiter", "info", True)]
    assert top_flags_words(gemm) == ["low-occupancy (info, not a problem here)",
                                     "occupancy-limiter (info, not a problem here)"]
    assert gemm.lead_flag is None and what_text(gemm) == "compute-bound"
    assert gemm.remedy == (
        "No flag to act on: low-occupancy is not a problem here. Occupancy is low but the "
        "Tensor pipe is 92% busy: more resident warps cannot help a unit that is already full, "
        "so low occupancy is not this kernel's problem. The kernel is compute-bound: The Tensor "
        "pipe does the work and is busy.")
    for item in (i for i in join.ranking if i.kind == "kernel"):
        report, kernel_id = max(item.ncu_ids, key=lambda rk: join_inputs.kernel_reports[rk[0]]
                                .kernel(rk[1]).duration_ns or 0)
        flags = join_inputs.kernel_reports[report].kernel(kernel_id).diagnosis.flags
        guarded = {f.advice for f in flags if f.guard}
        assert item.remedy not in guarded, item.title
    sdpa = next(i for i in join.ranking if i.title.startswith("cudnn"))
    assert what_text(sdpa) == "latency-bound · barrier-stalls (warning)"


def test_family_headroom_and_the_longest_launch_are_told_apart(join: JoinReport) -> None:
    """13.9 % is the family's headroom (its 12 launches' headroom weighted by duration); 12.6 %
    is the longest launch's own distance to its ceiling: the evidence says which is which."""
    gemm = next(i for i in join.ranking if i.title.startswith("nvjet"))
    assert headroom_text(gemm) == "13.9 %"
    assert evidence_lines(gemm.evidence[1:4]) == [
        "headroom 13.9 %: the mean of 12 launches' headroom (8.6 %–20.1 %) weighted by their "
        "durations",
        "longest launch (kernel 7): tensor roofline 87.4 % of peak, 12.6 % from the ceiling",
        "longest launch: NCU SharedMemoryConflicts est. speedup 19.3 % (capped at the ceiling "
        "distance)",
    ]


def test_flags_are_weighed_by_the_share_of_the_run(join: JoinReport,
                                                   join_inputs: JoinInputs) -> None:
    """Each profiled family's top flag is weighed by its share of the run's kernel time
    (``nsys stats``'s Time (%)), not by its launches' share of the kernel report: the
    longest CUDAFunctor_add launch is 0.96 % of join_kernels.ncu-rep (its four launches 3.8 %),
    its family 2.6 % of the run; the JSON says which share weighed it."""
    oracle = {r["Name"]: num(r["Time (%)"]) for r in oracle_rows("cuda_gpu_kern_sum")}
    for item in (i for i in join.ranking if i.kind == "kernel"):
        top = item.top_flag
        if top is None:
            assert not item.top_flags
            continue
        assert top.run_share == item.time_share
        assert round(100 * top.run_share, 1) == pytest.approx(oracle[item.name], abs=0.05)
        assert item.to_dict()["top_flag"]["weighed_by"] == top.weighed_by
    add = next(i for i in join.ranking if "CUDAFunctor_add" in i.family)
    report, kernel_id = max(add.ncu_ids, key=lambda rk: join_inputs.kernel_reports[rk[0]]
                            .kernel(rk[1]).duration_ns or 0)
    assert join_inputs.kernel_reports[report].kernel(kernel_id).time_share < 0.01
    assert add.top_flag is not None and add.top_flag.flag.severity == "critical"
    assert add.top_flag.weighed_by == (
        "severity weighed by the family's 2.6 % of the run's kernel time, not its kernel "
        "report's share (a family under 1 % would get no flag above info)")
