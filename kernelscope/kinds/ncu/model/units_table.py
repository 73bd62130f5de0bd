"""Facts about NCU's metric units that its naming conventions do not decide (see units.py).

Each table was read off NCU's raw page (`ncu --import R --page raw --csv --print-units base`,
row 2) of the reports in `samples/` and `../shared/wild`; `tests/ncu/test_units.py` and
`tests/wild/test_units_wild.py` check every metric column of every one of those pages against
`units.unit_for`.
"""

from __future__ import annotations

# Whole metric names whose unit no convention gives.
METRIC_UNITS: dict[str, str] = {
    # Source-level counters (the Source page's columns) have no `unit__` part; NCU gives the
    # instruction counts `inst` and the memory ones `sectors` (plural, unlike the hardware
    # counters' `sector`). Reports of 2020 name some of them `*_transactions` in bytes.
    "inst_executed": "inst",
    "thread_inst_executed": "inst",
    "thread_inst_executed_true": "inst",
    "memory_l1_tag_requests_global": "sectors",
    "memory_l1_wavefronts_shared": "sectors",
    "memory_l1_wavefronts_shared_ideal": "sectors",
    "memory_l2_theoretical_sectors_global": "sectors",
    "memory_l2_theoretical_sectors_global_ideal": "sectors",
    "memory_l2_theoretical_sectors_local": "sectors",
    "memory_ideal_l2_transactions_global": "byte",
    "memory_ideal_shared_transactions": "byte",
    "memory_l2_transactions_global": "byte",
    "memory_l2_transactions_local": "byte",
    "memory_shared_transactions": "byte",
    # Reports of 2020.3 name the L2 ones `memory_l2_sectors_*` and print them in bytes (their
    # L1 counterparts `memory_l1_sectors_*` have no unit), the excessive ones' too.
    "memory_l2_sectors_global": "byte",
    "memory_l2_sectors_global_ideal": "byte",
    "memory_l2_sectors_local": "byte",
    "derived__memory_l2_sectors_global_excessive": "byte",
    # Launch facts that carry a unit; every other `launch__` metric has none.
    "launch__cluster_max_active": "cluster",
    "launch__cluster_max_potential_size": "block",
    "launch__persisting_l2_cache_size": "byte",
    "launch__registers_per_thread": "register/thread",
    "launch__registers_per_thread_allocated": "register/thread",
    "launch__shared_mem_config_size": "byte",
    "launch__sm_count": "SM",
    "launch__thread_count": "thread",
    # The profiler's own bookkeeping.
    "profiler__pmsampler_buffer_size_bytes": "byte",
    "profiler__pmsampler_dropped_samples": "sample",
    "profiler__pmsampler_interval_cycles": "cycle",
    "profiler__pmsampler_interval_time": "ns",
    "profiler__pmsampler_merged_samples": "sample",
    "profiler__replayer_passes": "pass",
    "profiler__replayer_passes_type_warmup": "pass",
    # The sections' derived metrics: NCU infers their unit from the section's expression, and
    # the inference does not follow the expression's dimensions (a count of theoretical
    # operations prints `thread`; `lts2xbar` bytes per second print `byte`).
    "derived__avg_thread_executed": "thread",
    "derived__avg_thread_executed_true": "thread",
    "derived__avg_thread_unexecuted_true": "thread",
    "derived__derivative_avg_thread_executed_true": "thread",
    "derived__local_spilling_requests_pct": "%",
    "derived__lts__lts2xbar_bytes.sum.peak_sustained": "byte",
    "derived__lts__lts2xbar_bytes.sum.per_second": "byte",
    "derived__pct_occupancy_per_block_size": "%",
    "derived__pct_occupancy_per_register_count": "%/register",
    "derived__pct_occupancy_per_shared_mem_size": "%/byte",
    "derived__smsp__inst_executed_op_branch_pct": "%",
}

# Name prefixes of metrics whose unit no convention gives (first match wins).
METRIC_PREFIX_UNITS: tuple[tuple[str, str], ...] = (
    ("launch__block_dim_", "block"),
    ("launch__occupancy_limit_", "block"),
    ("launch__occupancy_cluster_", "%"),
    ("launch__shared_mem_per_block", "byte/block"),
    ("profiler__replayer_bytes_", "byte"),
    # Instruction-mix breakdowns keyed by opcode print no unit; the other `sass__` counts are
    # instructions.
    ("sass__inst_executed_per_opcode", ""),
    ("sass__thread_inst_executed", ""),
    ("sass__inst_executed", "inst"),
)

