"""Pane 1 — Launch: the launch shape, its resources per block, and how many waves it runs."""

from __future__ import annotations

from rich.console import RenderableType

from kernelscope.core.kernel_identity import format_dims
from kernelscope.core.units import NOT_AVAILABLE, fmt_nonzero, fmt_number
from kernelscope.kinds.ncu.analysis.diagnosis import DEFAULT_THRESHOLDS, derived
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.model.panes import LAUNCH
from kernelscope.kinds.ncu.screens.panes.base import Pane, blank
from kernelscope.kinds.ncu.screens.widgets.metric_table import (
    Row,
    SectionTable,
    derived_row,
    metric_row,
    rows_table,
)

tail_wave_fill = derived.tail_wave_fill


def launch_reading(detail: KernelDetail) -> str | None:
    """The launch step's verdict on the grid, as the diagnosis reaches it: less than one wave
    (the grid cannot fill the GPU), or a last wave that leaves SMs idle (``tail-effect``)."""
    waves = detail.number("launch__waves_per_multiprocessor")
    fill = derived.tail_wave_fill(waves)
    if fill is None or waves is None:
        return None
    if waves < DEFAULT_THRESHOLDS.waves_fill:
        return f"[yellow]Less than one wave: only {fmt_nonzero(fill)}% of the SMs' slots are used."
    loss = derived.tail_cost(
        waves,
        derived.active_sm_share(detail.metrics),
        detail.number("sm__warps_active.avg.pct_of_peak_sustained_active"),
        detail.number("sm__maximum_warps_per_active_cycle_pct"),
    )
    many = waves >= DEFAULT_THRESHOLDS.tail_many_waves
    if loss is not None and not many and loss >= DEFAULT_THRESHOLDS.tail_min_loss:
        return (
            f"[yellow]{waves:.2f} waves: the last wave fills only {fill:.0f}% of the GPU, "
            f"leaving {loss:.0%} of the SM time idle (tail effect)."
        )
    return None


class LaunchPane(Pane):
    spec = LAUNCH
    tab_label = "Launch"

    @staticmethod
    def render_body(detail: KernelDetail) -> list[RenderableType]:
        grid_size = detail.number("launch__grid_size")
        block_size = detail.number("launch__block_size")
        waves = detail.number("launch__waves_per_multiprocessor")
        fill = tail_wave_fill(waves)
        rows = [
            Row("Grid", format_dims(detail.grid), "", f"{fmt_number(grid_size)} blocks"),
            Row("Block", format_dims(detail.block), "", f"{fmt_number(block_size)} threads"),
            metric_row(detail, "launch__thread_count", "Threads"),
            metric_row(detail, "launch__registers_per_thread", "Registers per thread"),
            metric_row(detail, "launch__shared_mem_per_block_static", "Static shared mem / block"),
            metric_row(
                detail, "launch__shared_mem_per_block_dynamic", "Dynamic shared mem / block"
            ),
            metric_row(detail, "launch__shared_mem_per_block_driver", "Driver shared mem / block"),
            metric_row(detail, "launch__sm_count", "SMs"),
            metric_row(detail, "launch__waves_per_multiprocessor", "Waves per SM"),
            derived_row(
                "Tail wave fill",
                NOT_AVAILABLE if fill is None else fmt_number(fill),
                "%" if fill is not None else "",
                "how full the last wave is: the fractional part of waves per SM (100 % when whole)",
            ),
        ]
        cluster = detail.number("launch__cluster_size")
        if cluster:
            rows.append(metric_row(detail, "launch__cluster_size", "Cluster size"))
        out: list[RenderableType] = [rows_table(rows, title="Launch")]
        note = launch_reading(detail)
        if note is not None:
            out.append(note)
        if "LaunchStats" in detail.section_metrics:
            out.extend([blank(), SectionTable(detail, "LaunchStats")])
        return out
