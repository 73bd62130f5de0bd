"""The global/local access table of the Memory pane and the Markdown record: sectors per
request beside the ideal for the kernel's own access width, and the note that says where the
ideal comes from (or which width it assumes when the report cannot tell)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kernelscope.core.units import NOT_AVAILABLE, fmt_number
from kernelscope.kinds.ncu.analysis.diagnosis import DEFAULT_THRESHOLDS, derived
from kernelscope.kinds.ncu.model.panes import (
    MEMORY_TABLE_BYTES_PER_SECTOR,
    MEMORY_TABLE_HIT_RATES,
    MEMORY_TABLE_ROWS,
)

T = DEFAULT_THRESHOLDS
WASTE_FACTOR = T.sectors_per_request_high / T.sectors_per_request_ideal
"""Sectors per request this many times the ideal are highlighted (2: half of every sector
fetched is wasted)."""


@dataclass(frozen=True)
class AccessRow:
    label: str
    instructions: float | None
    requests: float | None
    sectors: float | None
    hit_pct: float | None
    ratio: float | None
    """Sectors per request (derived)."""
    ideal: float | None
    """The sectors per request its accessed bytes would need (None: the report cannot tell)."""

    @property
    def wasteful(self) -> bool:
        """Sectors per request at least twice the ideal (the 4-byte ideal when unknown)."""
        if self.ratio is None:
            return False
        ideal = self.ideal if self.ideal is not None else T.sectors_per_request_ideal
        return self.ratio > WASTE_FACTOR * ideal + 1e-9

    @property
    def ratio_text(self) -> str:
        return NOT_AVAILABLE if self.ratio is None else f"{self.ratio:,.2f}"

    @property
    def ideal_text(self) -> str:
        return NOT_AVAILABLE if self.ideal is None else f"{self.ideal:,.2f}"


def _bytes_per_sector(number: Callable[[str], float | None], label: str) -> float | None:
    name = MEMORY_TABLE_BYTES_PER_SECTOR.get(label)
    return None if name is None else number(name)


def access_rows(number: Callable[[str], float | None]) -> list[AccessRow]:
    """The global and local load/store rows, from a kernel's ``number(metric)``."""
    rows = []
    for label, inst, requests, sectors, _hits in MEMORY_TABLE_ROWS:
        n_req, n_sec = number(requests), number(sectors)
        rows.append(AccessRow(
            label, number(inst), n_req, n_sec, number(MEMORY_TABLE_HIT_RATES.get(label, "")),
            derived.sectors_per_request(n_sec, n_req),
            derived.ideal_sectors_per_request(
                n_sec, n_req, _bytes_per_sector(number, label)),
        ))
    return rows


def access_note(rows: Sequence[AccessRow]) -> str:
    """What Sect/Req and Ideal mean; the width assumed where the report lacks the bytes."""
    note = ("Sect/Req is derived: sectors ÷ requests. Ideal: the sectors the bytes each "
            "request used would fill (Sect/Req × bytes used per sector ÷ 32): 4 for a warp's "
            "4-byte accesses, 8 for 8-byte, 16 for 16-byte (float4).")
    unknown = [r.label for r in rows if r.ratio is not None and r.ideal is None]
    local = [label for label in unknown if label not in MEMORY_TABLE_BYTES_PER_SECTOR]
    missing = [label for label in unknown if label in MEMORY_TABLE_BYTES_PER_SECTOR]
    if missing:
        note += (f" {', '.join(missing)}: n/a, the report lacks the bytes used per sector "
                 "(smsp__sass_average_data_bytes_per_sector_mem_global_*, --section "
                 "MemoryWorkloadAnalysis_Tables).")
    if local:
        note += (f" {', '.join(local)}: n/a, no metric tells the access width of local "
                 "memory.")
    if unknown:
        note += " Where the ideal is n/a, 4 (4-byte accesses) is assumed for the highlight."
    return note


def ratio_cell(row: AccessRow) -> str:
    """``16.00`` (a Markdown cell), ``32.00 (8.0× ideal)`` where it is wasteful."""
    if not row.wasteful or row.ratio is None:
        return row.ratio_text
    ideal = row.ideal if row.ideal is not None else T.sectors_per_request_ideal
    return f"{row.ratio_text} ({fmt_number(row.ratio / ideal)}× ideal)"
