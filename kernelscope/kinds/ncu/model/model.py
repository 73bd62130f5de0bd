"""Plain objects describing one profiled kernel, as the panes and exports need them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from kernelscope.core.kernel_identity import KernelIdentity
from kernelscope.core.memo import Memo
from kernelscope.kinds.ncu.model.metrics import Metric, MetricValue, Series, finite
from kernelscope.kinds.ncu.model.panes import DIM_METRICS, PANES, PaneSpec

if TYPE_CHECKING:  # the listing's reader (and its disassembler) only where one is read
    from kernelscope.kinds.ncu.model.source import KernelSource

RULE_TYPES = {1: "INF", 2: "OPT", 3: "WRN", 4: "ERR"}
SIZE_METRICS = ("launch__grid_size", "launch__block_size")
"""A launch's blocks and threads per block: its shape where the report has no dimensions."""
KNOWN_SECTIONS = frozenset(s for pane in PANES for s in pane.sections)
"""The section identifiers the panes read (a pre-2020 report numbers its own: ``section0``)."""


_SHAPE_METRICS = ((DIM_METRICS[:3], SIZE_METRICS[0]), (DIM_METRICS[3:], SIZE_METRICS[1]))
"""(the grid's dimension metrics, its size metric), then the block's."""


_SHAPE_NAMES = (*DIM_METRICS, *SIZE_METRICS)
_isfinite = math.isfinite
MAX_SHAPES = 4096
_SHAPES: Memo[tuple[Metric | None, ...], tuple[tuple[int, int, int], tuple[int, int, int]]] = (
    Memo(MAX_SHAPES)
)
""":func:`launch_dims` by its metrics (a report's launches repeat a few shapes)."""


def launch_dims(
    metrics: Mapping[str, Metric],
) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The launch's grid and block (x, y, z), from its dimension metrics; a report without
    them (pre-2020 ones hold only ``launch__grid_size`` and ``launch__block_size``) gets
    (size, 1, 1) from the sizes, so a grid of 200 blocks never reads as 1; one with neither
    (a kernel whose profiling failed) gets (0, 0, 0), as NCU prints it. Every reader of
    a kernel (the list pass, the detail) takes its shape from here."""
    key = tuple(map(metrics.get, _SHAPE_NAMES))
    shape = _SHAPES.get(key)
    return shape if shape is not None else _SHAPES.keep(key, _launch_dims(metrics))


def _launch_dims(
    metrics: Mapping[str, Metric],
) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    shapes = []
    for names, size in _SHAPE_METRICS:
        numbers = [finite(m.value) if (m := metrics.get(name)) is not None else None
                   for name in names]
        has_dims = numbers != [None, None, None]
        m = metrics.get(size)
        total = finite(m.value) if m is not None else None
        if not has_dims and total is not None and total >= 1:
            shapes.append((int(total), 1, 1))
        elif not has_dims and total is None:
            shapes.append((0, 0, 0))  # no launch data (profiling failed): NCU prints (0, 0, 0)
        else:  # a missing (or NaN) dimension counts as 1
            x, y, z = (int(v) if v is not None and v >= 1 else 1 for v in numbers)
            shapes.append((x, y, z))
    return shapes[0], shapes[1]

SPEEDUP_TYPES = {1: "local", 2: "global"}


DEVICE_ATTRIBUTES = (
    "device__attribute_display_name",
    "device__attribute_multiprocessor_count",
    "device__attribute_compute_capability_major",
    "device__attribute_compute_capability_minor",
    "device__attribute_clock_rate",
    "device__attribute_memory_clock_rate",
    "device__attribute_global_memory_bus_width",
    "device__attribute_l2_cache_size",
    "device__attribute_max_shared_memory_per_multiprocessor",
    "device__attribute_max_registers_per_multiprocessor",
    "device__attribute_max_warps_per_multiprocessor",
)
"""The device attributes ``NcuReport.device`` reads from a report's first kernel."""


@dataclass(frozen=True)
class DeviceInfo:
    name: str
    compute_capability: str
    sm_count: int | None
    attributes: dict[str, MetricValue] = field(default_factory=dict)


class RuleResult(NamedTuple):
    """One message of an NCU rule, as the ncu CLI's details page prints it."""

    rule: str
    name: str
    section: str
    type: str
    title: str
    message: str
    speedup_type: str | None = None
    speedup_pct: float | None = None


@dataclass(frozen=True)
class SourceHotspots:
    """The hottest source lines and SASS instructions of a kernel."""

    total_samples: int
    total_inst_executed: int
    lines: tuple[SourceLine, ...]
    sass: tuple[SassLine, ...]
    has_line_info: bool


