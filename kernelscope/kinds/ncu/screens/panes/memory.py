"""Pane 4 — Memory: DRAM traffic, cache hit rates, access efficiency, bank conflicts, spills."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from kernelscope.core.units import NOT_AVAILABLE, fmt_number
from kernelscope.kinds.ncu.analysis.diagnosis import DEFAULT_THRESHOLDS, derived
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.model.panes import MEMORY, SHARED_TABLE_ROWS
from kernelscope.kinds.ncu.render.memory_text import access_note, access_rows
from kernelscope.kinds.ncu.screens.panes.base import Pane, blank
from kernelscope.kinds.ncu.screens.widgets.metric_table import (
    SectionTable,
    grid_table,
    metric_row,
    rows_table,
)

T = DEFAULT_THRESHOLDS
sectors_per_request = derived.sectors_per_request


def global_local_rows(detail: KernelDetail) -> list[list[str | Text]]:
    rows: list[list[str | Text]] = []
    for row in access_rows(detail.number):
        ratio_text = Text(row.ratio_text)
        if row.wasteful:
            ratio_text.stylize("bold yellow")
        rows.append(
            [
                row.label,
                fmt_number(row.instructions),
                fmt_number(row.requests),
                fmt_number(row.sectors),
                ratio_text,
                row.ideal_text,
                NOT_AVAILABLE if row.hit_pct is None else f"{row.hit_pct:,.2f}",
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
    """A call-out for local-memory traffic, from the same values and thresholds as the
    diagnosis's ``register-spill`` and ``local-memory`` flags (``derived.local_memory``):
    spills only with the report's spill counters or registers at the per-thread cap."""
    local = derived.local_memory(detail.metrics)
    if local is None:
        return Text(
            "Local-memory (register spill) traffic not collected "
            "(--section MemoryWorkloadAnalysis_Tables).",
            style="dim",
        )
    if not local.any:
        return Text("No local-memory (register spill) traffic.", style="green")
    share = local.share
    flagged = share is not None and share >= T.local_traffic_warn
    text = Text("Local memory traffic: ", style="bold red" if flagged else "bold yellow")
    parts = [f"{fmt_number(local.requests)} requests"]
    if share is not None:
        parts[0] += f" ({share:.1%} of global and local requests)"
    if local.sectors:
        parts.append(f"{fmt_number(local.sectors)} sectors")
    if local.spilling_requests:
        parts.append(f"{fmt_number(local.spilling_requests)} spilling requests")
    if local.spill_instructions:
        parts.append(f"{fmt_number(local.spill_instructions)} spill instructions")
    text.append(", ".join(parts))
    spill = local.spill_evidence
    if flagged and spill is not None:
        text.append(f" — register spills ({spill[2]}): see -Xptxas -v, __launch_bounds__.")
    elif flagged:
        text.append(
            " — local memory (stack arrays / dynamically indexed locals): no register spill "
            "in the report, registers below the per-thread cap."
        )
    else:
        text.append(f" — under the {T.local_traffic_warn:.0%} that makes it worth a flag.")
    return text


class MemoryPane(Pane):
    spec = MEMORY
    tab_label = "Memory"

    @staticmethod
    def render_body(detail: KernelDetail) -> list[RenderableType]:
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
            ["Access", "Inst.", "Requests", "Sectors", "Sect/Req", "Ideal", "Hit %"],
            global_local_rows(detail),
            title="L1/TEX global and local accesses",
            notes=[access_note(access_rows(detail.number))],
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
