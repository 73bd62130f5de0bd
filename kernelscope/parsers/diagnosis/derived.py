"""One home for the values kernelscope derives from a kernel's metrics.

The panes, the diagnosis and the exports all read these functions (and the thresholds in
``thresholds.py``), so what the Warp stalls, Memory, Occupancy or Launch pane says about a
kernel is what its diagnosis decided from: the tail of the last wave, the resource that limits
occupancy, sectors per request, local-memory (spill) traffic, the stall ranking, the share of
the registers and shared memory a kernel holds, its share of the profiled time.

Every function takes plain numbers or a ``Mapping[str, Metric]`` (a summary's or a detail's
metrics) and returns None for what the report does not say: a value that was not collected is
never shown as zero.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kernelscope.parsers.diagnosis import names as n
from kernelscope.parsers.diagnosis.thresholds import DEFAULT_THRESHOLDS, Thresholds
from kernelscope.parsers.diagnosis.values import finite, share
from kernelscope.parsers.ncu.metrics import Metric

STALL_SELECTED = n.stall("selected")
"""Not a stall: the cycle on which the warp issues. Left out of the "top stall" readings."""


def number(metrics: Mapping[str, Metric], name: str) -> float | None:
    """The metric's finite numeric value, None when absent, textual, NaN or infinite."""
    m = metrics.get(name)
    return None if m is None else finite(m.value)


# -- launch ---------------------------------------------------------------------------------
def tail_wave_fill(waves: float | None) -> float | None:
    """How full the last wave is, in %: the fractional part of the waves, 100 when whole."""
    if waves is None or waves <= 0:
        return None
    frac = waves - math.floor(waves)
    return 100.0 if frac == 0 else frac * 100


def tail_loss(waves: float | None) -> float | None:
    """Share of the SM time the partial last wave leaves idle, assuming equal-length blocks;
    None below one wave (then the grid itself is too small, not its tail)."""
    if waves is None or waves < 1:
        return None
    whole = math.ceil(waves - 1e-9)
    return (whole - waves) / whole


def fills_gpu(
    grid: float | None,
    sm_count: float | None,
    waves: float | None,
    t: Thresholds = DEFAULT_THRESHOLDS,
) -> bool | None:
    """False when the grid cannot give every SM its full complement of resident blocks
    (fewer blocks than SMs, or less than ``waves_fill`` waves); None when unknown."""
    if grid is not None and sm_count is not None and grid < sm_count:
        return False
    if waves is not None:
        return waves >= t.waves_fill
    return None if grid is None or sm_count is None else True


def sm_count(metrics: Mapping[str, Metric]) -> float | None:
    """The SMs the launch could use (``launch__sm_count``, else the device's count)."""
    count = number(metrics, n.SM_COUNT)
    return count if count is not None else number(metrics, n.DEVICE_SM_COUNT)


def launch_fills_gpu(
    metrics: Mapping[str, Metric], t: Thresholds = DEFAULT_THRESHOLDS
) -> bool | None:
    """``fills_gpu`` of a kernel's own grid, SM count and waves."""
    return fills_gpu(number(metrics, n.GRID_SIZE), sm_count(metrics), number(metrics, n.WAVES), t)


def grid_limits_occupancy(
    achieved: float | None,
    theoretical: float | None,
    fills: bool | None,
    t: Thresholds = DEFAULT_THRESHOLDS,
) -> bool:
    """True when achieved occupancy is low because of the launch: under
    ``occupancy_low_pct`` on a grid that cannot fill the GPU (``fills_gpu`` False) while the
    per-SM resources would allow enough warps (theoretical not low)."""
    if achieved is None or achieved >= t.occupancy_low_pct or fills is not False:
        return False
    return theoretical is None or theoretical >= t.occupancy_low_pct


# -- occupancy ------------------------------------------------------------------------------
def block_limits(
    metrics: Mapping[str, Metric],
    table: Iterable[tuple[str, str]] = n.OCCUPANCY_LIMITS,
) -> dict[str, float]:
    """Each known per-SM block limit by its label (registers, shared memory, …)."""
    return {label: v for label, name in table if (v := number(metrics, name)) is not None}


def limiting_resources(limits: Mapping[str, float]) -> tuple[str, ...]:
    """The labels of the resources with the smallest block limit. When the hardware's block
    slots are among them, the other equal limits are that same cap (a kernel without shared
    memory reports the cap as its shared-memory limit), so only "block slots" is named."""
    if not limits:
        return ()
    lowest = min(limits.values())
    found = tuple(label for label, v in limits.items() if v == lowest)
    return ("block slots",) if "block slots" in found else found


def resident_blocks(limits: Mapping[str, float]) -> float | None:
    """Blocks per SM the smallest limit allows (theoretical residency)."""
    return min(limits.values()) if limits else None


