"""The memory path's facts of a kernel: L2 hits, coalescing, bank conflicts, local memory."""

from __future__ import annotations

from typing import Any

from kernelscope.kinds.ncu.analysis.diagnosis import derived as d
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS, Thresholds
from kernelscope.kinds.ncu.analysis.diagnosis.values import Values, share


def positive(values: Values, name: str) -> float | None:
    v = values.num(name)
    return v if v is not None and v > 0 else None


def _bytes_per_sector(
    values: Values, ratio: str, sectors: str, total: float | None, min_share: float
) -> float | None:
    """A bytes-per-sector ratio, only when the kernel had such accesses (NCU reports 0 then)
    and they are at least ``min_share`` of the ``total`` global sectors: one partial store per
    block beside a coalesced stream of loads is not an access pattern to fix."""
    count = values.num(sectors)
    if count is not None and count <= 0:
        return None
    if count is not None and total and count < min_share * total:
        return None
    return positive(values, ratio)


def memory_path_facts(values: Values, t: Thresholds) -> dict[str, Any]:
    """How well the memory path is used: L2 hits, coalescing, bank conflicts, local memory;
    all unknown, without a read, where the report holds none of its metrics (a report of
    launch statistics or Speed Of Light alone)."""
    if values.metrics.keys().isdisjoint(_MEMORY_PATH_METRICS):
        return _NO_MEMORY_PATH
    return _memory_path_read(values, t)


def _memory_path_read(values: Values, t: Thresholds) -> dict[str, Any]:
    counts = [values.num(n.GLOBAL_LD_SECTORS), values.num(n.GLOBAL_ST_SECTORS)]
    known = [v for v in counts if v is not None]
    total = sum(known) if known else None
    local = d.local_memory(values.metrics)
    return {
        "l2_hit": values.num(n.L2_HIT),
        "ld_bytes_per_sector": _bytes_per_sector(
            values, n.GLOBAL_LD_BYTES_PER_SECTOR, n.GLOBAL_LD_SECTORS, total, t.sector_share_min
        ),
        "st_bytes_per_sector": _bytes_per_sector(
            values, n.GLOBAL_ST_BYTES_PER_SECTOR, n.GLOBAL_ST_SECTORS, total, t.sector_share_min
        ),
        "excessive_share": share(values.num(n.EXCESSIVE_SECTORS), total),
        "conflict_share": share(values.num(n.SHARED_CONFLICTS), values.num(n.SHARED_WAVEFRONTS)),
        "local_share": local.share if local is not None else None,
        "spill_instructions": values.num(n.SPILL_INSTRUCTIONS),
        "spill_evidence": local.spill_evidence if local is not None else None,
    }


_MEMORY_PATH_METRICS = frozenset((
    n.GLOBAL_LD_SECTORS, n.GLOBAL_ST_SECTORS, n.L2_HIT, n.GLOBAL_LD_BYTES_PER_SECTOR,
    n.GLOBAL_ST_BYTES_PER_SECTOR, n.EXCESSIVE_SECTORS, n.SHARED_CONFLICTS, n.SHARED_WAVEFRONTS,
    n.SPILL_INSTRUCTIONS, n.LOCAL_LD_REQUESTS, n.LOCAL_ST_REQUESTS,
))
"""The metrics ``_memory_path_read`` finds anything in (``local_memory`` is None without
the local requests, whatever else the report holds)."""
_NO_MEMORY_PATH = _memory_path_read(Values({}), DEFAULT_THRESHOLDS)
"""The memory path of a report without those metrics: every fact unknown."""
