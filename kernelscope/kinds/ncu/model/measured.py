"""Whether a kernel has any measurement at all, and why not.

Two kinds of kernel carry none: one whose profiling failed (NCU stores NaN for every metric,
e.g. when a replay pass could not run), and one from a report that collected only launch
settings (a pre-2020 report taken with ``--metrics`` for occupancy alone, or one whose old
metric names have no current counterpart). Such a kernel is kept out of the report's total
time and every share, shows "not measured" instead of numbers, and is labelled
``undetermined`` by the diagnosis.
"""

from __future__ import annotations

from collections.abc import Mapping

from kernelscope.kinds.ncu.model.metrics import Metric, finite

# What NCU knows without measuring: the launch configuration, the device, the profiler's own
# bookkeeping, and the occupancy limits computed from them.
STATIC_PREFIXES = ("launch__", "device__", "profiler__", "numa__", "nvlink__", "breakdown:")
STATIC_METRICS = frozenset(
    {
        "sm__maximum_warps_per_active_cycle_pct",
        "sm__maximum_warps_avg_per_active_cycle",
        "smsp__maximum_warps_avg_per_active_cycle",
    }
)

FAILED = (
    "Profiling this kernel failed: NCU stored NaN for every metric it measured, so there is "
    "no time and no throughput to diagnose."
)
NOT_COLLECTED = (
    "The report holds no timing or throughput metric for this kernel (only its launch "
    "settings and occupancy limits), so there is nothing to diagnose."
)


DURATION = "gpu__time_duration.sum"
"""A measured metric every measured kernel holds."""

SHORT = {FAILED: "profiling failed", NOT_COLLECTED: "no measured metrics"}
NOT_MEASURED = "not measured"
"""What lists show in place of a duration for a kernel without measurement."""


def short_reason(reason: str | None) -> str:
    """A few words for a table cell: why the kernel has no measurement ("" when it has)."""
    if reason is None:
        return ""
    return SHORT.get(reason, "no measurement")


def _measured(name: str) -> bool:
    return not name.startswith(STATIC_PREFIXES) and name not in STATIC_METRICS


def unmeasured_reason(metrics: Mapping[str, Metric]) -> str | None:
    """One sentence saying why the kernel has no measurement, or None when it has one (a
    measured metric with a finite number: the duration, when it has one, answers first)."""
    duration = metrics.get(DURATION)
    if duration is not None and type(duration.value) is not str \
            and finite(duration.value) is not None:
        return None
    saw_nan = False
    for name, metric in metrics.items():
        if not _measured(name):
            continue
        if isinstance(metric.value, str):
            continue
        if finite(metric.value) is not None:
            return None
        saw_nan = True
    return FAILED if saw_nan else NOT_COLLECTED
