"""Local-memory traffic and what it is: register spills (the report's spill counters, or
registers at the per-thread cap) or per-thread arrays that live in local memory (stack arrays,
dynamically indexed locals). One home for the Memory pane, ``register-spill`` and
``local-memory`` (re-exported by ``derived``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.values import number, share
from kernelscope.kinds.ncu.model.metrics import Metric

MAX_REGISTERS_PER_THREAD = 255
"""The architectural cap on registers per thread (every GPU since Kepler)."""
REGISTER_GRANULE = 8
"""Registers are allocated per thread in multiples of 8 (256 per warp)."""


def register_cap(block_threads: float | None, register_file: float | None) -> float | None:
    """The most registers per thread a block of ``block_threads`` can have and still launch:
    the register file over the block's warps, down to the allocation granule, at most 255.
    A kernel at this cap (or at 255) has no register to spare: its local memory is spills."""
    if block_threads is None or block_threads < 1:
        return None
    if not register_file:
        return float(MAX_REGISTERS_PER_THREAD)
    threads = math.ceil(block_threads / 32) * 32
    fit = math.floor(register_file / threads / REGISTER_GRANULE) * REGISTER_GRANULE
    return float(min(MAX_REGISTERS_PER_THREAD, fit))


class LocalMemory(NamedTuple):
    """Local-memory traffic through L1: register spills, or per-thread arrays (stack arrays,
    dynamically indexed locals) that live there by design."""

    requests: float
    """Local load + store requests."""
    share: float | None
    """``requests`` over all global and local L1 requests (what ``register-spill`` and
    ``local-memory`` grade)."""
    sectors: float | None
    spill_instructions: float | None
    """``sass__inst_executed_register_spilling`` (SourceCounters): spills, not local arrays."""
    spilling_requests: float | None
    registers: float | None = None
    """Registers per thread."""
    cap: float | None = None
    """``register_cap`` of the launch's block."""

    @property
    def any(self) -> bool:
        return bool(self.requests or self.sectors or self.spill_instructions)

    @property
    def spill_evidence(self) -> tuple[str, float, str] | None:
        """(metric, value, what it shows) of the evidence that the traffic is register spills:
        the report's spill counters, or registers at the per-thread cap. None without it:
        then the traffic is local arrays as far as the report tells."""
        for name, value in (
            (n.SPILL_INSTRUCTIONS, self.spill_instructions),
            (n.SPILLING_REQUESTS, self.spilling_requests),
        ):
            if value is not None and value > 0:
                return name, value, "the report counts register spills"
        if self.registers is not None and self.cap is not None and self.registers >= self.cap:
            return n.REGISTERS, self.registers, (
                f"at the per-thread cap of {self.cap:.0f} for this block size: no register to spare"
            )
        return None


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
        registers=number(metrics, n.REGISTERS),
        cap=register_cap(number(metrics, n.BLOCK_SIZE), number(metrics, n.SM_REGISTERS)),
    )
