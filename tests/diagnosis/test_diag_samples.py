"""The samples made for issue 24 on the H200 (``samples/cuda/diagnosis_cases.cu`` and
``thrust_lambdas.cu``): each kernel's label and top flag, and the readings behind them, against
the raw oracle that ``ncu --page raw`` printed."""

from __future__ import annotations

import pytest

from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.render.flag_cells import top_flag_text
from tests.diagnosis.conftest import find, kernels_of
from tests.diagnosis.test_real_workloads import raw

VERDICTS = [
    # 66 blocks of 1,024 threads on 132 SMs, 8 FMA chains per thread: SM 49.42 % GPU-wide, the
    # FMA pipe 91.09 % on the SMs that ran (`_active` form). The grid is the problem.
    ("diag_pipe", "fma_pipe_half_grid", "launch-bound", "grid-too-small (info)"),
    # __threadfence after every store: membar 123.7 of the 146.0 cycles between issues.
    ("diag_membar", "fence_after_store", "latency-bound", "membar-stalls (critical)"),
    # FP32 SGEMM, 128 x 128 tiles: L1 64.5 % busiest, SM 50.1 %; each thread stores 8 floats of
    # a row, so C's stores use 4 of every 32 bytes (critical); registers fill the SM by design.
    ("diag_sgemm", "sgemm_fp32_regtile", "l1-bound", "uncoalesced-global-access (critical)"),
]


@pytest.mark.parametrize(("stem", "name", "label", "flag"), VERDICTS, ids=[v[0] for v in VERDICTS])
def test_label_and_top_flag(stem: str, name: str, label: str, flag: str) -> None:
    d = find(stem, name).diagnosis
    assert d.label == label, d.bottleneck.to_dict()
    assert top_flag_text(d) == flag, [(f.id, f.severity) for f in d.flags]


def test_a_pipe_saturated_on_half_the_sms_is_read_on_the_sms_that_ran() -> None:
    k = find("diag_pipe", "fma_pipe_half_grid")
    b = k.diagnosis.bottleneck
    pipe = next(e for e in b.evidence if e.metric == n.PIPE_FMA)
    assert pipe.value == pytest.approx(raw("diag_pipe", k.id, n.PIPE_FMA), abs=0.005)
    assert pipe.value == pytest.approx(91.09, abs=0.005)
    assert pipe.note == "on the SMs that ran (50% of the SM cycles)"
    assert b.summary == (
        "The kernel leaves 66 of the 132 SMs without a block: on the SMs that have work the FMA "
        "pipe is 91% busy (compute-bound there), but the GPU-wide averages stay low because "
        "the other SMs get no block. More blocks (or concurrent work) first."
    )
    occupancy = k.diagnosis.flag("low-occupancy")
    assert occupancy is not None and occupancy.severity == "info"
    assert occupancy.guard.startswith("The grid cannot fill the GPU (66 blocks for 132 SMs)")
    # FMA chains without shared-memory tiles are not a matrix product
    assert k.diagnosis.flag("no-tensor-core") is None


def test_memory_fences_lead_with_their_remedy() -> None:
    k = find("diag_membar", "fence_after_store")
    d = k.diagnosis
    share = raw("diag_membar", k.id, n.STALL_MEMBAR) / raw("diag_membar", k.id, n.WARP_LATENCY)
    assert share == pytest.approx(0.847, abs=0.001)
    assert d.bottleneck.decided_by == "membar-stalls"
    assert d.bottleneck.summary == (
        "Neither compute nor memory is busy: warps spend 85% of their cycles between issues "
        "waiting at memory barriers (fences) (membar stalls), which sets the kernel's time."
    )
    flag = d.flag("membar-stalls")
    assert flag is not None and "__threadfence_block()" in flag.advice
    assert d.flag("barrier-stalls") is None


def test_fp32_sgemm_without_tensor_cores_on_an_h200() -> None:
    k = find("diag_sgemm", "sgemm_fp32_regtile")
    d = k.diagnosis
    flag = d.flag("no-tensor-core")
    assert flag is not None and flag.severity == "warning"
    assert flag.detail.startswith("FP32 matrix work (100% FMAs, ")
    assert flag.detail.endswith(
        "runs on the FMA pipes of a GPU whose tensor cores take TF32 (or BF16)."
    )
    assert "TF32" in flag.advice
    assert raw("diag_sgemm", k.id, n.CC_MAJOR) == 9
    occupancy = d.flag("low-occupancy")
    assert occupancy is not None and occupancy.severity == "info"
    assert occupancy.guard.startswith("Occupancy is low by design: this FP32 matrix product")


def test_no_tensor_core_stays_off_elementwise_and_fma_chains() -> None:
    for stem in ("zoo", "thrust_lambdas"):
        for k in kernels_of(stem):
            assert k.diagnosis.flag("no-tensor-core") is None, (stem, k.name)


def test_thrust_lambda_kernels() -> None:
    kernels = kernels_of("thrust_lambdas")
    assert len(kernels) == 13
    # the fills (for_each: device_vector initialisation, thrust::sequence; ~7 µs, SMs active
    # on 67-68 % of the cycles): ramp-up
    for k in kernels[:4]:
        assert k.diagnosis.label == "launch-bound", k.diagnosis.bottleneck.summary
        assert top_flag_text(k.diagnosis) == "short-kernel (warning)"
    # the three transforms with lambdas: loads outstanding most of the time
    for k in kernels[4:7]:
        assert k.diagnosis.label == "latency-bound", k.diagnosis.bottleneck.summary
        assert top_flag_text(k.diagnosis) == "long-scoreboard-stalls (critical)"


def test_one_partial_store_per_block_is_not_uncoalesced_access() -> None:
    # cub's DeviceReduceKernel: 524,288 coalesced load sectors (32 bytes used of 32) and 1,024
    # store sectors of one float each: 0.2 % of the sectors, not an access pattern to fix
    k = kernels_of("thrust_lambdas")[7]
    assert raw("thrust_lambdas", k.id, n.GLOBAL_ST_SECTORS) == 1024
    assert raw("thrust_lambdas", k.id, n.GLOBAL_LD_SECTORS) == 524288
    assert raw("thrust_lambdas", k.id, n.GLOBAL_ST_BYTES_PER_SECTOR) == 4
    assert k.diagnosis.flag("uncoalesced-global-access") is None
    # the SGEMM's C stores are 20 % of its sectors, 4 bytes used of 32: still critical
    sgemm = find("diag_sgemm", "sgemm_fp32_regtile").diagnosis.flag("uncoalesced-global-access")
    assert sgemm is not None and sgemm.severity == "critical"
