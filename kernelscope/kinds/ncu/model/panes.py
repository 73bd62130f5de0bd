"""What each kernel-detail pane shows: its ncu sections, its metrics and how to collect them.

The panes follow the diagnosis order of the methodology notes: launch, Speed Of Light,
occupancy, memory, scheduler/warp stalls, source, then NVIDIA's own rule results.
"""

from __future__ import annotations

from typing import NamedTuple


class PaneSpec(NamedTuple):
    """A pane of the kernel detail view."""

    key: str
    """The number key that shows the pane (0 for the diagnosis, 1-8 in the method's order)."""
    id: str
    title: str
    sections: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    section_metrics: tuple[str, ...] = ()
    """Sections whose header and body metrics the pane shows as NCU lays them out."""
    stand_ins: tuple[str, ...] = ()
    """Metrics only the pane's sections bring: a report that holds one of them (collected
    with ``ncu --metrics``, without the section) has the pane's content, not a hint."""

    @classmethod
    def laid_out(
        cls, key: str, id: str, title: str, sections: tuple[str, ...], metrics: tuple[str, ...],
        stand_ins: tuple[str, ...] = (),
    ) -> PaneSpec:
        """A pane that shows all its sections' header and body metrics as NCU lays them out."""
        return cls(key, id, title, sections, metrics, section_metrics=sections,
                   stand_ins=stand_ins)

    @property
    def collect_hint(self) -> str:
        flags = " ".join(f"--section {s}" for s in self.sections)
        return f"ncu {flags} (or --set full)"


DIM_METRICS = (
    "launch__grid_dim_x",
    "launch__grid_dim_y",
    "launch__grid_dim_z",
    "launch__block_dim_x",
    "launch__block_dim_y",
    "launch__block_dim_z",
)

LAUNCH = PaneSpec.laid_out("1", "launch", "Launch", ("LaunchStats",), (
    "launch__grid_size",
    "launch__block_size",
    "launch__thread_count",
    *DIM_METRICS,
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "launch__shared_mem_per_block_driver",
    "launch__shared_mem_config_size",
    "launch__sm_count",
    "launch__waves_per_multiprocessor",
    "launch__cluster_size",
    "device__attribute_multiprocessor_count",
), stand_ins=("launch__waves_per_multiprocessor",))

SOL_BREAKDOWNS = (
    "breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
)

SOL = PaneSpec.laid_out("2", "sol", "Speed Of Light", ("SpeedOfLight",), (
    "gpu__time_duration.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "gpc__cycles_elapsed.max",
    "sm__cycles_active.avg",
    "gpc__cycles_elapsed.avg.per_second",
    "dram__cycles_elapsed.avg.per_second",
))

OCCUPANCY_LIMITS = (
    ("registers", "launch__occupancy_limit_registers"),
    ("shared memory", "launch__occupancy_limit_shared_mem"),
    ("warps", "launch__occupancy_limit_warps"),
    ("block slots", "launch__occupancy_limit_blocks"),
    ("barriers", "launch__occupancy_limit_barriers"),
)

OCCUPANCY_CURVES = (
    ("block size", "launch__occupancy_per_block_size"),
    ("registers per thread", "launch__occupancy_per_register_count"),
    ("shared memory per block", "launch__occupancy_per_shared_mem_size"),
)

OCCUPANCY = PaneSpec.laid_out("3", "occupancy", "Occupancy", ("Occupancy",), (
    "sm__maximum_warps_per_active_cycle_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_avg_per_active_cycle",
    "sm__warps_active.avg.per_cycle_active",
    *(name for _, name in OCCUPANCY_LIMITS),
    "device__attribute_max_warps_per_multiprocessor",
), stand_ins=("sm__maximum_warps_per_active_cycle_pct",
              "sm__warps_active.avg.pct_of_peak_sustained_active"))

# (row label, instructions, requests, sectors, sector hits) for the global/local memory table.
MEMORY_TABLE_ROWS = (
    (
        "Global load",
        "smsp__sass_inst_executed_op_global_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
    ),
    (
        "Global store",
        "smsp__sass_inst_executed_op_global_st.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_hit.sum",
    ),
    (
        "Local load",
        "smsp__sass_inst_executed_op_local_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum",
    ),
    (
        "Local store",
        "smsp__sass_inst_executed_op_local_st.sum",
        "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
        "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
        "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum",
    ),
)

