"""Which ncu metrics make up the roofline, per precision and per memory level.

The formulas follow Nsight Compute's own roofline sections (``SpeedOfLight_RooflineChart`` and
``SpeedOfLight_Hierarchical*RooflineChart``) and its ``SOLFPRoofline`` rule:

* achieved work per cycle = sum of per-cycle thread instruction rates, each FMA counted as two
  operations (a packed half FMA as four), times the SM sub-partition clock;
* peak work = the FMA peak per cycle (times its operation count) times the SM clock;
* traffic per memory level is the level's bytes per second; its ceiling is the level's peak bytes
  per cycle times that level's clock.

No number here depends on a GPU model: every ceiling is read from the report.
"""

from __future__ import annotations

from typing import NamedTuple

SMSP_CLOCK = "smsp__cycles_elapsed.avg.per_second"
SM_CLOCK = "sm__cycles_elapsed.avg.per_second"


class Term(NamedTuple):
    """``factor`` operations per unit of ``metric``."""

    metric: str
    factor: float = 1.0


class TensorType(NamedTuple):
    """One tensor-core input type: its achieved ops per cycle and its dense peak (first present)."""

    key: str
    achieved: str
    peaks: tuple[str, ...]


class PrecisionSpec(NamedTuple):
    key: str
    title: str
    achieved: tuple[Term, ...] = ()
    peak: Term | None = None
    clock: str = SMSP_CLOCK
    peak_clock: str = SM_CLOCK
    tensor_types: tuple[TensorType, ...] = ()


class LevelSpec(NamedTuple):
    """A memory level of the hierarchical roofline."""

    key: str
    title: str
    traffic: str
    peak_per_cycle: str
    clock: str


def _thread_rate(op: str) -> str:
    return f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed"


def _thread_peak(op: str) -> str:
    return f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum.peak_sustained"


def _tensor_src(kind: str, stat: str) -> str:
    return f"sm__ops_path_tensor_src_{kind}.sum.{stat}"


def _tensor_op(op: str, kind: str) -> str:
    return f"sm__ops_path_tensor_op_{op}_src_{kind}_sparsity_off.sum.peak_sustained"


def _cuda_core_spec(key: str, title: str, op_prefix: str, ops: float = 1.0) -> PrecisionSpec:
    """A CUDA-core precision: its add, mul and fma instructions (``op_prefix`` ``d``, ``f``,
    ``h``), each counting ``ops`` operations and an fma twice that."""
    return PrecisionSpec(
        key,
        title,
        achieved=(
            Term(_thread_rate(f"{op_prefix}add"), ops),
            Term(_thread_rate(f"{op_prefix}mul"), ops),
            Term(_thread_rate(f"{op_prefix}fma"), 2 * ops),
        ),
        peak=Term(_thread_peak(f"{op_prefix}fma"), 2 * ops),
    )


FP64 = _cuda_core_spec("fp64", "FP64", "d")
FP32 = _cuda_core_spec("fp32", "FP32", "f")
# Half instructions are packed pairs: NCU counts HADD2/HMUL2 as 2 operations, HFMA2 as 4.
FP16 = _cuda_core_spec("fp16", "FP16/BF16", "h", ops=2)
# Dense peaks: Hopper's warpgroup MMA first, then the warp-level MMA. The source-type peaks of
# fp16/bf16/tf32 include structured sparsity (twice the dense rate), so they are not used.
TENSOR = PrecisionSpec(
    "tensor",
    "Tensor",
    clock=SM_CLOCK,
    tensor_types=(
        TensorType(
            "fp16",
            _tensor_src("fp16", "per_cycle_elapsed"),
            (
                _tensor_op("hgmma", "fp16"),
                _tensor_op("hmma", "fp16_dst_fp32"),
            ),
        ),
        TensorType(
            "bf16",
            _tensor_src("bf16_dst_fp32", "per_cycle_elapsed"),
            (
                _tensor_op("hgmma", "bf16_dst_fp32"),
                _tensor_op("hmma", "bf16_dst_fp32"),
            ),
        ),
        TensorType(
            "tf32",
            _tensor_src("tf32_dst_fp32", "per_cycle_elapsed"),
            (
                _tensor_op("hgmma", "tf32_dst_fp32"),
                _tensor_op("hmma", "tf32_dst_fp32"),
            ),
        ),
        TensorType(
            "fp8",
            _tensor_src("fp8_sparsity_off", "per_cycle_elapsed"),
            (_tensor_src("fp8_sparsity_off", "peak_sustained"),),
        ),
        TensorType(
            "fp64",
            _tensor_src("fp64", "per_cycle_elapsed"),
            (_tensor_src("fp64", "peak_sustained"),),
        ),
    ),
)

PRECISIONS: tuple[PrecisionSpec, ...] = (FP64, FP32, FP16, TENSOR)
PRECISION_KEYS: tuple[str, ...] = tuple(p.key for p in PRECISIONS)
PRECISION_TITLES: dict[str, str] = {p.key: p.title for p in PRECISIONS}

DRAM = LevelSpec(
    "dram",
    "DRAM",
    traffic="dram__bytes.sum.per_second",
    peak_per_cycle="dram__bytes.sum.peak_sustained",
    clock="dram__cycles_elapsed.avg.per_second",
)
L2 = LevelSpec(
    "l2",
    "L2",
    traffic="derived__lts__lts2xbar_bytes.sum.per_second",
    peak_per_cycle="derived__lts__lts2xbar_bytes.sum.peak_sustained",
    clock="lts__cycles_elapsed.avg.per_second",
)
L1 = LevelSpec(
    "l1",
    "L1",
    traffic="derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second",
    peak_per_cycle="derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained",
    clock="l1tex__cycles_elapsed.avg.per_second",
)
LEVELS: tuple[LevelSpec, ...] = (DRAM, L2, L1)

ROOFLINE_SECTIONS = ("SpeedOfLight_RooflineChart",)


def roofline_metric_names() -> tuple[str, ...]:
    """Every metric the roofline reads, without duplicates."""
    names: dict[str, None] = {}
    for spec in PRECISIONS:
        names.setdefault(spec.clock, None)
        names.setdefault(spec.peak_clock, None)
        for term in spec.achieved:
            names.setdefault(term.metric, None)
        if spec.peak is not None:
            names.setdefault(spec.peak.metric, None)
        for tt in spec.tensor_types:
            names.setdefault(tt.achieved, None)
            for peak in tt.peaks:
                names.setdefault(peak, None)
    for level in LEVELS:
        for name in (level.traffic, level.peak_per_cycle, level.clock):
            names.setdefault(name, None)
    return tuple(names)


ROOFLINE_METRICS: tuple[str, ...] = roofline_metric_names()
