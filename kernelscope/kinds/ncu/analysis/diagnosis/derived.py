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
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from kernelscope.core.durations import fmt_duration
from kernelscope.core.memo import Memo
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.local_memory import (
    LocalMemory as LocalMemory,
)
from kernelscope.kinds.ncu.analysis.diagnosis.local_memory import (
    local_memory as local_memory,
)
from kernelscope.kinds.ncu.analysis.diagnosis.local_memory import (
    register_cap as register_cap,
)
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS, Thresholds
from kernelscope.kinds.ncu.analysis.diagnosis.values import number as number
from kernelscope.kinds.ncu.analysis.diagnosis.values import share
from kernelscope.kinds.ncu.model.metrics import Metric

STALL_SELECTED = n.stall("selected")
"""Not a stall: the cycle on which the warp issues. Left out of the "top stall" readings."""


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


class GridFit(NamedTuple):
    """The grid set against the SMs, the one reading every launch sentence is built from:
    blocks per SM, the share of SMs that get a block, waves, and the blocks per SM the
    resources allow. Each property is None when the report lacks what it needs."""

    blocks: float | None
    sms: float | None
    waves: float | None
    resident_limit: float | None = None
    """Blocks per SM the smallest occupancy limit allows (theoretical residency)."""

    @property
    def blocks_per_sm(self) -> float | None:
        if self.blocks is None or not self.sms or self.sms <= 0:
            return None
        return self.blocks / self.sms

    @property
    def sm_share(self) -> float | None:
        """Share (0-1) of the SMs that get at least one block."""
        per_sm = self.blocks_per_sm
        return None if per_sm is None else min(1.0, per_sm)

    @property
    def every_sm_has_block(self) -> bool | None:
        """True when the grid has at least one block per SM: then it is never launch-bound
        for its size, whatever its waves."""
        per_sm = self.blocks_per_sm
        return None if per_sm is None else per_sm >= 1.0

    @property
    def idle_sms(self) -> float | None:
        """SMs that get no block at all (0 when every SM has one)."""
        if self.blocks is None or self.sms is None:
            return None
        return max(0.0, self.sms - self.blocks)

    def fill_text(self) -> str:
        """``132 blocks on 132 SMs: 1 per SM of the 6 its resources allow`` (what the
        launch sentences say of the grid); "" when the grid or SM count is unknown."""
        per_sm = self.blocks_per_sm
        if per_sm is None or self.blocks is None or self.sms is None:
            return ""
        text = f"{self.blocks:,.0f} blocks on {self.sms:,.0f} SMs"
        if per_sm < 1:
            return text + f": {self.idle_sms:,.0f} SMs get no block"
        text += f": {per_sm:.3g} per SM"
        if self.resident_limit is not None and per_sm < self.resident_limit:
            text += f" of the {self.resident_limit:.0f} its resources allow"
        return text


def grid_fit(
    grid: float | None, sm_count: float | None, waves: float | None,
    limits: Mapping[str, float],
) -> GridFit:
    """The grid against the SMs, with the blocks per SM the ``limits`` allow."""
    return GridFit(grid, sm_count, waves, resident_blocks(limits))


def tail_cost(
    waves: float | None,
    active_share: float | None,
    achieved: float | None,
    theoretical: float | None,
    t: Thresholds = DEFAULT_THRESHOLDS,
) -> float | None:
    """``tail_loss`` of the waves where the kernel's activity shows a tail, None where it
    does not: SMs active at least ``tail_sm_active`` of the elapsed cycles with achieved
    occupancy within ``occupancy_gap_pts`` of theoretical had no idle SMs and no empty warp
    slots for a partial last wave to leave (5.33 waves, SMs active 98 %: wave arithmetic
    alone). Either reading unknown: the wave arithmetic stands."""
    loss = tail_loss(waves)
    if loss is None or active_share is None or active_share < t.tail_sm_active:
        return loss
    if achieved is None or theoretical is None:
        return None
    return loss if theoretical - achieved >= t.occupancy_gap_pts else None


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
    *,
    small_grid: bool = False,
    low: Sequence[tuple[str, float]] | None = None,
) -> bool:
    """True when occupancy reads low but the launch comes first: a grid that cannot fill the
    GPU (``fills_gpu`` False) with low achieved occupancy while the per-SM resources would
    allow enough warps, or a grid that leaves most SMs without a block (``small_grid``:
    under ``grid_warning_fraction`` of them) whatever the resources allow: more blocks
    first. ``low``: ``low_occupancy_readings`` of these readings at ``t``, where the caller
    has them (a kernel's facts keep them)."""
    if fills is not False:
        return False
    if small_grid and (achieved is not None or theoretical is not None):
        return bool(low_occupancy_readings(achieved, theoretical, t) if low is None else low)
    if achieved is None or achieved >= t.occupancy_low_pct:
        return False
    return theoretical is None or theoretical >= t.occupancy_low_pct


