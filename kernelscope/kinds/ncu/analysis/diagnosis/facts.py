"""The derived quantities every check needs, computed once per kernel from its metrics."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from kernelscope.core.kept import kept
from kernelscope.kinds.ncu.analysis.diagnosis import derived as d
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.atomics import atomic_line
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import Evidence, ev
from kernelscope.kinds.ncu.analysis.diagnosis.matrix import MatrixWork, matrix_work
from kernelscope.kinds.ncu.analysis.diagnosis.shared_facts import (
    READ_AT_LAUNCH,
    Readings,
    shared_facts,
)
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS, Thresholds
from kernelscope.kinds.ncu.analysis.diagnosis.values import Values, share
from kernelscope.kinds.ncu.analysis.roofline.model import Roofline
from kernelscope.kinds.ncu.model.model import SourceHotspots


@dataclass(frozen=True)
class Facts:
    """What the checks read of one kernel. The values derived from the fields (the grid's fit,
    the leading stall, …) are worked out on first use and kept: several checks read each."""

    # launch
    duration_ns: float | None
    grid: float | None
    block: float | None
    sm_count: float | None
    waves: float | None
    # Speed Of Light
    sm: float | None
    mem: float | None
    dram: float | None
    l1: float | None
    l2: float | None
    # occupancy
    theoretical: float | None
    achieved: float | None
    limits: dict[str, float]
    # memory path
    l2_hit: float | None
    ld_bytes_per_sector: float | None
    st_bytes_per_sector: float | None
    excessive_share: float | None
    conflict_share: float | None
    local_share: float | None
    spill_instructions: float | None
    spill_evidence: tuple[str, float, str] | None
    """``derived.LocalMemory.spill_evidence``: why the local traffic is register spills."""
    # compute
    busiest_pipe: tuple[str, str, float] | None
    """(label, ncu metric, % of peak) of the busiest FMA/FP64/tensor pipe."""
    busiest_other: tuple[str, str, float] | None
    threads_per_inst: float | None
    ideal_threads: float | None
    fp16_pct: float | None
    fp16_fma_share: float | None
    tensor_pct: float | None
    # scheduler
    issue_active: float | None
    latency: float | None
    stall_shares: dict[str, float]
    unreliable: tuple[str, ...] = ()
    """Percent-of-peak metrics above ``Thresholds.pct_ceiling``: set aside as noise."""
    # atomics
    atomic_slice_max: float | None = None
    """The busiest L2 slice's atomic unit, % of its cycles."""
    atomic_slice_avg: float | None = None
    atomic_requests: float | None = None
    """Global atomic + reduction L1 requests (MemoryWorkloadAnalysis_Tables)."""
    atomic_request_share: float | None = None
    """Those requests over all global L1 requests (loads, stores, atomics, reductions)."""
    atomic_line: tuple[str, float, str] | None = None
    """(``file:line``, % of samples, what it is) of the hottest source line doing atomics,
    when source counters were collected."""
    # occupancy by design
    register_share: float | None = None
    """Registers the resident blocks hold, share of the SM's register file."""
    shared_share: float | None = None
    """Shared memory the resident blocks hold, share of the SM's shared memory."""
    tensor_pipe: tuple[str, float] | None = None
    """(metric read, % of peak) of the tensor pipe, ``_active`` or else ``_elapsed`` form."""
    nan_metrics: tuple[str, ...] = ()
    """Key metrics the report holds as NaN (NCU stores NaN when profiling a kernel failed)."""
    active_share: float | None = None
    """Share of the elapsed cycles the SMs had work (``derived.active_sm_share``)."""
    compute_capability: tuple[int, int] | None = None
    matrix_work: MatrixWork | None = None
    """FP32 or FP64 work shaped like a matrix product (``_matrix_work``), if any."""
    fp64_rate_ratio: float | None = None
    """FP32 over FP64 FMA peak per cycle: 2 on a data-centre GPU, 64 on a consumer one."""
    pipes: tuple[tuple[str, str, float], ...] = ()
    """(label, metric read, % of peak on the SMs that ran) of every pipe the report holds."""

    @kept
    def sm_active(self) -> float | None:
        """SM throughput read against the SMs that had work (``derived.on_active_sms``)."""
        return d.on_active_sms(self.sm, self.active_share)

    @kept
    def leading_stall(self) -> tuple[str, float] | None:
        """The stall reason holding most of the cycles between issues, when it holds more
        than half of them (``derived.leading_stall``)."""
        return d.leading_stall(self.stall_shares)

    def saturated_unit(self, threshold: float) -> tuple[str, str, float] | None:
        """(what, metric, %) of the busiest unit or pipe at ``threshold`` % or more, read on
        the SMs that ran: SM throughput, memory, DRAM, L1, L2, then every pipe (the first of
        them at the top reading)."""
        busiest = self.busiest_unit
        return busiest if busiest is not None and busiest[2] >= threshold else None

    @kept
    def busiest_unit(self) -> tuple[str, str, float] | None:
        """``saturated_unit`` at any threshold: the first unit or pipe at the top reading
        (the first of the units at or above a threshold at their top is this one)."""
        if (self.sm is None and self.mem is None and self.dram is None and self.l1 is None
                and self.l2 is None and self.busiest_pipe is None and self.busiest_other is None):
            return None  # no unit read (no Speed Of Light, no pipes): none on top
        top: tuple[str, str, float] | None = None
        for what, metric, value in (
            ("SM", n.SM_PCT, self.sm_active),
            ("memory", n.MEM_PCT, self.mem),
            ("DRAM", n.DRAM_PCT, self.dram),
            ("L1/TEX", n.L1_PCT, self.l1),
            ("L2", n.L2_PCT, self.l2),
        ):  # as max(key=...) keeps the first at the top: only a higher reading replaces it
            if value is not None and (top is None or value > top[2]):
                top = (what, metric, value)
        pipe_on_top = False
        for pipe in (self.busiest_pipe, self.busiest_other):
            if pipe is not None and (top is None or pipe[2] > top[2]):
                top, pipe_on_top = pipe, True
        if top is not None and pipe_on_top:  # the pipe's label worded for the one on top
            return f"{top[0]} pipe", top[1], top[2]
        return top

    def low_occupancy(self, t: Thresholds) -> tuple[tuple[str, float], ...]:
        """``derived.low_occupancy_readings`` of the kernel at ``t``, worked out once: the
        occupancy guard rails, the occupancy flag and the classifier each read it."""
        kept = self.__dict__.get("_low_occupancy")
        if kept is not None and kept[0] is t:
            return kept[1]  # type: ignore[no-any-return]
        low = tuple(d.low_occupancy_readings(self.achieved, self.theoretical, t))
        self.__dict__["_low_occupancy"] = (t, low)
        return low

    def low_evidence(self, t: Thresholds) -> tuple[Evidence, ...]:
        """The evidence of each ``low_occupancy`` reading (below ``occupancy_low_pct``), made
        once: the occupancy guard rails and the occupancy flag each cite it."""
        kept = self.__dict__.get("_low_evidence")
        if kept is not None and kept[0] is t:
            return kept[1]  # type: ignore[no-any-return]
        low = tuple(
            ev("occupancy", name, v, "<", t.occupancy_low_pct, "%")
            for name, v in self.low_occupancy(t)
        )
        self.__dict__["_low_evidence"] = (t, low)
        return low

    def idle_words(self, threshold: float) -> str:
        """How the latency side opens, built from the same reading as ``saturated_unit``:
        "Neither compute nor memory is busy" only when no unit or pipe reaches ``threshold``;
        else Speed Of Light's two sides stay under it while the busiest unit does not."""
        busy = self.saturated_unit(threshold)
        if busy is None:
            return "Neither compute nor memory is busy"
        what, _, pct = busy
        return (f"Neither side of Speed Of Light reaches {threshold:.0f}% although the {what} is "
                f"{pct:.0f}% busy")

    @kept
    def divergence_efficiency(self) -> float | None:
        return share(self.threads_per_inst, self.ideal_threads)

    @kept
    def tail_loss(self) -> float | None:
        """Share of the SM time the last wave leaves idle, assuming equal-length blocks;
        None where the SMs' activity shows no tail (``derived.tail_cost``)."""
        return d.tail_cost(self.waves, self.active_share, self.achieved, self.theoretical)

    @kept
    def sector_bytes(self) -> tuple[str, float] | None:
        """The worse of the load/store bytes-used-per-sector ratios, with its metric."""
        loads, stores = self.ld_bytes_per_sector, self.st_bytes_per_sector
        if stores is not None and (loads is None or stores < loads):  # min's choice: ties
            return n.GLOBAL_ST_BYTES_PER_SECTOR, stores  # to the loads, the first
        return None if loads is None else (n.GLOBAL_LD_BYTES_PER_SECTOR, loads)

    def pipes_busy(self, threshold: float) -> bool:
        return self.busiest_pipe is not None and self.busiest_pipe[2] >= threshold

    @property
    def profiling_failed(self) -> bool:
        """NCU stored NaN where the duration and Speed Of Light should be, and nothing else
        stands in for them: the kernel has no measurement to judge."""
        return bool(self.nan_metrics) and self.duration_ns is None and self.sm is None and (
            self.mem is None
        )

    @kept
    def grid_fit(self) -> d.GridFit:
        """The grid against the SMs (``derived.GridFit``): every launch sentence reads it."""
        return d.grid_fit(self.grid, self.sm_count, self.waves, self.limits)

    @kept
    def fills_gpu(self) -> bool | None:
        """False when the grid cannot fill the GPU (fewer blocks than SMs, under a wave)."""
        return d.fills_gpu(self.grid, self.sm_count, self.waves)

    @kept
    def atomic_concentration(self) -> float | None:
        """The busiest slice's atomic activity over the average slice's."""
        if self.atomic_slice_max is None or not self.atomic_slice_avg:
            return None
        return self.atomic_slice_max / self.atomic_slice_avg

    @kept
    def pipes_measured(self) -> bool:
        """Whether any pipe utilisation (math or other) was collected."""
        return self.busiest_pipe is not None or self.busiest_other is not None


