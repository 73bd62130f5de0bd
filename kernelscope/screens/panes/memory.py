"""Pane 4 — Memory: DRAM traffic, cache hit rates, access efficiency, bank conflicts, spills."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from kernelscope.parsers.ncu import KernelDetail
from kernelscope.parsers.ncu.panes import (
    MEMORY,
    MEMORY_TABLE_HIT_RATES,
    MEMORY_TABLE_ROWS,
    SHARED_TABLE_ROWS,
)
from kernelscope.render.format import NOT_AVAILABLE, fmt_number
from kernelscope.screens.panes.base import Pane, blank
from kernelscope.tui.widgets.metric_table import SectionTable, grid_table, metric_row, rows_table

IDEAL_SECTORS_PER_REQUEST = 4
"""A warp's 32 × 4-byte accesses, fully coalesced, touch 4 sectors of 32 bytes."""


def sectors_per_request(sectors: float | None, requests: float | None) -> float | None:
    """Derived: sectors / requests (NCU's tables show it; it is not a stored metric)."""
    if sectors is None or not requests:
        return None
    return sectors / requests


def local_traffic(detail: KernelDetail) -> float:
    """Local-memory (spill) sectors loaded and stored."""
    total = 0.0
    for label, _inst, _req, sectors, _hit in MEMORY_TABLE_ROWS:
        if label.startswith("Local"):
            total += detail.number(sectors) or 0.0
    return total


def global_local_rows(detail: KernelDetail) -> list[list[str | Text]]:
    rows: list[list[str | Text]] = []
    for label, inst, requests, sectors, _hits in MEMORY_TABLE_ROWS:
        n_req, n_sec = detail.number(requests), detail.number(sectors)
        ratio = sectors_per_request(n_sec, n_req)
        hit = detail.number(MEMORY_TABLE_HIT_RATES.get(label, ""))
        ratio_text = Text(NOT_AVAILABLE if ratio is None else f"{ratio:,.2f}")
        if ratio is not None and ratio > 2 * IDEAL_SECTORS_PER_REQUEST:
            ratio_text.stylize("bold yellow")
        rows.append(
            [
                label,
                fmt_number(detail.number(inst)),
                fmt_number(n_req),
                fmt_number(n_sec),
                ratio_text,
                NOT_AVAILABLE if hit is None else f"{hit:,.2f}",
            ]
        )
    return rows


def shared_rows(detail: KernelDetail) -> list[list[str | Text]]:
    rows: list[list[str | Text]] = []
    for label, inst, wavefronts, conflicts in SHARED_TABLE_ROWS:
        n_conf = detail.number(conflicts)
        conf_text = Text(fmt_number(n_conf))
        if n_conf:
            conf_text.stylize("bold yellow")
        rows.append(
            [label, fmt_number(detail.number(inst)), fmt_number(detail.number(wavefronts)),
             conf_text]
        )
    return rows


def spill_note(detail: KernelDetail) -> Text:
    """A call-out for local-memory (register spill) traffic."""
    sectors = local_traffic(detail)
    spills = detail.number("derived__local_spilling_requests")
    spill_inst = detail.number("sass__inst_executed_register_spilling")
    if sectors or spills or spill_inst:
        text = Text("Local memory traffic: ", style="bold red")
        text.append(
            f"{fmt_number(sectors)} local sectors"
            + (f", {fmt_number(spills)} spilling requests" if spills else "")
            + (f", {fmt_number(spill_inst)} spill instructions" if spill_inst else "")
            + " — registers spill to local memory (see -Xptxas -v, __launch_bounds__)."
        )
        return text
    return Text("No local-memory (register spill) traffic.", style="green")


class MemoryPane(Pane):
    spec = MEMORY
    tab_label = "Memory"

    def render_body(self, detail: KernelDetail) -> list[RenderableType]:
        summary = rows_table(
            [
                metric_row(detail, "dram__bytes_read.sum", "DRAM read"),
                metric_row(detail, "dram__bytes_write.sum", "DRAM written"),
                metric_row(detail, "dram__bytes.sum.per_second", "DRAM bandwidth"),
                metric_row(
                    detail, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                    "DRAM throughput",
                ),
                metric_row(detail, "l1tex__t_sector_hit_rate.pct", "L1/TEX hit rate"),
                metric_row(detail, "lts__t_sector_hit_rate.pct", "L2 hit rate"),
            ],
            title="Memory traffic",
        )
        global_table = grid_table(
            ["Access", "Inst.", "Requests", "Sectors", "Sect/Req", "Hit %"],
            global_local_rows(detail),
            title="L1/TEX global and local accesses",
            notes=[
                "Sect/Req is derived: sectors ÷ requests "
                f"({IDEAL_SECTORS_PER_REQUEST} is ideal for a warp's 4-byte accesses)."
            ],
        )
        shared_table = grid_table(
            ["Access", "Inst.", "Wavefronts", "Bank conflicts"],
            shared_rows(detail),
            title="Shared memory",
        )
        out: list[RenderableType] = [
            summary, blank(), global_table, blank(), shared_table, blank(), spill_note(detail),
        ]
        if "MemoryWorkloadAnalysis" in detail.section_metrics:
            out.extend([blank(), SectionTable(detail, "MemoryWorkloadAnalysis")])
        return out
