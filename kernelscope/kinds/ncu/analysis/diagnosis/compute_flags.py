"""The compute step's flags: lanes masked off (divergence), and matrix math off the tensor
cores (half precision on the FMA pipe, or FP32/FP64 matrix work on a GPU whose tensor cores
take it)."""

from __future__ import annotations

from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import ev
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts
from kernelscope.kinds.ncu.analysis.diagnosis.outcome import (
    Found,
    Guards,
    Outcome,
    grade,
    missing,
)
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import Thresholds

_NO_INSTRUCTIONS = missing(n.SECTION_INSTRUCTIONS)
_NO_ROOFLINE = missing(n.SECTION_ROOFLINE)
"""The ``Missing`` its checks answer, made once (``missing`` keeps one of each)."""



def warp_divergence(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    eff = f.divergence_efficiency
    if eff is None:
        return _NO_INSTRUCTIONS
    severity = grade(eff, t.divergence_efficiency, t.divergence_critical, below=True)
    if severity is None:
        return None
    evidence = (
        ev("compute", n.THREADS_PER_INST, f.threads_per_inst, unit="thread"),
        ev("compute", n.LANE_EFFICIENCY, eff, "<", t.divergence_efficiency,
           note=f"ideal = {f.ideal_threads:.0f} for this block size"),
    )
    detail = (f"On average {f.threads_per_inst:.1f} of {f.ideal_threads:.0f} lanes execute each "
              "instruction.")
    return Found(severity, evidence, detail)


_FP64_TENSOR_CORES = ((8, 0), (9, 0), (10, 0))
"""Compute capabilities whose tensor cores take FP64 (DMMA): A100, H100/H200, B200."""


def has_tensor_cores_for(precision: str, cc: tuple[int, int] | None) -> bool:
    """Whether a GPU of compute capability ``cc`` has tensor cores for ``precision``'s matrix
    work: TF32 (for FP32) from Ampere (8.0) on, FP64 only on the data-centre parts."""
    if cc is None:
        return False
    if precision == "FP64":
        return cc in _FP64_TENSOR_CORES
    return cc >= (8, 0)


def _matrix_off_tensor(f: Facts, t: Thresholds) -> Outcome:
    """FP32/FP64 matrix-shaped work (``Facts.matrix_work``) on a GPU whose tensor cores take
    that precision, with the tensor pipe idle."""
    work = f.matrix_work
    if work is None or not has_tensor_cores_for(work.precision, f.compute_capability):
        return None
    cc = f.compute_capability or (0, 0)
    fp = work.precision
    evidence = [
        ev("compute", f"{fp} FLOP/s / {fp} peak", work.pct_of_peak, ">=", t.matrix_fp_pct, "%"),
        ev("compute", f"FMA share of {fp} operations", work.fma_share, ">=", t.matrix_fma_share),
        ev(
            "compute",
            "FLOP per DRAM byte",
            work.intensity,
            ">=",
            work.ridge,
            note="past the DRAM ridge: compute-shaped",
        ),
        ev("compute", n.CC_MAJOR, float(cc[0]), note=f"compute capability {cc[0]}.{cc[1]}"),
    ]
    if f.tensor_pct is not None:
        evidence.append(ev("compute", n.PIPE_TENSOR, f.tensor_pct, "<", t.tensor_idle_pct, "%"))
    path = "TF32 (or BF16)" if work.precision == "FP32" else "FP64 (DMMA)"
    return Found(
        "warning",
        tuple(evidence),
        f"{work.precision} matrix work ({work.fma_share:.0%} FMAs, {work.intensity:.0f} FLOP "
        f"per DRAM byte) runs on the FMA pipes of a GPU whose tensor cores take {path}.",
    )


def no_tensor_core(f: Facts, t: Thresholds, _: Guards) -> Outcome:
    if f.tensor_pct is not None and f.tensor_pct >= t.tensor_idle_pct:
        return None
    matrix = _matrix_off_tensor(f, t)
    if matrix is not None:
        return matrix
    if f.fp16_pct is None:
        return _NO_ROOFLINE
    if f.fp16_pct < t.half_pct_of_peak or (f.fp16_fma_share or 0.0) < t.half_fma_share:
        return None
    evidence = [
        ev(
            "compute",
            "FP16 FLOP/s / FP16 non-tensor peak",
            f.fp16_pct,
            ">=",
            t.half_pct_of_peak,
            "%",
        ),
        ev(
            "compute",
            "HFMA share of half-precision operations",
            f.fp16_fma_share,
            ">=",
            t.half_fma_share,
        ),
    ]
    if f.tensor_pct is not None:
        evidence.append(ev("compute", n.PIPE_TENSOR, f.tensor_pct, "<", t.tensor_idle_pct, "%"))
    return Found("warning", tuple(evidence), "Half-precision FMAs run on the FMA pipe.")
