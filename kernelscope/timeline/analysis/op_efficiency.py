"""How close each operator runs to the hardware: per operator (name, input shapes, dtype) its
calls, FLOPs and bytes from the shapes (``op_models``), the GPU time of the kernels it owns
(``op_attribution``), the achieved TFLOP/s and GB/s, the device's peak for its dtype
(``core/device_peaks.py``) and the share of it; and the model FLOP utilisation (MFU) of each
step. ``docs/op_efficiency.md`` states every formula.

- ``pct_of_peak``: achieved TFLOP/s over the dtype's peak for a FLOP model; achieved GB/s
  over the memory bandwidth for a bytes-only model.
- ``bound``: ``compute`` when the operator's intensity (FLOPs per byte) reaches the dtype's
  ridge point (peak over bandwidth), else ``memory``; a bytes-only model is ``memory``.
- ``pct_of_roofline``: achieved over the roofline at the operator's intensity
  (min(peak, intensity × bandwidth)).
- MFU of a step: the FLOPs of the modelled calls that start in it (or ``--model-flops``)
  over the step's time × the peak of the dtype that carries most of its FLOPs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kernelscope.core.device_peaks import DevicePeaks, peaks_for

NO_MODEL = "no model"

_KERNEL_DTYPES = (
    ("fp8", re.compile(r"e4m3|e5m2|fp8|f8f8", re.I)),
    ("bf16", re.compile(r"bf16|BFloat16|nv_bfloat16", re.I)),
    ("tf32", re.compile(r"tf32", re.I)),
    ("fp16", re.compile(r"fp16|f16f16|h1688|h16816|s16816gemm_fp16|hgemm|c10::Half|__half\b")),
    ("int8", re.compile(r"i8i8|s8s8|imma|int8", re.I)),
    ("fp64", re.compile(r"dgemm|f64f64|fp64|\bdouble\b", re.I)),
    ("fp32", re.compile(r"sgemm|f32f32_f32f32|\bfloat\b")),
)
_FUNCTOR_ELEMENT = re.compile(r"Functor<\s*(c10::BFloat16|c10::Half|float|double)\b")
"""A PyTorch functor's first template argument, its element type (``FusedAdamMathFunctor<float,
…>``): the kernel's other template arguments (``double`` learning rates) are not its data."""


def dtype_in_kernel_names(names: Iterable[str]) -> str | None:
    """The dtype the kernels' names spell (``sm90_xmma_gemm_bf16bf16_bf16f32…`` and
    ``…<c10::BFloat16>…`` are bf16, ``…<float>…`` fp32), the first found in the order fp8,
    bf16, tf32, fp16, int8, fp64, fp32 (a bf16 kernel that accumulates in float is bf16);
    where the names carry PyTorch functors, only the functors' element types count, in the
    same order; None when none does
    (cuBLAS's ``nvjet_*`` names spell none)."""
    from kernelscope.timeline.analysis.op_models.shapes import PEAK_DTYPE  # only where used

    names = list(names)
    functors = {PEAK_DTYPE[found.group(1)] for found in map(_FUNCTOR_ELEMENT.search, names)
                if found is not None}
    if functors:
        return next(dtype for dtype, _ in _KERNEL_DTYPES if dtype in functors)
    for dtype, pattern in _KERNEL_DTYPES:
        if any(pattern.search(name) for name in names):
            return dtype
    return None


