"""Pane 6 — Source: the source lines and SASS instructions where warps stall most."""

from __future__ import annotations

import os

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.message import Message

from kernelscope.parsers.ncu import KernelDetail, SourceHotspots
from kernelscope.parsers.ncu.panes import SOURCE
from kernelscope.render.format import fmt_number
from kernelscope.screens.panes.base import Pane, blank

LINEINFO_HINT = (
    "Collect it with --import-source yes so the code text is stored, and build with "
    "-lineinfo (nvcc) so samples map to source lines:\n"
    "  ncu --section SourceCounters --import-source yes -o report ./app"
)


def _pct(part: int, total: int) -> str:
    return f"{100 * part / total:.2f}" if total else "0.00"


def location(file: str, line: int) -> str:
    return f"{os.path.basename(file)}:{line}" if file else "?"


def lines_table(hot: SourceHotspots) -> Table:
    table = Table(
        box=None, padding=(0, 1), title="Hottest source lines (warp stall samples)",
        title_justify="left", title_style="bold", header_style="bold", expand=True,
    )
    table.add_column("Location", no_wrap=True)
    table.add_column("Source", ratio=1, no_wrap=True, overflow="ellipsis")
    table.add_column("Samples %", justify="right", no_wrap=True)
    table.add_column("Samples", justify="right", no_wrap=True)
    table.add_column("Executed inst.", justify="right", no_wrap=True)
    for line in hot.lines:
        table.add_row(
            location(line.file, line.line), Text(line.text, style="cyan"),
            _pct(line.samples, hot.total_samples), fmt_number(line.samples),
            fmt_number(line.inst_executed),
        )
    return table


def sass_table(hot: SourceHotspots) -> Table:
    table = Table(
        box=None, padding=(0, 1), title="Hottest SASS instructions", title_justify="left",
        title_style="bold", header_style="bold", expand=True,
    )
    table.add_column("Address", no_wrap=True)
    table.add_column("SASS", ratio=1, no_wrap=True, overflow="ellipsis")
    table.add_column("Location", no_wrap=True)
    table.add_column("Samples %", justify="right", no_wrap=True)
    table.add_column("Executed inst.", justify="right", no_wrap=True)
    for sass in hot.sass:
        table.add_row(
            f"{sass.pc:#x}", Text(sass.sass, style="cyan"), location(sass.file, sass.line),
            _pct(sass.samples, hot.total_samples), fmt_number(sass.inst_executed),
        )
    return table


def render_hotspots(hot: SourceHotspots | None) -> RenderableType:
    if hot is None:
        return Text("The report holds no per-instruction samples for this kernel.", "dim")
    parts: list[RenderableType] = [
        Text(
            f"{fmt_number(hot.total_samples)} warp stall samples, "
            f"{fmt_number(hot.total_inst_executed)} instructions executed.",
        )
    ]
    if not hot.has_line_info:
        parts.append(
            Text("No line information: build with -lineinfo to map samples to source lines.",
                 style="yellow")
        )
    if hot.lines:
        parts.extend([blank(), lines_table(hot)])
    if hot.sass:
        parts.extend([blank(), sass_table(hot)])
    return Group(*parts)


class SourceNeeded(Message):
    """The source pane needs the hotspots of ``kernel_id`` (read them in a worker)."""

    def __init__(self, kernel_id: int) -> None:
        super().__init__()
        self.kernel_id = kernel_id


class SourcePane(Pane):
    spec = SOURCE
    tab_label = "Source"
    hint_extra = LINEINFO_HINT

    def update_content(self, detail: KernelDetail) -> None:
        if detail.source is not None:
            self.body.update(render_hotspots(detail.source))
            return
        self.body.update(Text("Reading the source counters…", style="dim italic"))
        self.post_message(SourceNeeded(detail.id))

    def show_hotspots(self, kernel_id: int, hot: SourceHotspots | None) -> None:
        """Show hotspots read by a worker, if they are still the current kernel's."""
        if self.detail is not None and self.detail.id == kernel_id:
            self.body.update(render_hotspots(hot))