# NCU's own sector hit rate of each row of the global/local table (by row label).
MEMORY_TABLE_HIT_RATES = {
    "Global load": "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
    "Global store": "l1tex__t_sector_pipe_lsu_mem_global_op_st_hit_rate.pct",
    "Local load": "l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct",
    "Local store": "l1tex__t_sector_pipe_lsu_mem_local_op_st_hit_rate.pct",
}

# The bytes each sector of a global row's accesses carried that the threads used (out of 32):
# what tells the ideal sectors per request for the access width (4-byte, 8-byte, float4). The
# local rows' counterparts do not agree with their sector counts (1.5 bytes of 32 for a
# spilling kernel's 4-byte accesses), so they are not used.
MEMORY_TABLE_BYTES_PER_SECTOR = {
    "Global load": "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
    "Global store": "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio",
}

# (row label, instructions, wavefronts, bank conflicts) for the shared-memory table.
SHARED_TABLE_ROWS = (
    (
        "Shared load",
        "smsp__sass_inst_executed_op_shared_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    ),
    (
        "Shared store",
        "smsp__sass_inst_executed_op_shared_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    ),
)

MEMORY = PaneSpec(
    key="4",
    id="memory",
    title="Memory",
    sections=("MemoryWorkloadAnalysis", "MemoryWorkloadAnalysis_Tables"),
    section_metrics=("MemoryWorkloadAnalysis",),
    metrics=(
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "dram__bytes.sum.per_second",
        "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
        "lts__t_sector_hit_rate.pct",
        "l1tex__t_sector_hit_rate.pct",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
        "sass__inst_executed_register_spilling",
        "derived__local_spilling_requests",
        *(name for row in MEMORY_TABLE_ROWS for name in row[1:]),
        *MEMORY_TABLE_HIT_RATES.values(),
        *MEMORY_TABLE_BYTES_PER_SECTOR.values(),
        *(name for row in SHARED_TABLE_ROWS for name in row[1:]),
    ),
)

SCHEDULER_METRICS = (
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__issue_active.avg.per_cycle_active",
    "smsp__warps_eligible.avg.per_cycle_active",
    "smsp__warps_active.avg.per_cycle_active",
    "smsp__maximum_warps_avg_per_active_cycle",
    "smsp__average_warp_latency_per_inst_issued.ratio",
)

STALL_PREFIX = "smsp__average_warps_issue_stalled_"
STALL_SUFFIX = "_per_issue_active.ratio"

STALLS = PaneSpec.laid_out(
    "5", "stalls", "Warp stalls", ("WarpStateStats", "SchedulerStats"), SCHEDULER_METRICS
)

SOURCE = PaneSpec("6", "source", "Source", sections=("SourceCounters",))

RULES = PaneSpec("7", "rules", "NCU rules")

# NCU's Raw page: every metric the report holds for the kernel, with its unit.
RAW = PaneSpec("8", "raw", "Raw")

# kernelscope's own diagnosis (kernelscope.kinds.ncu.analysis.diagnosis); its metrics come as
# extra_metrics.
DIAGNOSIS = PaneSpec("0", "diagnosis", "Diagnosis")

# The diagnosis comes first (what limits the kernel and the evidence), then one pane per step.
PANES: tuple[PaneSpec, ...] = (
    DIAGNOSIS, LAUNCH, SOL, OCCUPANCY, MEMORY, STALLS, SOURCE, RULES, RAW,
)

# The kernel list's columns: (column, ncu metric).
KEY_METRICS: tuple[tuple[str, str], ...] = (
    ("duration_ns", "gpu__time_duration.sum"),
    ("registers", "launch__registers_per_thread"),
    ("sm_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("mem_pct", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
    ("dram_pct", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
    ("occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active"),
)


def pane_metric_names() -> tuple[str, ...]:
    """Every fixed metric any pane shows, without duplicates, in pane order."""
    seen: dict[str, None] = {}
    for pane in PANES:
        for name in pane.metrics:
            seen.setdefault(name, None)
    for _, name in KEY_METRICS:
        seen.setdefault(name, None)
    return tuple(seen)
