"""The ceilings a kernel report measured, in place of the datasheet's, for the operators of a
joined timeline (``docs/op_efficiency.md``, "Measured ceilings").

Nsight Compute records, for every profiled launch, the device's peak work per cycle of each
tensor-core input type and of the CUDA cores' FMA (the ``peak_sustained`` metrics its roofline
reads), the SM clock the launch ran at, and the DRAM's peak bytes per cycle and clock. A peak
is the peak per cycle × the SM clock, as the roofline section computes it
(``kinds/ncu/analysis/roofline``); over several launches the clock is the launches' mean
weighted by their duration (their cycles over their time), so a single launch's ceiling is
exactly its roofline's.

An operator whose kernels were profiled is set against the ceilings of its own launches; the
other operators against those of every profiled launch of the program on that device. A rate
no launch recorded (a report without the CUDA cores' peaks) keeps the datasheet's, and the
source says which came from where.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

from kernelscope.core.device_peaks import DTYPES, DevicePeaks, normalise
from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport
from kernelscope.kinds.ncu.analysis.roofline import level_bandwidth
from kernelscope.kinds.ncu.analysis.roofline.spec import DRAM, FP32, FP64, SM_CLOCK, TENSOR
from kernelscope.timeline.analysis.op_efficiency import OpEfficiency, OpRow

SM_CLOCKS = (SM_CLOCK, "gpc__cycles_elapsed.avg.per_second")
"""The SM clock: the roofline section's, else the SpeedOfLight section's (its SM
Frequency)."""
MEMORY_CLOCK = "device__attribute_memory_clock_rate"
BUS_WIDTH = "device__attribute_global_memory_bus_width"

_INT8 = ("sm__ops_path_tensor_op_igmma_src_int8_sparsity_off.sum.peak_sustained",
         "sm__ops_path_tensor_op_imma_src_int8_sparsity_off.sum.peak_sustained")
PER_CYCLE: Mapping[str, tuple[tuple[str, float], ...]] = MappingProxyType({
    **{tt.key: tuple((name, 1.0) for name in tt.peaks)
       for tt in TENSOR.tensor_types if tt.key != "fp64"},
    "int8": tuple((name, 1.0) for name in _INT8),
    "fp32": ((FP32.peak.metric, FP32.peak.factor),) if FP32.peak else (),
    "fp64": ((FP64.peak.metric, FP64.peak.factor),) if FP64.peak else (),
})
"""Each dtype's dense peak operations per cycle: the metrics the roofline reads (the first
present), × operations per unit. ``fp64`` and ``fp32`` are the CUDA cores' FMA, as in the
datasheet table; the others the tensor cores (Hopper's warpgroup MMA first)."""


CEILING_METRICS: tuple[str, ...] = tuple(dict.fromkeys((
    *SM_CLOCKS, *(name for names in PER_CYCLE.values() for name, _ in names),
    DRAM.peak_per_cycle, DRAM.clock, MEMORY_CLOCK, BUS_WIDTH)))
"""Every metric a launch's ceilings are read from."""


class _HasNumber(Protocol):
    @property
    def number(self) -> float | None: ...


@dataclass(frozen=True)
class LaunchCeilings:
    """What one profiled launch recorded of the device's ceilings."""

    kernel: str
    """The timeline's name of the kernel (its family's)."""
    report: str
    duration_ns: float
    sm_hz: float | None
    ops_per_cycle: Mapping[str, float]
    dram_bytes_per_s: float | None
    dram_from: str
    """``roofline`` (the DRAM's peak bytes per cycle × its clock) or ``device attributes``
    (2 × memory clock × bus width), or empty when neither was recorded."""


def _number(metrics: Mapping[str, _HasNumber], name: str) -> float | None:
    metric = metrics.get(name)
    value = None if metric is None else metric.number
    return value if value is not None and value > 0 else None


def launch_ceilings(metrics: Mapping[str, _HasNumber], kernel: str, report: str,
                    duration_ns: float) -> LaunchCeilings:
    """The ceilings ``metrics`` (one launch's, every metric) record."""
    clock = next((hz for hz in (_number(metrics, n) for n in SM_CLOCKS) if hz), None)
    per_cycle = {}
    for dtype, names in PER_CYCLE.items():
        found = next(((v, f) for v, f in ((_number(metrics, n), f) for n, f in names) if v),
                     None)
        if found:
            per_cycle[dtype] = found[0] * found[1]
    dram, dram_from = level_bandwidth(metrics, DRAM), "roofline"
    if dram is None:
        mem_khz, width = _number(metrics, MEMORY_CLOCK), _number(metrics, BUS_WIDTH)
        dram = 2 * mem_khz * 1e3 * width / 8 if mem_khz and width else None
        dram_from = "device attributes" if dram else ""
    return LaunchCeilings(kernel, report, duration_ns, clock, MappingProxyType(per_cycle),
                          dram, dram_from)


def _weighted(pairs: Sequence[tuple[float, float]]) -> float | None:
    """The mean of ``(value, weight)`` pairs weighted by ``weight``."""
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total > 0 else None


def measured_peaks(launches: Sequence[LaunchCeilings], device: str,
                   datasheet: DevicePeaks | None) -> DevicePeaks | None:
    """The ceilings of ``launches`` as one device's peaks (see the module docstring); None
    when no launch recorded its SM clock and time, or no memory bandwidth is known."""
    timed = [la for la in launches if la.sm_hz and la.duration_ns > 0]
    clock = _weighted([(la.sm_hz or 0.0, la.duration_ns) for la in timed])
    if clock is None:
        return None
    tflops: dict[str, float] = {}
    for dtype in DTYPES:
        per_cycle = next((la.ops_per_cycle[dtype] for la in timed
                          if dtype in la.ops_per_cycle), None)
        if per_cycle is not None:
            tflops[dtype] = per_cycle * clock / 1e12
    measured = set(tflops)
    memory = _weighted([(la.dram_bytes_per_s, la.duration_ns) for la in timed
                        if la.dram_bytes_per_s])
    if memory is not None:
        measured.add("memory")
    kept = {d: r for d, r in (datasheet.tflops if datasheet else {}).items() if d not in tflops}
    if memory is None and datasheet is None:
        return None
    gbps = memory / 1e9 if memory is not None else (datasheet.memory_gbps if datasheet else 0)
    return DevicePeaks(
        f"{device} (measured by Nsight Compute at {clock / 1e9:.3f} GHz)", "",
        MappingProxyType({**kept, **tflops}),
        round(gbps, 1), _source(timed, clock, tflops, memory, kept, datasheet),
        frozenset(measured))


def _source(timed: Sequence[LaunchCeilings], clock: float, tflops: Mapping[str, float],
            memory: float | None, kept: Mapping[str, float],
            datasheet: DevicePeaks | None) -> str:
    reports = ", ".join(dict.fromkeys(la.report for la in timed))
    launches = f"{len(timed)} launch{'es' if len(timed) != 1 else ''}"
    text = (f"measured by Nsight Compute ({reports}): {', '.join(tflops) or 'no'} peaks per "
            f"cycle × the SM clock of {launches}, {clock / 1e9:.3f} GHz weighted by time")
    if memory is not None:
        via = sorted({la.dram_from for la in timed if la.dram_bytes_per_s})
        text += f"; memory {memory / 1e9:,.0f} GB/s from the {' and '.join(via)}"
    rest = [*kept, *([] if memory is not None else ["memory"])]
    if rest and datasheet is not None:
        text += f"; {', '.join(rest)} from the {datasheet.product} ({datasheet.source})"
    return text


def joined_efficiency(eff: OpEfficiency, reports: Sequence[tuple[Path, AnalyzedReport]],
                      matched: Sequence[tuple[int, int, str, float | None]]) -> OpEfficiency:
    """``eff`` against the ceilings of each matched launch ``(report index, kernel id,
    timeline kernel name, duration)`` whose report ran on the timeline's device (the first
    report's device when the timeline names none); unchanged without shapes or such a
    launch. The ceilings are read from the kernels' summaries: the join opens its reports
    with ``CEILING_METRICS`` in the list pass (``opener.open_join``), so no launch is read
    twice."""
    if not eff.available or not matched:
        return eff
    device = eff.device or reports[matched[0][0]][1].report.device.name
    launches = []
    for index, kernel_id, name, duration in matched:
        path, analysed = reports[index]
        if normalise(analysed.report.device.name) != normalise(device):
            continue
        metrics = analysed.kernel(kernel_id).summary.metrics  # read with CEILING_METRICS
        launches.append(launch_ceilings(metrics, name, path.name, duration or 0.0))
    return with_measured_peaks(eff, launches, device)


def with_measured_peaks(eff: OpEfficiency, launches: Sequence[LaunchCeilings],
                        device: str) -> OpEfficiency:
    """``eff`` with each operator set against the measured ceilings of ``device``: its own
    launches', else every launch's; unchanged where no launch gives any."""
    overall = measured_peaks(launches, device, eff.peaks)
    if overall is None:
        return eff
    by_kernel: dict[str, list[LaunchCeilings]] = {}
    for launch in launches:
        by_kernel.setdefault(launch.kernel, []).append(launch)
    rows = [_row_with_peaks(row, by_kernel, device, eff.peaks, overall) for row in eff.rows]
    mfu = [replace(step, peak_tflops=overall.peak_tflops(step.dtype) if step.dtype else None)
           for step in eff.mfu]
    return replace(eff, rows=rows, mfu=mfu, peaks=overall)


def _row_with_peaks(row: OpRow, by_kernel: Mapping[str, Sequence[LaunchCeilings]],
                    device: str, datasheet: DevicePeaks | None,
                    overall: DevicePeaks) -> OpRow:
    own = [la for name, _ in row.kernel_ns for la in by_kernel.get(name, ())]
    peaks = measured_peaks(own, device, datasheet) if own else None
    return replace(row, peaks=peaks or overall)
