"""Metric names of pre-2020 reports (``.nsight-cuprof-report``, Nsight Compute 2019.x).

Nsight Compute renamed its metrics in 2019.5/2020.1 (``gpu__time_duration`` became
``gpu__time_duration.sum``, the ``*_sol_pct`` percentages became ``*__throughput``). A report
of the old format holds only the old names, so every metric kernelscope reads by its current
name is looked up under its old name when the report lacks it. ``ALIASES`` maps a current
name to the old names that measure the same thing in the same unit; metrics with no old
counterpart (pipe utilisation, tensor cores, the roofline's counters, most memory-table
metrics) stay missing and show as n/a.
"""

from __future__ import annotations

from collections.abc import Container, Iterable

ALIASES: dict[str, tuple[str, ...]] = {
    "gpu__time_duration.sum": ("gpu__time_duration",),
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": ("sm__sol_pct",),
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": (
        "gpu__compute_memory_sol_pct",
    ),
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed": ("fbpa__sol_pct",),
    "lts__throughput.avg.pct_of_peak_sustained_elapsed": ("ltc__sol_pct",),
    "l1tex__throughput.avg.pct_of_peak_sustained_active": ("tex__sol_pct",),
    "sm__warps_active.avg.pct_of_peak_sustained_active": (
        "sm__active_warps_avg_per_active_cycle_pct",
    ),
    "sm__warps_active.avg.per_cycle_active": ("sm__active_warps_avg_per_active_cycle",),
    "smsp__issue_active.avg.pct_of_peak_sustained_active": (
        "smsp__issue_active_per_active_cycle_pct",
    ),
    "smsp__issue_active.avg.per_cycle_active": ("smsp__issue_active_avg_per_active_cycle",),
    "smsp__thread_inst_executed_per_inst_executed.ratio": (
        "smsp__thread_inst_executed_per_inst_executed",
    ),
    "smsp__warps_eligible.avg.per_cycle_active": ("smsp__eligible_warps_avg_per_active_cycle",),
    "smsp__average_warp_latency_per_inst_issued.ratio": ("smsp__warp_cycles_per_inst_issued",),
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": (
        "smsp__warp_cycles_per_issue_stall_barrier",
    ),
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": (
        "smsp__warp_cycles_per_issue_stall_long_scoreboard",
    ),
    "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio": (
        "smsp__warp_cycles_per_issue_stall_mio_throttle",
    ),
    "sm__inst_executed.avg.per_cycle_active": ("sm__inst_executed_avg_per_active_cycle",),
    "smsp__inst_executed.sum": ("smsp__inst_executed_sum",),
    "dram__bytes.sum.per_second": ("dram__bytes_per_sec",),
    "dram__bytes_read.sum": ("dram__read_bytes",),
    "dram__bytes_write.sum": ("dram__write_bytes",),
    "lts__t_sector_hit_rate.pct": ("lts__request_total_sectors_hitrate_pct",),
    "gpc__cycles_elapsed.max": ("gpc__elapsed_cycles_max",),
    "sm__cycles_elapsed.avg": ("sm__elapsed_cycles_avg",),
    "gpc__cycles_elapsed.avg.per_second": ("gpc__frequency",),
    "dram__cycles_elapsed.avg.per_second": ("dram__frequency",),
    "launch__sm_count": ("device__attribute_multiprocessor_count",),
}

MARKERS = ("gpu__time_duration", "sm__sol_pct", "gpu__compute_memory_sol_pct")
"""Old names that only a pre-2020 report has (their current forms carry a rollup suffix)."""


def old_names(name: str) -> tuple[str, ...]:
    """The pre-2020 names of the metric ``name`` (empty when it has none)."""
    return ALIASES.get(name, ())


def is_legacy(metric_names: Container[str]) -> bool:
    """Whether a result's metric names are those of a pre-2020 report."""
    return any(m in metric_names for m in MARKERS)


def legacy_note(metric_names: Iterable[str]) -> str | None:
    """A sentence for a report whose kernels hold pre-2020 metric names, else None."""
    present = set(metric_names)
    if not is_legacy(present):
        return None
    mapped = sorted(new for new, olds in ALIASES.items() if new not in present
                    and any(o in present for o in olds))
    return (
        f"This is a pre-2020 report: {len(mapped)} of its metrics were read under their old "
        "names (e.g. gpu__time_duration as gpu__time_duration.sum), and metrics with no old "
        "counterpart (pipe utilisation, tensor cores, the roofline, most memory tables) show "
        "as n/a."
    )
