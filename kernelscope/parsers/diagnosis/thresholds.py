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
    l1_pressure_pct: float = 80.0
    l2_busy_pct: float = 60.0

    # -- occupancy -------------------------------------------------------------------------
    occupancy_low_pct: float = 50.0
    """Achieved (or theoretical) occupancy below this hides latency poorly."""
    occupancy_critical_pct: float = 25.0
    register_limit_small: float = 2.0
    """A register block limit this low looks alarming but is fine with large blocks."""

    # -- memory path -----------------------------------------------------------------------
    sector_bytes_warn: float = 16.0
    """Bytes used of each 32-byte sector below which global accesses are uncoalesced."""
    sector_bytes_critical: float = 8.0
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

    # -- compute ---------------------------------------------------------------------------
    pipe_busy_pct: float = 60.0
    """An FMA/FP64/tensor pipe this busy is doing the kernel's real work."""
    divergence_efficiency: float = 0.75
    """Active threads per executed instruction over the block's ideal (32 for full warps)."""
    divergence_critical: float = 0.50
    half_pct_of_peak: float = 5.0
    """Half-precision FLOP/s as % of the non-tensor FP16 peak that counts as real FP16 work."""
    half_fma_share: float = 0.5
    """Share of half-precision operations done by HFMA that makes the work matrix-like."""
    tensor_idle_pct: float = 5.0

    # -- scheduler and stalls --------------------------------------------------------------
    issue_underused_pct: float = 60.0
    """Stall reasons matter only when the schedulers issue less often than this."""
    stall_share_warn: float = 0.30
    """A stall reason's share of all cycles between two issues of a warp."""
    stall_share_critical: float = 0.50


DEFAULT_THRESHOLDS = Thresholds()
