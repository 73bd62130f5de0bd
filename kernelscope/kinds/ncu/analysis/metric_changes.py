"""The key metrics of each kernel-detail pane, compared between two kernels.

A diff shows, pane by pane, the few numbers that say whether the change worked (the ones the
method reads at that step): ``DIFF_METRICS`` lists them with the pane they belong to. The list
pass reads them (``DIFF_METRICS_NAMES`` as ``extra_metrics``), so a diff needs no kernel's
detail, and the TUI's baseline compares two details with the same function.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from kernelscope.core.jsonsafe import attributes
from kernelscope.core.kept import fields_at_once
from kernelscope.core.memo import Memo
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.model.metrics import Metric


class _Metric(Protocol):
    @property
    def number(self) -> float | None: ...

    @property
    def unit(self) -> str: ...


@dataclass(frozen=True)
class DiffMetric:
    """A metric a diff compares: the pane it belongs to, a short label, its ncu name, and
    whether a larger value is better (None: neither, e.g. a launch's shape)."""

    pane: str
    label: str
    name: str
    higher_is_better: bool | None = None


DURATION = "gpu__time_duration.sum"

DIFF_METRICS: tuple[DiffMetric, ...] = (
    DiffMetric("launch", "Grid size (blocks)", "launch__grid_size"),
    DiffMetric("launch", "Block size (threads)", "launch__block_size"),
    DiffMetric("launch", "Registers per thread", "launch__registers_per_thread"),
    DiffMetric("launch", "Static shared memory per block", "launch__shared_mem_per_block_static"),
    DiffMetric("launch", "Dynamic shared memory per block",
               "launch__shared_mem_per_block_dynamic"),
    DiffMetric("launch", "Waves per SM", "launch__waves_per_multiprocessor"),
    DiffMetric("sol", "Duration", DURATION, False),
    DiffMetric("sol", "Compute (SM) throughput",
               "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
    DiffMetric("sol", "Memory throughput",
               "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
    DiffMetric("sol", "L1/TEX throughput", "l1tex__throughput.avg.pct_of_peak_sustained_active"),
    DiffMetric("sol", "L2 throughput", "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
    DiffMetric("sol", "DRAM throughput", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
    DiffMetric("sol", "Elapsed cycles", "gpc__cycles_elapsed.max", False),
    DiffMetric("occupancy", "Theoretical occupancy", n.THEORETICAL_OCC, True),
    DiffMetric("occupancy", "Achieved occupancy",
               "sm__warps_active.avg.pct_of_peak_sustained_active", True),
    DiffMetric("occupancy", "Block limit: registers", "launch__occupancy_limit_registers"),
    DiffMetric("occupancy", "Block limit: shared memory", "launch__occupancy_limit_shared_mem"),
    DiffMetric("occupancy", "Block limit: warps", "launch__occupancy_limit_warps"),
    DiffMetric("memory", "DRAM bytes read", "dram__bytes_read.sum", False),
    DiffMetric("memory", "DRAM bytes written", "dram__bytes_write.sum", False),
    DiffMetric("memory", "DRAM bandwidth", "dram__bytes.sum.per_second"),
    DiffMetric("memory", "L1/TEX hit rate", "l1tex__t_sector_hit_rate.pct", True),
    DiffMetric("memory", "L2 hit rate", "lts__t_sector_hit_rate.pct", True),
    DiffMetric("memory", "Shared bank conflicts",
               "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", False),
    DiffMetric("memory", "Shared wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
               False),
    DiffMetric("memory", "Global load sectors",
               "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", False),
    DiffMetric("memory", "Spilling instructions", n.SPILL_INSTRUCTIONS, False),
    DiffMetric("stalls", "Issue slots busy", "smsp__issue_active.avg.pct_of_peak_sustained_active",
               True),
    DiffMetric("stalls", "Eligible warps per cycle", "smsp__warps_eligible.avg.per_cycle_active",
               True),
    DiffMetric("stalls", "Active warps per scheduler", "smsp__warps_active.avg.per_cycle_active"),
    DiffMetric("stalls", "Warp cycles per issued instruction", n.WARP_LATENCY, False),
    DiffMetric("source", "Instructions executed", "smsp__inst_executed.sum", False),
)
"""Every metric a diff compares, in pane order (the panes of ``kinds.ncu.model.panes``)."""

DIFF_METRIC_NAMES: tuple[str, ...] = tuple(dict.fromkeys(m.name for m in DIFF_METRICS))
"""Their ncu names: what the list pass reads beside the diagnosis's metrics."""


@fields_at_once  # a diff of two 8,676-launch reports makes ~35,000
@dataclass(frozen=True)
class MetricChange:
    """One metric of two kernels: its values before and after (None: not in that report)."""

    pane: str
    label: str
    name: str
    unit: str
    before: float | None
    after: float | None
    higher_is_better: bool | None = None

    @property
    def change_pct(self) -> float | None:
        """(after − before) / before, in %; None without both values or with before 0."""
        return change_pct(self.before, self.after)

    @property
    def is_percentage(self) -> bool:
        """A percentage (``%``: a throughput, a hit rate, an occupancy): it changes in
        percentage points."""
        return self.unit == "%"

    @property
    def change_points(self) -> float | None:
        """after − before, in percentage points (percentages); None without both values."""
        if not self.is_percentage or self.before is None or self.after is None:
            return None
        return self.after - self.before

    @property
    def moved(self) -> float | None:
        """How far it moved: percentage points for a percentage, else the relative change in
        % (both in magnitude); what ranks the metrics that moved the most."""
        value = self.change_points if self.is_percentage else self.change_pct
        return None if value is None else abs(value)

    @property
    def verdict(self) -> str:
        """``better``, ``worse``, ``same`` or ``""`` (no direction, or a value missing)."""
        if self.before is None or self.after is None or self.higher_is_better is None:
            return ""
        if self.after == self.before:
            return "same"
        return "better" if (self.after > self.before) == self.higher_is_better else "worse"

    def to_dict(self) -> dict[str, Any]:
        return {"before": self.before, "after": self.after, "unit": self.unit}


@dataclass(frozen=True)
class TimeChange:
    """A group's summed time and count before and after (a kernel family, an NVTX range, a
    kind of copy, a gap cause); a side is None (time) and 0 (count) where the group is absent."""

    name: str
    before_ns: float | None
    after_ns: float | None
    before_count: int
    after_count: int
    kernels: tuple[str, ...] = ()
    """A kernel family's demangled name on each side that has it (one when they agree): what
    a screen names it by, through the short names of the table's kernels."""

    @property
    def change_pct(self) -> float | None:
        return change_pct(self.before_ns, self.after_ns)

    @property
    def status(self) -> str:
        """``new`` (only after), ``gone`` (only before), else ``""``."""
        if not self.before_count and self.after_count:
            return "new"
        if self.before_count and not self.after_count:
            return "gone"
        return ""

    @property
    def per_instance_change_pct(self) -> float | None:
        """The change of the average time per instance, in %."""
        return change_pct(self.before_avg_ns, self.after_avg_ns)

    @property
    def counts_differ(self) -> bool:
        """Both sides have it, a different number of times: totals compare runs of different
        lengths, so its time compares per instance."""
        return bool(self.before_count and self.after_count
                    and self.before_count != self.after_count)

    @property
    def before_avg_ns(self) -> float | None:
        return _average(self.before_ns, self.before_count)

    @property
    def after_avg_ns(self) -> float | None:
        return _average(self.after_ns, self.after_count)

    def to_dict(self) -> dict[str, Any]:
        return {
            **attributes(self, "name", "before_ns", "after_ns", "change_pct", "before_count",
                         "after_count", "before_avg_ns", "after_avg_ns",
                         "per_instance_change_pct"),
            "status": self.status or None,
        }


def _average(total: float | None, count: int) -> float | None:
    return total / count if total is not None and count else None


def change_pct(before: float | None, after: float | None) -> float | None:
    """The relative change from ``before`` to ``after`` in % (None when it cannot be said)."""
    if before is None or after is None or before == 0:
        return None
    value = 100.0 * (after - before) / before
    return value if math.isfinite(value) else None


def speedup(before_ns: float | None, after_ns: float | None) -> float | None:
    """before / after: above 1 when the after kernel is faster."""
    if before_ns is None or after_ns is None or after_ns <= 0:
        return None
    value = before_ns / after_ns
    return value if math.isfinite(value) else None


def metric_changes(
    before: Mapping[str, _Metric], after: Mapping[str, _Metric], pane: str | None = None
) -> tuple[MetricChange, ...]:
    """The diff metrics (of ``pane``, or all) that either kernel has, in pane order.

    A change is a function of its spec and the two metrics alone: between two ``Metric``
    objects (immutable) it is kept by the identities of the two, held with it. The reader
    hands out one object for each launch that stores the same bytes, so the pairs of a
    diff share a few launch shapes and durations: most changes are found made."""
    out = []
    old_of, new_of = before.get, after.get
    for spec in _specs_held(before, after, pane):
        name = spec[3]
        old, new = old_of(name), new_of(name)
        if old is None and new is None:  # most reports hold a few of them
            continue
        key = (spec[0], id(old), id(new))
        kept = _CHANGES.get(key)
        if kept is not None:
            change = kept[2]
        else:
            change = change_of(spec, old, new)
            if (old is None or type(old) is Metric) and (new is None or type(new) is Metric):
                _CHANGES.keep(key, (old, new, change))
        if change is not None:
            out.append(change)
    return tuple(out)


Spec = tuple[int, str, str, str, bool | None]
"""A ``DIFF_METRICS`` entry as a plain tuple: (its index, pane, label, name,
higher_is_better), read without an attribute look-up a field."""

_SPECS: tuple[Spec, ...] = tuple(
    (i, m.pane, m.label, m.name, m.higher_is_better) for i, m in enumerate(DIFF_METRICS)
)
_SPECS_OF_PANE: dict[str, tuple[Spec, ...]] = {
    pane: tuple(spec for spec in _SPECS if spec[1] == pane)
    for pane in dict.fromkeys(m.pane for m in DIFF_METRICS)
}
"""``_SPECS`` of each pane, in their order."""

_CHANGES: Memo[tuple[int, int, int], tuple[_Metric | None, _Metric | None,
                                           MetricChange | None]] = Memo(4096)
"""``change_of`` by the spec's index and the identities of the two metrics, held with them
(so that their ids are not given to other objects while the entry lives)."""


def change_of(spec: Spec, old_metric: _Metric | None, new_metric: _Metric | None
              ) -> MetricChange | None:
    """The change of one spec's metric between the two kernels (None: neither has a
    number), worked out."""
    old = new = None
    old_unit = new_unit = ""
    if old_metric is not None:
        old, old_unit = _number(old_metric), old_metric.unit
    if new_metric is not None:
        new, new_unit = _number(new_metric), new_metric.unit
    if old is None and new is None:
        return None
    _, pane, label, name, better = spec
    return MetricChange(pane, label, name, new_unit or old_unit, old, new, better)


def _number(metric: _Metric) -> float | None:
    """The metric's finite number, else None."""
    number = metric.number
    return number if number is not None and _isfinite(number) else None


_isfinite = math.isfinite


def _specs_held(
    before: Mapping[str, _Metric], after: Mapping[str, _Metric], pane: str | None
) -> tuple[Spec, ...]:
    """``_SPECS`` of ``pane`` (or all) whose metric either side may hold: for two dicts, those
    one of their names is, kept by the names (a report's launches repeat a few lists of
    them); for anything else, all."""
    specs = _SPECS if pane is None else _SPECS_OF_PANE.get(pane, ())
    if type(before) is not dict or type(after) is not dict:
        return specs
    key = (pane, tuple(before), tuple(after))
    held = _HELD.get(key)
    if held is None:
        names = before.keys() | after.keys()
        held = _HELD.keep(key, tuple(spec for spec in specs if spec[3] in names))
    return held


_HELD: Memo[tuple[str | None, tuple[str, ...], tuple[str, ...]], tuple[Spec, ...]] = Memo(64)
"""``_specs_held`` of two dicts by the pane and their names."""
