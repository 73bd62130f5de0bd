"""The ncu metric names the diagnosis reads, grouped by the step of the method that uses them."""

from __future__ import annotations

from kernelscope.kinds.ncu.analysis.roofline.spec import ROOFLINE_METRICS
from kernelscope.kinds.ncu.model.panes import STALL_PREFIX as STALL_PREFIX
from kernelscope.kinds.ncu.model.panes import STALL_SUFFIX as STALL_SUFFIX

# -- launch ---------------------------------------------------------------------------------
DURATION = "gpu__time_duration.sum"
GRID_SIZE = "launch__grid_size"
BLOCK_SIZE = "launch__block_size"
WAVES = "launch__waves_per_multiprocessor"
SM_COUNT = "launch__sm_count"
DEVICE_SM_COUNT = "device__attribute_multiprocessor_count"
REGISTERS = "launch__registers_per_thread"
SHARED_STATIC = "launch__shared_mem_per_block_static"
SHARED_DYNAMIC = "launch__shared_mem_per_block_dynamic"
SHARED_DRIVER = "launch__shared_mem_per_block_driver"
SM_REGISTERS = "device__attribute_max_registers_per_multiprocessor"
CC_MAJOR = "device__attribute_compute_capability_major"
CC_MINOR = "device__attribute_compute_capability_minor"
SM_SHARED = "device__attribute_max_shared_memory_per_multiprocessor"

# -- Speed Of Light -------------------------------------------------------------------------
SM_PCT = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
MEM_PCT = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
DRAM_PCT = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
L1_PCT = "l1tex__throughput.avg.pct_of_peak_sustained_active"
L2_PCT = "lts__throughput.avg.pct_of_peak_sustained_elapsed"
SM_ACTIVE_CYCLES = "sm__cycles_active.avg"
"""Cycles an average SM had at least one warp resident: against ``SM_ELAPSED_CYCLES``, the
share of the kernel's time the SMs had work (``derived.active_sm_share``)."""
SM_ELAPSED_CYCLES = "sm__cycles_elapsed.avg"
ACTIVE_SHARE = f"{SM_ACTIVE_CYCLES} / {SM_ELAPSED_CYCLES}"
"""The SMs' active share of the elapsed cycles, as the evidence names it."""
GPC_ELAPSED_CYCLES = "gpc__cycles_elapsed.max"
"""The kernel's elapsed cycles as older reports hold them (no ``sm__cycles_elapsed.avg``)."""

# -- occupancy ------------------------------------------------------------------------------
THEORETICAL_OCC = "sm__maximum_warps_per_active_cycle_pct"
ACHIEVED_OCC = "sm__warps_active.avg.pct_of_peak_sustained_active"
OCCUPANCY_LIMITS: tuple[tuple[str, str], ...] = (
    ("registers", "launch__occupancy_limit_registers"),
    ("shared memory", "launch__occupancy_limit_shared_mem"),
    ("warps (block size)", "launch__occupancy_limit_warps"),
    ("block slots", "launch__occupancy_limit_blocks"),
    ("barriers", "launch__occupancy_limit_barriers"),
)

# -- memory path ----------------------------------------------------------------------------
DRAM_BYTES_READ = "dram__bytes_read.sum"
DRAM_BYTES_WRITE = "dram__bytes_write.sum"
L2_HIT = "lts__t_sector_hit_rate.pct"
GLOBAL_LD_BYTES_PER_SECTOR = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"
GLOBAL_ST_BYTES_PER_SECTOR = "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio"
GLOBAL_LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
GLOBAL_ST_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
EXCESSIVE_SECTORS = "derived__memory_l2_theoretical_sectors_global_excessive"
SHARED_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
SHARED_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
GLOBAL_LD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
GLOBAL_ST_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
LOCAL_LD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum"
LOCAL_ST_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum"
SPILL_INSTRUCTIONS = "sass__inst_executed_register_spilling"
LOCAL_LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"
LOCAL_ST_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"
SPILLING_REQUESTS = "derived__local_spilling_requests"

# -- atomics --------------------------------------------------------------------------------
ATOMIC_SLICE_MAX = "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed"
"""The busiest L2 slice's atomic unit, % of its cycles (SpeedOfLight's memory breakdown)."""
ATOMIC_SLICE_AVG = "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed"
GLOBAL_ATOM_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"
GLOBAL_RED_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"

# -- compute --------------------------------------------------------------------------------
PIPE_FMA = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"
PIPE_FP64 = "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active"
PIPE_TENSOR = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"
PIPE_ALU = "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"
PIPE_XU = "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active"
PIPE_LSU = "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"
ACTIVE = "pct_of_peak_sustained_active"
ELAPSED = "pct_of_peak_sustained_elapsed"


def elapsed_form(name: str) -> str:
    """The ``…pct_of_peak_sustained_elapsed`` form of an ``…_active`` pipe metric: the default
    set collects only these (in the Speed Of Light breakdown); they count idle SM cycles too,
    so they are never larger than the ``_active`` form."""
    return name.removesuffix(ACTIVE) + ELAPSED


BUSY_PIPES: tuple[tuple[str, str], ...] = (
    ("FMA", PIPE_FMA),
    ("FP64", PIPE_FP64),
    ("Tensor", PIPE_TENSOR),
)
OTHER_PIPES: tuple[tuple[str, str], ...] = (
    ("ALU", PIPE_ALU),
    ("XU", PIPE_XU),
    ("LSU", PIPE_LSU),
)
THREADS_PER_INST = "smsp__thread_inst_executed_per_inst_executed.ratio"
LANE_EFFICIENCY = f"{THREADS_PER_INST} / ideal threads per warp"
"""Lanes that execute each instruction over the lanes the block size allows (divergence)."""

