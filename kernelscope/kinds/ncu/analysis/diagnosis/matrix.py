"""FP32/FP64 work shaped like a matrix product: what ``no-tensor-core`` and the
``occupancy-by-design`` guard rail read for kernels without tensor-core instructions."""

from __future__ import annotations

from typing import NamedTuple

from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import Thresholds
from kernelscope.kinds.ncu.analysis.diagnosis.values import Values
from kernelscope.kinds.ncu.analysis.roofline.model import Roofline


class MatrixWork(NamedTuple):
    """FP32 or FP64 math on the FMA/FP64 pipe shaped like a matrix product."""

    precision: str
    """``FP32`` or ``FP64``."""
    pct_of_peak: float
    fma_share: float
    """Share of the precision's operations done by fused multiply-adds."""
    intensity: float
    """FLOP per DRAM byte."""
    ridge: float
    """The DRAM ridge of that precision: past it, the work is compute-shaped."""


_MATRIX_OPS = {
    "FP32": ("fp32", n.FFMA_RATE, (n.FADD_RATE, n.FMUL_RATE)),
    "FP64": ("fp64", n.DFMA_RATE, (n.DADD_RATE, n.DMUL_RATE)),
}


def matrix_work(roofline: Roofline | None, values: Values, t: Thresholds) -> MatrixWork | None:
    """The FP32 or FP64 work that looks like a matrix product: at least ``matrix_fp_pct`` % of
    that precision's peak, ``matrix_fma_share`` of its operations FMAs, an intensity past the
    DRAM ridge (compute-shaped, not a stream), and tiles in shared memory. The busier
    precision when both qualify."""
    if roofline is None or not roofline.points:  # no point of either precision: nothing to
        return None  # weigh (the shared memory is not read)
    found = []
    # a matrix product stages its tiles in shared memory; FMA chains, RNG and elementwise
    # math (also FMA-heavy and past the ridge) do not
    static, dynamic = values.num(n.SHARED_STATIC), values.num(n.SHARED_DYNAMIC)
    if not (static or 0.0) + (dynamic or 0.0) > 0:  # the known ones' sum (finite numbers)
        return None  # no tiles staged: no precision's work is a matrix product
    for precision, (key, fma_rate, others) in _MATRIX_OPS.items():
        point = roofline.point(key)
        fma = values.num(fma_rate)
        if point is None or point.pct_of_peak is None or fma is None or point.intensity is None:
            continue
        ops = 2.0 * fma + sum(v for o in others if (v := values.num(o)) is not None)
        ridge = next((c.ridge_intensity for c in point.ceilings if c.level == "dram"), None)
        if ops <= 0 or ridge is None:
            continue
        work = MatrixWork(precision, point.pct_of_peak, 2.0 * fma / ops, point.intensity, ridge)
        if (
            work.pct_of_peak >= t.matrix_fp_pct
            and work.fma_share >= t.matrix_fma_share
            and work.intensity >= work.ridge
        ):
            found.append(work)
    return max(found, key=lambda w: w.pct_of_peak) if found else None
