"""Pane 2 — Speed Of Light: how close compute and each memory level come to their peaks."""

from __future__ import annotations

from rich.console import RenderableType

from kernelscope.core.shares import fmt_pct
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.model.panes import SOL
from kernelscope.kinds.ncu.screens.panes.base import Pane, blank
from kernelscope.kinds.ncu.screens.widgets.metric_table import SectionTable
from kernelscope.ui.widgets.bars import BarRow, bar_table, pct_row

THROUGHPUTS = (
    ("Compute (SM)", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("Memory", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
    ("  L1/TEX cache", "l1tex__throughput.avg.pct_of_peak_sustained_active"),
    ("  L2 cache", "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("  DRAM", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
)

BREAKDOWN_TITLES = {
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "Compute (SM) breakdown",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "Memory breakdown",
}


def breakdown_label(name: str) -> str:
    """A breakdown metric's name without its ``.avg.pct_of_peak_…`` suffix."""
    return name.split(".")[0]


def breakdown_rows(detail: KernelDetail, metric: str) -> list[BarRow]:
    """The breakdown sub-metrics of ``metric`` as bars, sorted by value, highest first."""
    values = [(name, detail.number(name)) for name in detail.breakdowns.get(metric, ())]
    present = [(name, v) for name, v in values if v is not None]
    present.sort(key=lambda item: (-item[1], item[0]))
    return [pct_row(breakdown_label(name), v, fmt_pct(v)) for name, v in present]


class SolPane(Pane):
    spec = SOL
    tab_label = "SOL"

    @staticmethod
    def render_body(detail: KernelDetail) -> list[RenderableType]:
        rows = []
        for label, name in THROUGHPUTS:
            value = detail.number(name)
            rows.append(pct_row(label, value, fmt_pct(value), "%" if value is not None else ""))
        out: list[RenderableType] = [
            bar_table(rows, title="Throughput, % of peak", label_width=16)
        ]
        if "SpeedOfLight" in detail.section_metrics:
            out.extend([blank(), SectionTable(detail, "SpeedOfLight")])
        for metric, title in BREAKDOWN_TITLES.items():
            bars = breakdown_rows(detail, metric)
            if bars:
                out.extend([blank(), bar_table(bars, title=f"{title}, % of peak")])
        return out