# -- scheduler and stalls -------------------------------------------------------------------
ISSUE_ACTIVE = "smsp__issue_active.avg.pct_of_peak_sustained_active"
ELIGIBLE_WARPS = "smsp__warps_eligible.avg.per_cycle_active"
WARP_LATENCY = "smsp__average_warp_latency_per_inst_issued.ratio"


def stall(reason: str) -> str:
    return f"{STALL_PREFIX}{reason}{STALL_SUFFIX}"


STALL_BARRIER = stall("barrier")
STALL_LONG_SCOREBOARD = stall("long_scoreboard")
STALL_MIO_THROTTLE = stall("mio_throttle")
STALL_MEMBAR = stall("membar")
STALL_WAIT = stall("wait")
STALL_SHORT_SCOREBOARD = stall("short_scoreboard")
STALL_LG_THROTTLE = stall("lg_throttle")
STALL_MATH_THROTTLE = stall("math_pipe_throttle")
STALL_REASONS: tuple[str, ...] = tuple(
    stall(reason)
    for reason in (
        "barrier",
        "branch_resolving",
        "dispatch_stall",
        "drain",
        "imc_miss",
        "lg_throttle",
        "long_scoreboard",
        "math_pipe_throttle",
        "membar",
        "mio_throttle",
        "misc",
        "no_instruction",
        "short_scoreboard",
        "sleeping",
        "tex_throttle",
        "wait",
    )
)
"""Every reason NCU's WarpStateStats splits a warp's cycles between issues into, except
``selected`` (issuing) and ``not_selected`` (ready, another warp issued): the ones that can
explain why a warp does not issue."""

# -- instruction mix (no-tensor-core for FP32/FP64 matrix work) ------------------------------
FFMA_RATE = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"
FADD_RATE = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed"
FMUL_RATE = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed"
DFMA_RATE = "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed"
DADD_RATE = "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed"
DMUL_RATE = "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed"
FFMA_PEAK = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"
DFMA_PEAK = "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"

DIAGNOSIS_METRICS: tuple[str, ...] = (
    DURATION,
    GRID_SIZE,
    BLOCK_SIZE,
    WAVES,
    SM_COUNT,
    REGISTERS,
    SM_PCT,
    MEM_PCT,
    DRAM_PCT,
    L1_PCT,
    L2_PCT,
    THEORETICAL_OCC,
    ACHIEVED_OCC,
    *(name for _, name in OCCUPANCY_LIMITS),
    DRAM_BYTES_READ,
    DRAM_BYTES_WRITE,
    L2_HIT,
    GLOBAL_LD_BYTES_PER_SECTOR,
    GLOBAL_ST_BYTES_PER_SECTOR,
    GLOBAL_LD_SECTORS,
    GLOBAL_ST_SECTORS,
    EXCESSIVE_SECTORS,
    SHARED_CONFLICTS,
    SHARED_WAVEFRONTS,
    GLOBAL_LD_REQUESTS,
    GLOBAL_ST_REQUESTS,
    LOCAL_LD_REQUESTS,
    LOCAL_ST_REQUESTS,
    SPILL_INSTRUCTIONS,
    *(name for _, name in BUSY_PIPES),
    *(name for _, name in OTHER_PIPES),
    *(elapsed_form(name) for _, name in (*BUSY_PIPES, *OTHER_PIPES)),
    SHARED_STATIC,
    SHARED_DYNAMIC,
    SHARED_DRIVER,
    SM_REGISTERS,
    SM_SHARED,
    LOCAL_LD_SECTORS,
    LOCAL_ST_SECTORS,
    SPILLING_REQUESTS,
    ATOMIC_SLICE_MAX,
    ATOMIC_SLICE_AVG,
    GLOBAL_ATOM_REQUESTS,
    GLOBAL_RED_REQUESTS,
    THREADS_PER_INST,
    ISSUE_ACTIVE,
    ELIGIBLE_WARPS,
    WARP_LATENCY,
    *STALL_REASONS,
    SM_ACTIVE_CYCLES,
    SM_ELAPSED_CYCLES,
    GPC_ELAPSED_CYCLES,
    CC_MAJOR,
    CC_MINOR,
    FFMA_RATE,
    FADD_RATE,
    FMUL_RATE,
    DFMA_RATE,
    DADD_RATE,
    DMUL_RATE,
    FFMA_PEAK,
    DFMA_PEAK,
)


def _unique(*groups: tuple[str, ...]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for group in groups:
        for name in group:
            seen.setdefault(name, None)
    return tuple(seen)


REQUIRED_METRICS: tuple[str, ...] = _unique(DIAGNOSIS_METRICS, ROOFLINE_METRICS)
"""Every metric the diagnosis and the roofline read: pass it as ``extra_metrics``."""

# The ncu section each step's metrics come from, for the "not collected" notes.
SECTION_LAUNCH = "LaunchStats"
SECTION_SOL = "SpeedOfLight"
SECTION_OCCUPANCY = "Occupancy"
SECTION_MEMORY = "MemoryWorkloadAnalysis"
SECTION_MEMORY_TABLES = "MemoryWorkloadAnalysis_Tables"
SECTION_COMPUTE = "ComputeWorkloadAnalysis"
SECTION_INSTRUCTIONS = "InstructionStats"
SECTION_SCHEDULER = "SchedulerStats"
SECTION_WARP_STATE = "WarpStateStats"
SECTION_SOURCE = "SourceCounters"
SECTION_ROOFLINE = "SpeedOfLight_RooflineChart"