def resource_shares(
    metrics: Mapping[str, Metric], limits: Mapping[str, float] | None = None
) -> tuple[float | None, float | None]:
    """(registers, shared memory) the resident blocks hold, as shares of the SM's register
    file and shared memory: registers per thread × threads per block × resident blocks over
    ``device__attribute_max_registers_per_multiprocessor``; static + dynamic + driver shared
    memory per block × resident blocks over ``…max_shared_memory_per_multiprocessor``."""
    limits = block_limits(metrics) if limits is None else limits
    blocks = resident_blocks(limits)
    if blocks is None or blocks <= 0:
        return None, None
    regs = number(metrics, n.REGISTERS)
    threads = number(metrics, n.BLOCK_SIZE)
    register_file = number(metrics, n.SM_REGISTERS)
    reg_share = None
    if regs is not None and threads is not None:
        reg_share = share(regs * threads * blocks, register_file)
    parts = [number(metrics, name) for name in (n.SHARED_STATIC, n.SHARED_DYNAMIC)]
    smem_share = None
    if any(p is not None for p in parts):
        used = sum(p for p in parts if p is not None) + (number(metrics, n.SHARED_DRIVER) or 0)
        smem_share = share(used * blocks, number(metrics, n.SM_SHARED)) if used > 0 else None
    return reg_share, smem_share


# -- memory ---------------------------------------------------------------------------------
def sectors_per_request(sectors: float | None, requests: float | None) -> float | None:
    """Sectors ÷ requests (NCU's tables show it; it is not a stored metric)."""
    if sectors is None or not requests:
        return None
    return sectors / requests


SECTOR_BYTES = 32
"""An L1/L2 sector."""


def ideal_sectors_per_request(
    sectors: float | None, requests: float | None, bytes_per_sector: float | None
) -> float | None:
    """The sectors per request the accessed bytes would need, every sector fully used: the
    bytes a request's threads used (sectors per request × the bytes used per sector, NCU's
    ``smsp__sass_average_data_bytes_per_sector_mem_*``) ÷ 32. The ideal follows the access
    width: a full warp's 4-byte accesses need 4 sectors, 8-byte ones 8, 16-byte (``float4``)
    ones 16. None without the bytes used per sector (or without requests)."""
    ratio = sectors_per_request(sectors, requests)
    if ratio is None or bytes_per_sector is None or not bytes_per_sector > 0:
        return None
    return ratio * min(bytes_per_sector, SECTOR_BYTES) / SECTOR_BYTES


@dataclass(frozen=True)
class LocalMemory:
    """Local-memory (register spill or per-thread array) traffic through L1."""

    requests: float
    """Local load + store requests."""
    share: float | None
    """``requests`` over all global and local L1 requests (what ``register-spill`` grades)."""
    sectors: float | None
    spill_instructions: float | None
    """``sass__inst_executed_register_spilling`` (SourceCounters): spills, not local arrays."""
    spilling_requests: float | None

    @property
    def any(self) -> bool:
        return bool(self.requests or self.sectors or self.spill_instructions)


def local_memory(metrics: Mapping[str, Metric]) -> LocalMemory | None:
    """The kernel's local-memory traffic, or None when the report did not collect the
    local-memory requests (MemoryWorkloadAnalysis_Tables): then nothing can be said."""
    local = [number(metrics, n.LOCAL_LD_REQUESTS), number(metrics, n.LOCAL_ST_REQUESTS)]
    if all(v is None for v in local):
        return None
    requests = sum(v for v in local if v is not None)
    glob = [number(metrics, n.GLOBAL_LD_REQUESTS), number(metrics, n.GLOBAL_ST_REQUESTS)]
    total = requests + sum(v for v in glob if v is not None)
    sectors = [number(metrics, n.LOCAL_LD_SECTORS), number(metrics, n.LOCAL_ST_SECTORS)]
    return LocalMemory(
        requests=requests,
        # No request at all (a TMA-only GEMM issues no LDG/STG): no local traffic either.
        share=share(requests, total) if total > 0 else 0.0,
        sectors=sum(v for v in sectors if v is not None)
        if any(v is not None for v in sectors)
        else None,
        spill_instructions=number(metrics, n.SPILL_INSTRUCTIONS),
        spilling_requests=number(metrics, n.SPILLING_REQUESTS),
    )


# -- scheduler ------------------------------------------------------------------------------
def stall_reason(name: str) -> str:
    """``long_scoreboard`` for the long-scoreboard stall metric."""
    return name.removeprefix(n.STALL_PREFIX).removesuffix(n.STALL_SUFFIX)


def ranked_stalls(metrics: Mapping[str, Metric], names: Iterable[str]) -> list[tuple[str, float]]:
    """(stall metric, cycles per issued instruction) for each known reason, largest first
    (ties by name)."""
    found = [(name, v) for name in names if (v := number(metrics, name)) is not None]
    found.sort(key=lambda item: (-item[1], item[0]))
    return found


def top_stalls(ranked: list[tuple[str, float]], count: int = 3) -> list[tuple[str, float]]:
    """The leading real stall reasons of a ranking: "selected" (issuing) and zeros left out."""
    return [(name, v) for name, v in ranked if name != STALL_SELECTED and v > 0][:count]


def issue_slots_busy(issue_active: float | None, t: Thresholds = DEFAULT_THRESHOLDS) -> bool | None:
    """True when the schedulers issue on at least ``issue_underused_pct`` % of cycles: stall
    reasons then describe normal waiting, and no stall flag is raised."""
    return None if issue_active is None else issue_active >= t.issue_underused_pct


# -- time -----------------------------------------------------------------------------------
def time_share(duration: float | None, total: float | None) -> float | None:
    """``duration`` as a share (0-1) of ``total`` when both are known and total is positive."""
    return share(duration, total)
