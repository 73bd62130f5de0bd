"""Every number the diagnosis compares a metric against, in one place.

Percentages are in NCU's units (0-100). The comment on each value names the methodology step it
comes from; docs/diagnosis.md explains the reasoning behind each one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Thresholds:
    """The diagnosis thresholds. Pass a modified copy to ``diagnose`` to experiment."""

    # -- launch ----------------------------------------------------------------------------
    short_kernel_ns: float = 5_000.0
    """Below this duration the launch overhead (a few µs) is as large as the kernel itself."""
    tail_min_loss: float = 0.10
    """Fraction of the last wave left idle that makes a tail effect worth a flag."""
    tail_critical_loss: float = 0.25
    grid_critical_fraction: float = 0.25
    """A grid of at most this fraction of the SMs is critical; below ``grid_warning_fraction``
    a warning; any smaller grid than the SM count is still worth an info."""
    grid_warning_fraction: float = 0.5
    short_kernel_ramp_ns: float = 15_000.0
    """Below this duration launch, ramp-up and drain are still a visible share: the
    short-kernel flag is raised as info, and as the label when the SMs idle (``ramp_active``)."""
    ramp_active: float = 0.8
    """SMs active on less than this share of a short kernel's elapsed cycles: ramp-up and
    drain, not the work, set its time."""
    tail_sm_active: float = 0.95
    """SMs active on at least this share of the elapsed cycles, with achieved occupancy near
    theoretical, left no room for a tail: no tail-effect from wave arithmetic alone."""
    tail_many_waves: float = 8.0
    """From this many waves the partial last wave costs little: no tail-effect flag."""
    grid_fill_waves: float = 0.75
    """A grid with a block for every SM but under this share of one wave leaves a quarter of
    the SMs' block slots empty: grid-too-small as info."""
    waves_fill: float = 1.0
    """Below this many waves the grid cannot give every SM its full complement of blocks, so
    low achieved occupancy is the launch's doing (occupancy flags stand down to info)."""

    # -- time share (what a fix can save) ------------------------------------------------
    minor_time_share: float = 0.01
    """A kernel (or family) holding less of the profiled GPU time than this gets no flag above
    info: fixing it cannot save more than that share."""
    gain_warning_share: float = 0.05
    """NCU's estimated speedup of a flag times the kernel's (or family's) share of the time:
    at least this share of the report's time saved raises an info flag to warning."""

    # -- Speed Of Light --------------------------------------------------------------------
    pct_ceiling: float = 105.0
    """A percent of peak above this is not a measurement (seen on kernels of a few µs)."""
    sol_busy_pct: float = 60.0
    """A unit above this is busy; both SM and memory below it means latency-bound."""
    sol_side_margin_pct: float = 10.0
    """SM vs memory difference that picks a side (NCU's SOLBottleneck uses the same gap)."""
    dram_bound_pct: float = 70.0
    """DRAM throughput that makes the kernel HBM-bound (the notes' SOP step 2)."""
    dram_saturated_pct: float = 80.0
    """DRAM throughput that counts as saturated (the notes' decision tree)."""
    dram_low_pct: float = 50.0
    """DRAM below this while memory throughput is high: the pressure is on chip, not HBM."""
    memory_stream_pct: float = 50.0
    """A memory unit (DRAM, L2, L1/TEX, or Speed Of Light's memory throughput) at least this
    busy beside low occupancy: the kernel streams memory with too few requests in flight
    (latency-bound on memory), not occupancy-bound, however many waves it runs."""
    unit_saturated_pct: float = 80.0
    """A unit or pipe this busy (on the SMs that ran) is full: more resident warps cannot
    help it, so the occupancy flags stand down."""
    l1_pressure_pct: float = 80.0
    l2_busy_pct: float = 60.0

    # -- occupancy -------------------------------------------------------------------------
    occupancy_low_pct: float = 50.0
    """Achieved (or theoretical) occupancy below this hides latency poorly."""
    occupancy_critical_pct: float = 25.0
    register_limit_small: float = 2.0
    """A register block limit this low looks alarming but is fine with large blocks."""
    occupancy_gap_pts: float = 10.0
    """Achieved this many points below theoretical: warps finish unevenly (Occupancy pane)."""
    design_resource_share: float = 0.8
    """Registers (registers × threads × resident blocks) or shared memory (per block ×
    resident blocks) using at least this share of the SM's capacity: the kernel spends the
    SM on data reuse on purpose (evidence for the occupancy-by-design guard)."""
    design_tensor_pct: float = 20.0
    """Tensor-pipe use that, with both registers and shared memory near capacity, makes low
    occupancy a tensor-core kernel's design; with one of them the bar is midway to
    ``pipe_busy_pct``, with neither it is ``pipe_busy_pct`` itself."""

    # -- memory path -----------------------------------------------------------------------
    sector_bytes_warn: float = 16.0
    """Bytes used of each 32-byte sector below which global accesses are uncoalesced."""
    sector_bytes_critical: float = 8.0
    sector_share_min: float = 0.05
    """Loads or stores with fewer than this share of the global sectors are not graded for
    coalescing (a reduction's one partial store per block)."""
    excessive_sectors_warn: float = 0.25
    """Share of global sectors NCU marks as excessive (uncoalesced) that raises the flag."""
    excessive_sectors_critical: float = 0.50
    bank_conflict_warn: float = 0.10
    """Share of shared-memory wavefronts that are bank conflicts (0.10 ≈ 1.1-way)."""
    bank_conflict_critical: float = 0.50
    bank_conflict_label: float = 0.50
    """Conflict share that makes bank conflicts, not plain L1 traffic, the bottleneck."""
    l2_hit_low_pct: float = 50.0
    local_traffic_warn: float = 0.01
    """Local-memory (spill) requests as a share of all global+local requests."""
    local_traffic_critical: float = 0.10
    sectors_per_request_ideal: float = 4.0
    """Sectors a warp's 32 coalesced 4-byte accesses touch (Memory pane reference)."""
    sectors_per_request_high: float = 8.0
    """Sectors per request the Memory pane highlights (twice the ideal)."""
    atomic_slice_warn_pct: float = 25.0
    """Busiest L2 slice's atomic unit (``lts__d_atomic_input_cycles_active.max``) at this
    share of its cycles: atomics to a few addresses queue in one slice."""
    atomic_busy_pct: float = 60.0
    """That unit this busy is the kernel's limit: critical, and the label ``atomic-bound``
    (the same "busy" as ``sol_busy_pct``)."""
    atomic_concentration: float = 10.0
    """Busiest slice's atomic activity over the average slice's: contention on a few
    addresses rather than atomics spread over the whole L2."""
    atomic_request_share: float = 0.25
    """Atomic and reduction requests as a share of all global L1 requests (when the memory
    tables were collected): below it, atomics are incidental (e.g. one per block)."""

    # -- compute ---------------------------------------------------------------------------
    pipe_busy_pct: float = 60.0
    """An FMA/FP64/tensor pipe this busy is doing the kernel's real work."""
    pipe_throttled_pct: float = 50.0
    """A pipe this busy on the SMs that ran, while its own queue's stall (MIO or math-pipe
    throttle) leads the warps' stalls, is the limit as if it were at ``pipe_busy_pct``: the
    warps wait for the pipe, not for latency (``throttled_pipe``)."""
    divergence_efficiency: float = 0.75
    """Active threads per executed instruction over the block's ideal (32 for full warps)."""
    divergence_critical: float = 0.50
    half_pct_of_peak: float = 5.0
    """Half-precision FLOP/s as % of the non-tensor FP16 peak that counts as real FP16 work."""
    half_fma_share: float = 0.5
    """Share of half-precision operations done by HFMA that makes the work matrix-like."""
    tensor_idle_pct: float = 5.0
    matrix_fp_pct: float = 20.0
    """FP32/FP64 FLOP/s as % of that precision's peak that counts as real matrix work (with
    ``matrix_fma_share`` and an intensity past the DRAM ridge) for no-tensor-core."""
    matrix_fma_share: float = 0.8
    """Share of a precision's operations done by fused multiply-adds that makes it
    matrix-shaped (a GEMM's inner loop is FMAs; elementwise math mixes adds and multiplies)."""

    # -- scheduler and stalls --------------------------------------------------------------
    issue_underused_pct: float = 60.0
    """Stall reasons matter only when the schedulers issue less often than this."""
    stall_share_warn: float = 0.30
    """A stall reason's share of all cycles between two issues of a warp."""
    stall_share_critical: float = 0.50
    stall_lead_share: float = 0.50
    """A stall reason holding more than this share of the cycles between issues names the
    latency problem: the label is latency-bound by it and its flag leads."""


DEFAULT_THRESHOLDS = Thresholds()