@dataclass(frozen=True)
class SourceLine:
    file: str
    line: int
    text: str
    samples: int
    inst_executed: int


@dataclass(frozen=True)
class SassLine:
    pc: int
    sass: str
    file: str
    line: int
    samples: int
    inst_executed: int
    offset: int = 0
    """The instruction's offset from the kernel's first one (how it is named without text)."""


@dataclass
class KernelSummary:
    """What the kernel list knows of a kernel: its identity, its row (the key frame's line:
    the identity's columns and the key metrics), plus the metrics diagnosis needs."""

    identity: KernelIdentity
    row: dict[str, object]
    metrics: dict[str, Metric]
    rules: Sequence[RuleResult]
    """NCU's rule results, one per message (a list summary's are read when first asked for:
    ``rule_results.RuleResults``)."""
    sections: frozenset[str]
    unmeasured: str | None = None
    """Why the kernel has no measurement at all (profiling failed, nothing collected), as one
    sentence; None for a measured kernel. Such a kernel is left out of totals and shares."""
    nvtx: str | None = None
    """The innermost NVTX range open around the launch (``ncu --nvtx``), else None."""

    @property
    def id(self) -> int:
        return self.identity.id

    @property
    def measured(self) -> bool:
        return self.unmeasured is None

    @property
    def duration_ns(self) -> float | None:
        """The launch's duration in ns: None when not measured or not a finite number."""
        if self.unmeasured is not None:  # not measured
            return None
        value = self.row.get("duration_ns")
        if type(value) is float:  # the row's (finite) number: the lines below, at once
            return value if value >= 0 and _isfinite(value) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return float(value) if math.isfinite(value) and value >= 0 else None

    @property
    def name(self) -> str:
        """The kernel's name by the one rule (``KernelIdentity.name``); ``identity.mangled``
        is the mangled one."""
        return self.identity.name


@dataclass
class KernelDetail:
    """Everything the panes show for one kernel: plain values, no ncu_report objects."""

    id: int
    range_idx: int
    action_idx: int
    name: str
    demangled: str
    mangled: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    metrics: dict[str, Metric]
    sections: dict[str, str]
    section_metrics: dict[str, tuple[str, ...]]
    breakdowns: dict[str, tuple[str, ...]]
    stall_reasons: tuple[str, ...]
    curves: dict[str, Series]
    rules: tuple[RuleResult, ...]
    source: SourceHotspots | None = None
    listing: KernelSource | None = None
    """The whole source and SASS with per-instruction metrics (read for the Source page)."""
    unmeasured: str | None = None
    """As ``KernelSummary.unmeasured``: why the kernel has no measurement, else None."""
    pid: int | None = None
    """The id of the process that ran the kernel (None when the report does not say)."""
    process: str = ""
    """That process's executable name, as ncu's "Process Name" column prints it."""
    all_metrics: dict[str, Metric] | None = None
    """Every metric stored for the kernel, when the pass that read it was asked for them
    (exports with ``--all-metrics``); None otherwise."""

    @property
    def identity(self) -> KernelIdentity:
        """The kernel's typed identity, as its list summary has it."""
        return KernelIdentity(
            id=self.id, function=self.name, demangled=self.demangled, mangled=self.mangled,
            grid=self.grid, block=self.block, range_idx=self.range_idx,
            action_idx=self.action_idx, pid=self.pid, process=self.process,
        )

    @property
    def measured(self) -> bool:
        return self.unmeasured is None

    def metric(self, name: str) -> Metric | None:
        return self.metrics.get(name)

    def number(self, name: str) -> float | None:
        """The metric's value as a float, None when absent or not numeric."""
        m = self.metrics.get(name)
        return None if m is None else m.number

    def has_section(self, identifier: str) -> bool:
        return identifier in self.sections

    def missing_sections(self, pane: PaneSpec) -> tuple[str, ...]:
        """The ncu sections ``pane`` needs that the report did not collect. A report whose
        sections have none of the known identifiers (pre-2020: ``section0``, or none) lacks
        nothing a pane shows when it holds that pane's own metrics, and neither does one that
        holds a metric only the pane's sections bring (``PaneSpec.stand_ins``)."""
        missing = tuple(s for s in pane.sections if s not in self.sections)
        if (missing and not KNOWN_SECTIONS & self.sections.keys()
                and any(name in self.metrics for name in pane.metrics)):
            return ()
        if missing and any(self.number(name) is not None for name in pane.stand_ins):
            return ()  # a metrics-only report (ncu --metrics) holds the section's metrics
        return missing

    @property
    def duration_ns(self) -> float | None:
        return self.number("gpu__time_duration.sum")