@dataclass(frozen=True)
class OpRow:
    """One operator with one set of input shapes and one dtype."""

    op: str
    input_shapes: str
    dtype: str | None
    calls: int
    flops: int | None
    bytes: int | None
    gpu_time_ns: int
    kernels: int
    model: str
    """The formula, or ``no model``."""
    peaks: DevicePeaks | None = field(default=None, repr=False)
    kernel_ns: tuple[tuple[str, int], ...] = field(default=(), repr=False)
    """(kernel name, summed time) of the kernels the row's calls own."""
    strides: bool = field(default=False, repr=False)
    """Whether its calls recorded their inputs' strides (Kineto's ``Input Strides``): then a
    broadcast input is counted as its distinct elements, else as all of them."""

    @property
    def modelled(self) -> bool:
        return not self.model.startswith(NO_MODEL)

    @property
    def achieved_tflops(self) -> float | None:
        if self.flops is None or self.gpu_time_ns <= 0:
            return None
        return self.flops / self.gpu_time_ns / 1e3

    @property
    def achieved_gbps(self) -> float | None:
        if self.bytes is None or self.gpu_time_ns <= 0:
            return None
        return self.bytes / self.gpu_time_ns

    @property
    def peak_tflops(self) -> float | None:
        if self.peaks is None or self.dtype is None or self.flops is None:
            return None
        return self.peaks.peak_tflops(self.dtype)

    @property
    def peak_gbps(self) -> float | None:
        return None if self.peaks is None or not self.modelled else self.peaks.memory_gbps

    @property
    def intensity(self) -> float | None:
        """FLOPs per byte."""
        if self.flops is None or not self.bytes:
            return None
        return self.flops / self.bytes

    @property
    def bound(self) -> str | None:
        if not self.modelled:
            return None
        if self.flops is None:
            return "memory"
        ridge = None if self.peaks is None or self.dtype is None else self.peaks.ridge(self.dtype)
        if ridge is None or self.intensity is None:
            return None
        return "compute" if self.intensity >= ridge else "memory"

    @property
    def bytes_overcounted(self) -> bool:
        """A bytes-only row whose counted bytes would move faster than the device's memory
        bandwidth: no kernel can, so some inputs were one tensor given twice (``add(x, x)``;
        the profiler records shapes, not which tensor) or came from the L2 cache (an
        optimizer's ``_foreach_add_`` of the list the previous ``_foreach_sqrt`` wrote), or,
        where the calls recorded no strides (``strides`` false), an input was a broadcast
        view (``x.expand(…)``: one element read for many; with strides it is counted as
        read once); the bytes are an upper bound on the DRAM's."""
        achieved, peak = self.achieved_gbps, self.peak_gbps
        return (self.flops is None and achieved is not None and peak is not None
                and peak > 0 and achieved > peak)

    @property
    def pct_of_peak(self) -> float | None:
        """None where the counted bytes are known to be too many (``bytes_overcounted``)."""
        if self.flops is not None:
            achieved, peak = self.achieved_tflops, self.peak_tflops
        elif self.bytes_overcounted:
            return None
        else:
            achieved, peak = self.achieved_gbps, self.peak_gbps
        return None if achieved is None or not peak else 100 * achieved / peak

    @property
    def pct_of_roofline(self) -> float | None:
        achieved, peak, intensity = self.achieved_tflops, self.peak_tflops, self.intensity
        if achieved is None or not peak or intensity is None or self.peaks is None:
            return self.pct_of_peak if self.flops is None else None
        roof = min(peak, intensity * self.peaks.memory_gbps / 1e3)
        return 100 * achieved / roof

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op, "input_shapes": self.input_shapes, "dtype": self.dtype,
            "calls": self.calls, "flops": self.flops, "bytes": self.bytes,
            "gpu_time_ns": self.gpu_time_ns, "kernels": self.kernels, "model": self.model,
            "achieved_tflops": self.achieved_tflops, "achieved_gbps": self.achieved_gbps,
            "peak_tflops": self.peak_tflops, "peak_gbps": self.peak_gbps,
            "pct_of_peak": self.pct_of_peak, "pct_of_roofline": self.pct_of_roofline,
            "intensity": self.intensity, "bound": self.bound,
            "bytes_upper_bound": self.bytes_overcounted,
            "peak_source": None if self.peaks is None or not self.modelled
            else self.peaks.product,
        }


@dataclass(frozen=True)
class StepMfu:
    """The model FLOP utilisation of one step (``step`` None: the whole trace)."""

    step: int | None
    start_ns: int
    end_ns: int
    model_flops: float
    source: str
    """``operators`` (the modelled calls' FLOPs) or ``--model-flops``."""
    dtype: str | None
    peak_tflops: float | None

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns

    @property
    def mfu_pct(self) -> float | None:
        if not self.peak_tflops or self.duration_ns <= 0:
            return None
        return 100 * self.model_flops / (self.duration_ns * 1e-9 * self.peak_tflops * 1e12)

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "start_ns": self.start_ns, "end_ns": self.end_ns,
                "duration_ns": self.duration_ns, "model_flops": self.model_flops,
                "source": self.source, "dtype": self.dtype, "peak_tflops": self.peak_tflops,
                "mfu_pct": self.mfu_pct}


@dataclass
class OpEfficiency:
    """Every operator's efficiency in one trace, and MFU per step."""

    rows: list[OpRow]
    mfu: list[StepMfu]
    device: str | None
    peaks: DevicePeaks | None
    shapes: str
    """Where the shapes come from (``Kineto Input Dims``, ``NVTX ranges``), or why there are
    none."""
    available: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "available": self.available, "shapes": self.shapes, "device": self.device,
            "device_peaks": None if self.peaks is None else {
                "product": self.peaks.product, "source": self.peaks.source,
                "memory_gbps": self.peaks.memory_gbps, "tflops": dict(self.peaks.tflops)},
            "op_efficiency": [row.to_dict() for row in self.rows],
            "mfu": [step.to_dict() for step in self.mfu],
        }


def unavailable(reason: str, device: str | None = None) -> OpEfficiency:
    """A trace without shapes: no rows, and the reason."""
    return OpEfficiency([], [], device, peaks_for(device), reason, available=False)


def step_mfu(rows_by_start: Sequence[tuple[int, int, str | None]],
             steps: Sequence[tuple[int | None, int, int]], peaks: DevicePeaks | None,
             model_flops: float | None = None) -> list[StepMfu]:
    """MFU of each ``(step, start, end)`` from the modelled calls ``(start, flops, dtype)``
    that start inside it (or ``model_flops`` per step when given)."""
    found = []
    for step, start, end in steps:
        inside = [(flops, dtype) for at, flops, dtype in rows_by_start if start <= at < end]
        by_dtype: dict[str, int] = {}
        for flops, dtype in inside:
            if dtype is not None:
                by_dtype[dtype] = by_dtype.get(dtype, 0) + flops
        dtype = max(by_dtype, key=by_dtype.__getitem__) if by_dtype else None
        total: float = sum(flops for flops, _ in inside)
        source = "operators"
        if model_flops is not None:
            total, source = model_flops, "--model-flops"
        peak = None if peaks is None or dtype is None else peaks.peak_tflops(dtype)
        found.append(StepMfu(step, start, end, total, source, dtype, peak))
    return found