def _nan_metrics(values: Values, readings: Readings, read: Sequence[float | None]
                 ) -> tuple[str, ...]:
    """Those of the duration and Speed Of Light's percentages (the first four of
    ``READ_AT_LAUNCH``) the report holds as NaN; ``read``: each one's number (a metric read
    as a number is not NaN, one not held neither: only one held and unread is looked at)."""
    out = []
    get = values.metrics.get
    for at, name, _ in readings:
        if at >= _NAN_CHECKED:
            break
        if read[at] is not None:
            continue
        value = getattr(get(name), "value", None)
        if isinstance(value, float) and math.isnan(value):
            out.append(name)
    return tuple(out)


_NAN_CHECKED = 4
"""The readings looked at for NaN: the duration, SM, memory and DRAM throughput."""


def _fp16(roofline: Roofline | None, values: Values) -> tuple[float | None, float | None]:
    point = roofline.point("fp16") if roofline is not None else None
    if point is None:
        return None, None
    ops = {
        op: values.num(f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed")
        for op in ("hadd", "hmul", "hfma")
    }
    weights = {"hadd": 2.0, "hmul": 2.0, "hfma": 4.0}
    total = sum(weights[k] * v for k, v in ops.items() if v is not None)
    fma = ops["hfma"]
    return point.pct_of_peak, (4.0 * fma / total if fma is not None and total > 0 else None)


def _launch_readings(
    values: Values, readings: Readings, ceiling: float, unreliable: list[str]
) -> list[float | None]:
    """``values.num`` of each of ``READ_AT_LAUNCH``, a percentage above ``ceiling`` read
    as None and named in ``unreliable`` (as ``shared_facts.pct_read``): those the metrics
    may hold (``readings``) read; the others None."""
    num = values.num
    read: list[float | None] = [None] * len(READ_AT_LAUNCH)
    for at, name, checked in readings:
        number = num(name)
        if checked and number is not None and number > ceiling:
            unreliable.append(name)
            number = None
        read[at] = number
    return read


def gather(values: Values, roofline: Roofline | None,
           thresholds: Thresholds = DEFAULT_THRESHOLDS, source: SourceHotspots | None = None
           ) -> Facts:
    """Read and derive everything once; missing metrics become None. ``source`` (the hot
    lines, when source counters were collected) names the line doing atomics. The facts
    of the metrics other than the launch's own readings (``shared_facts``) are worked out
    once for launches holding the same objects of them."""
    shared = shared_facts(values, thresholds)
    unreliable = list(shared.unreliable)
    read = _launch_readings(values, shared.readings, thresholds.pct_ceiling, unreliable)
    fields = shared.fields.copy()  # then the launch's own fields, as Facts(...) takes them
    fields["duration_ns"], fields["sm"], fields["mem"], fields["dram"] = read[:4]
    fields["l1"], fields["l2"], fields["achieved"] = read[4:]
    fields["unreliable"] = tuple(unreliable)
    fields["nan_metrics"] = _nan_metrics(values, shared.readings, read) if None in read[:4] else ()
    fields["atomic_line"] = None if source is None else atomic_line(source)
    fields["fp16_pct"], fields["fp16_fma_share"] = _fp16(roofline, values)
    tensor = roofline.point("tensor") if roofline is not None else None
    tensor_pct = tensor.pct_of_peak if tensor is not None else None
    tensor_pipe = fields["tensor_pipe"]
    if tensor_pipe is not None:
        tensor_pct = max(tensor_pipe[1], tensor_pct or 0.0)
    fields["tensor_pct"] = tensor_pct
    fields["matrix_work"] = matrix_work(roofline, values, thresholds)
    facts: Facts = _new(Facts)  # as Facts(...) of them, the dict handed over whole
    _set(facts, "__dict__", fields)
    return facts


_new = object.__new__
_set = object.__setattr__
