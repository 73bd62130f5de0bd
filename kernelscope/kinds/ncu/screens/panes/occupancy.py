"""Pane 3 — Occupancy: theoretical vs achieved, what limits it, and how it would change."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from kernelscope.core.shares import fmt_pct
from kernelscope.core.units import fmt_number
from kernelscope.kinds.ncu.analysis.diagnosis import DEFAULT_THRESHOLDS, derived
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.model.panes import OCCUPANCY, OCCUPANCY_LIMITS
from kernelscope.kinds.ncu.screens.panes.base import Pane, blank
from kernelscope.kinds.ncu.screens.widgets.metric_table import SectionTable, grid_table
from kernelscope.ui.widgets.bars import bar_table, pct_row
from kernelscope.ui.widgets.chart import ChartData, PlotextChart

T = DEFAULT_THRESHOLDS
CURVE_BLOCK = "launch__occupancy_per_block_size"
CURVE_REGISTERS = "launch__occupancy_per_register_count"
CURVE_SHARED = "launch__occupancy_per_shared_mem_size"


def binding_limits(detail: KernelDetail) -> tuple[list[tuple[str, float | None]], tuple[str, ...]]:
    """Each resource's block limit per SM, and the labels of those that bind (the same
    choice as the diagnosis's ``occupancy-limiter``: ``derived.limiting_resources``)."""
    limits = [(label, detail.number(name)) for label, name in OCCUPANCY_LIMITS]
    known = derived.block_limits(detail.metrics, OCCUPANCY_LIMITS)
    return limits, derived.limiting_resources(known)


def occupancy_reading(detail: KernelDetail) -> Text | None:
    """Why occupancy is what it is, in the diagnosis's terms: the grid that cannot fill the
    GPU, or warps finishing unevenly (achieved well below theoretical)."""
    theoretical = detail.number("sm__maximum_warps_per_active_cycle_pct")
    achieved = detail.number("sm__warps_active.avg.pct_of_peak_sustained_active")
    fills = derived.launch_fills_gpu(detail.metrics)
    if derived.grid_limits_occupancy(achieved, theoretical, fills):
        every_sm = derived.GridFit(
            detail.number("launch__grid_size"), derived.sm_count(detail.metrics), None
        ).every_sm_has_block
        where = (
            "every SM has a block but fewer than its resources allow"
            if every_sm
            else "SMs get no block"
        )
        return Text(
            f"The grid cannot fill the GPU: {where}, so achieved occupancy is low because of "
            "the launch, not a per-SM resource (see Launch).",
            style="yellow",
        )
    gap = T.occupancy_gap_pts
    if theoretical is not None and achieved is not None and theoretical - achieved > gap:
        return Text(
            f"Achieved is {theoretical - achieved:.0f} points below theoretical: "
            "warps finish unevenly or blocks wait to launch (tail effect, imbalance).",
            style="yellow",
        )
    return None


def curve_charts(detail: KernelDetail) -> list[ChartData]:
    """The occupancy curves, each marked at the kernel's own value."""
    y_max = detail.number("device__attribute_max_warps_per_multiprocessor")
    charts = []
    for curve, metric, axis in (
        (CURVE_BLOCK, "launch__block_size", "threads per block"),
        (CURVE_REGISTERS, "launch__registers_per_thread", "registers per thread"),
    ):
        points = detail.curves.get(curve)
        if points is not None:
            value = detail.number(metric)
            charts.append(
                ChartData(
                    f"Warps per SM vs {axis} (│ this kernel: {fmt_number(value)})",
                    tuple(x for x, _ in points.points), tuple(y for _, y in points.points),
                    axis, value, y_max,
                )
            )
    shared = detail.curves.get(CURVE_SHARED)
    if shared is not None:
        static = detail.number("launch__shared_mem_per_block_static") or 0.0
        dynamic = detail.number("launch__shared_mem_per_block_dynamic") or 0.0
        used_kb = (static + dynamic) / 1024
        charts.append(
            ChartData(
                "Warps per SM vs shared memory per block, KiB "
                f"(│ this kernel: {fmt_number(used_kb)} KiB)",
                tuple(x / 1024 for x, _ in shared.points), tuple(y for _, y in shared.points),
                "shared memory per block (KiB)", used_kb, y_max,
            )
        )
    return charts


class OccupancyPane(Pane):
    spec = OCCUPANCY
    tab_label = "Occupancy"

    def compose_content(self) -> ComposeResult:
        yield Static("", classes="pane-body", id=f"{self.spec.id}-body")
        for i in range(3):
            yield PlotextChart(id=f"occupancy-chart-{i}", classes="occupancy-chart")
        yield Static("", classes="pane-body", id="occupancy-section")

    def update_content(self, detail: KernelDetail) -> None:
        super().update_content(detail)
        charts = curve_charts(detail)
        for i, chart in enumerate(self.query(PlotextChart).results(PlotextChart)):
            data = charts[i] if i < len(charts) else None
            chart.display = data is not None
            chart.show(data)
        parts: list[RenderableType] = []
        if not charts:
            parts.append(Text("The report holds no occupancy curves for this kernel.", "dim"))
        if "Occupancy" in detail.section_metrics:
            parts.append(SectionTable(detail, "Occupancy"))
        self.query_one("#occupancy-section", Static).update(Group(*parts))

    @staticmethod
    def render_body(detail: KernelDetail) -> list[RenderableType]:
        theoretical = detail.number("sm__maximum_warps_per_active_cycle_pct")
        achieved = detail.number("sm__warps_active.avg.pct_of_peak_sustained_active")
        theo_warps = detail.number("sm__maximum_warps_avg_per_active_cycle")
        ach_warps = detail.number("sm__warps_active.avg.per_cycle_active")
        bars = bar_table(
            [
                pct_row("Theoretical", theoretical, f"{fmt_pct(theoretical)} %",
                        f"{fmt_number(theo_warps)} warps/SM"),
                pct_row("Achieved", achieved, f"{fmt_pct(achieved)} %",
                        f"{fmt_number(ach_warps)} warps/SM"),
            ],
            title="Occupancy, % of the SM's warp slots",
            label_width=12,
        )
        limits, binding_labels = binding_limits(detail)
        rows = []
        for label, value in limits:
            binding = label in binding_labels
            mark = Text("◀ limits occupancy", style="bold yellow") if binding else Text("")
            rows.append(
                [Text(label, style="bold" if binding else ""),
                 Text(fmt_number(value), style="bold yellow" if binding else ""), mark]
            )
        table = grid_table(["Resource", "Blocks per SM", ""], rows, title="Block limits per SM")
        out: list[RenderableType] = [bars, blank(), table]
        note = occupancy_reading(detail)
        if note is not None:
            out.append(note)
        out.append(blank())
        return out