# -- the SMs that ran -----------------------------------------------------------------------
def active_sm_share(metrics: Mapping[str, Metric]) -> float | None:
    """Share (0-1) of the kernel's elapsed cycles an average SM had work
    (``sm__cycles_active.avg`` over ``sm__cycles_elapsed.avg``, or over
    ``gpc__cycles_elapsed.max`` in reports without it): below 1 when the grid leaves
    SMs without blocks, or SMs wait for their first block or finish early."""
    active = number(metrics, n.SM_ACTIVE_CYCLES)
    elapsed = number(metrics, n.SM_ELAPSED_CYCLES)
    if elapsed is None:
        elapsed = number(metrics, n.GPC_ELAPSED_CYCLES)
    if active is None or not elapsed or elapsed <= 0:
        return None
    return min(1.0, max(0.0, active / elapsed))


def on_active_sms(pct_elapsed: float | None, active_share: float | None) -> float | None:
    """A GPU-wide ``…pct_of_peak_sustained_elapsed`` percentage read against the SMs that had
    work: over the active share, at most 100. Unchanged when the share is unknown."""
    if pct_elapsed is None or active_share is None or active_share <= 0:
        return pct_elapsed
    return min(100.0, pct_elapsed / active_share)


def active_reading(
    metrics: Mapping[str, Metric], name: str, active_share: float | None,
    elapsed_name: str = "",
) -> tuple[str, float] | None:
    """(metric read, % of peak) of a per-SM throughput or pipe metric on the SMs that ran: its
    ``…pct_of_peak_sustained_active`` form (NCU divides by the SMs' active cycles) when the
    report holds it, else its ``…_elapsed`` form read against ``active_share`` (the kernel's
    ``active_sm_share``). None when neither form was collected. The one reading of pipes the
    diagnosis uses. ``elapsed_name``: the ``_elapsed`` form's name, when the caller has it."""
    active = number(metrics, name)
    if active is not None:
        return name, active
    elapsed_name = elapsed_name or n.elapsed_form(name)
    elapsed = number(metrics, elapsed_name)
    if elapsed is None:
        return None
    value = on_active_sms(elapsed, active_share)
    return elapsed_name, elapsed if value is None else value


# -- occupancy ------------------------------------------------------------------------------
def low_occupancy_readings(
    achieved: float | None,
    theoretical: float | None,
    t: Thresholds = DEFAULT_THRESHOLDS,
) -> list[tuple[str, float]]:
    """(metric, %) of each occupancy reading that counts as low. Theoretical occupancy is low
    under ``occupancy_low_pct``. Achieved occupancy is low under that bar only where it is not
    just the theoretical ceiling read at run time: theoretical is itself low, unknown, or at
    least ``occupancy_gap_pts`` above it. So 48 % achieved of 50 % theoretical is neither (the
    warps the resources allow are resident), while 16 % achieved of 100 % is."""
    low: list[tuple[str, float]] = []
    theoretical_low = theoretical is not None and theoretical < t.occupancy_low_pct
    if achieved is not None and achieved < t.occupancy_low_pct:
        gap = None if theoretical is None else theoretical - achieved
        if theoretical_low or gap is None or gap >= t.occupancy_gap_pts:
            low.append((n.ACHIEVED_OCC, achieved))
    if theoretical is not None and theoretical_low:
        low.append((n.THEORETICAL_OCC, theoretical))
    return low


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


def leading_stall(
    shares: Mapping[str, float], t: Thresholds = DEFAULT_THRESHOLDS
) -> tuple[str, float] | None:
    """(stall metric, share) of the reason holding more than ``stall_lead_share`` of a warp's
    cycles between issues, if one does: it names the kernel's latency problem."""
    if not shares:
        return None
    name, value = "", -math.inf  # the largest share, ties to the larger name, as
    first = True  # max(key=(share, name)) finds it over finite shares, without a call each
    for reason, s in shares.items():
        if first or s > value or (s == value and reason > name):
            name, value, first = reason, s, False
    return (name, value) if value > t.stall_lead_share else None


def issue_slots_busy(issue_active: float | None, t: Thresholds = DEFAULT_THRESHOLDS) -> bool | None:
    """True when the schedulers issue on at least ``issue_underused_pct`` % of cycles: stall
    reasons then describe normal waiting, and no stall flag is raised."""
    return None if issue_active is None else issue_active >= t.issue_underused_pct


# -- time -----------------------------------------------------------------------------------
def duration_text(ns: float) -> str:
    """``fmt_duration(ns)``, kept by value for a positive float: a report's launches last a
    few dozen distinct times (ncu counts whole nanoseconds), and each diagnosis that names
    its kernel's duration formats it. Equal positive floats print alike (a zero or a
    negative one, which ``-0.0 == 0.0`` would confuse, is formatted each time)."""
    if type(ns) is not float or not ns > 0:
        return fmt_duration(ns)
    text = _DURATION_TEXTS.get(ns)
    return text if text is not None else _DURATION_TEXTS.keep(ns, fmt_duration(ns))


_DURATION_TEXTS: Memo[float, str] = Memo(4096)


def time_share(duration: float | None, total: float | None) -> float | None:
    """``duration`` as a share (0-1) of ``total`` when both are known and total is positive."""
    return share(duration, total)