# Families of metrics without `unit__counter` structure: what METRIC_UNITS and
# METRIC_PREFIX_UNITS do not name has no unit (device attributes, NUMA and NVLink topology,
# derived metrics, the rest of launch and profiler facts, source-level metrics).
FAMILIES_WITHOUT_UNIT: tuple[str, ...] = (
    "c2clink__",
    "derived",
    "device__",
    "launch__",
    "memory_",
    "numa__",
    "nvlink__",
    "profiler__",
    "sass__",
)

# Hardware counters whose name's words mislead: requests counted in cycles, sectors and
# requests that NCU leaves without a unit, branch targets in `branches`, PC-sampling stall
# reasons named after warps but counted otherwise.
COUNTER_UNITS: dict[str, str] = {
    "gcc__xbar2gcc_sectors": "",
    "gpc__cgas_active_realtime": "",
    "idc__requests": "",
    "sm__icc_requests": "cycle",
    "smsp__imc_requests": "cycle",
    "smsp__branch_targets_threads_divergent": "branches",
    "smsp__sass_branch_targets_threads_divergent": "branches",
    "smsp__pcsamp_warps_issue_stalled_branch_resolving": "branches",
    "smsp__pcsamp_warps_issue_stalled_branch_resolving_not_issued": "branches",
    "smsp__pcsamp_warps_issue_stalled_no_instructions": "inst",
    "smsp__pcsamp_warps_issue_stalled_no_instructions_not_issued": "inst",
    "smsp__sass_inst_executed_memdesc_explicit_evict_type": "",
}

# Counter-name prefixes with a unit their words do not give (first match wins).
COUNTER_PREFIX_UNITS: tuple[tuple[str, str], ...] = (
    # L2 slices and the constant cache count requests; L1TEX's requests print no unit.
    ("lts__t_requests", "request"),
    ("gcc__cache_requests", "request"),
)

# The first word of a counter's name (after `unit__`) with a unit decides the counter's unit.
WORD_UNITS: dict[str, str] = {
    "cycles": "cycle",
    "active": "cycle",
    "bytes": "byte",
    "sectors": "sector",
    "inst": "inst",
    "warps": "warp",
    "ctas": "block",
    "duration": "ns",
    "passes": "pass",
}

# Units a counter keeps per cycle: warps resident or eligible are already counted per cycle.
UNITS_ALREADY_PER_CYCLE: frozenset[str] = frozenset({"warp"})

# `.ratio` and `.max_rate` of counters, by counter-name prefix (none where not listed).
RATIO_PREFIX_UNITS: tuple[tuple[str, str], ...] = (
    ("smsp__average_warp_latency_per_inst_issued", "cycle"),
    ("smsp__average_warps_active_per_inst_executed", "cycle"),
    ("smsp__average_warps_issue_stalled_", "inst"),
    ("smsp__average_warp_latency_issue_stalled_", "inst/warp"),
    ("smsp__sass_average_data_bytes_per_sector_", "byte/sector"),
)

# Metrics whose unit changed with the Nsight Compute that wrote the report:
# name -> (first version with the newer unit, newer unit, older unit).
METRIC_UNITS_SINCE_VERSION: dict[str, tuple[tuple[int, ...], str, str]] = {
    # Reports of 2021.2-2025.1 print `byte`, reports of 2025.3 `sector` (same expression).
    "derived__memory_l2_theoretical_sectors_global_excessive": ((2025, 3), "sector", "byte"),
}

# The roofline's theoretical operation counts (`derived__sm__sass_thread_inst_executed_op_
# dfma_pred_on_x2`, `..._x4`, and their `smsp__` per-cycle twins): their expressions give
# `inst`, but where the same result has `derived__avg_thread_executed` (unit `thread`), NCU's
# raw page prints `thread` for them too (ncu_report, asked for one metric, says `inst`).
THEORETICAL_OPERATION_PREFIXES: tuple[str, ...] = (
    "derived__sm__sass_thread_inst_executed_op_",
    "derived__smsp__sass_thread_inst_executed_op_",
)
THREAD_UNIT_WITNESS = "derived__avg_thread_executed"

# Reports of the pre-2020 format (`.nsight-cuprof-report`, Nsight Compute 2019.x, old metric
# names) name no unit for their hardware, launch and profiler metrics; only what NCU computes
# itself on import carries one (the occupancy limits, the source-level instruction counts).
UNITS_IN_PRE_2020_REPORTS: dict[str, str] = {
    "inst_executed": "inst",
    "thread_inst_executed_true": "inst",
    "launch__occupancy_limit_blocks": "block",
    "launch__occupancy_limit_registers": "block",
    "launch__occupancy_limit_shared_mem": "block",
    "launch__occupancy_limit_warps": "block",
    "sm__maximum_warps_avg_per_active_cycle": "warp",
    "smsp__maximum_warps_avg_per_active_cycle": "warp",
}
FIRST_VERSION_WITH_UNITS = (2020,)
