"""View 8 — the critical path: what every step waits on (docs/critical_path.md).

The first table is the path summed over the steps, part by part (a kernel family, a CPU
range, an API call, launch overhead, a synchronisation); the second lists the kernel families
with their time on the path and their slack: how much later their most critical launch could
end before a step does. A family with time on the path is worth making faster; one with slack
is not, until another path becomes critical (``kernelscope whatif`` says when).
"""

from __future__ import annotations

import polars as pl
from textual.app import ComposeResult
from textual.widgets import Static

from kernelscope.core.durations import fmt_ns
from kernelscope.core.units import fmt_float, fmt_int
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.export.critical_text import NO_STEPS
from kernelscope.timeline.screens.timeline_views.tables import TableView, describe_by, name_column
from kernelscope.timeline.screens.widgets.timeline_table import Column, FrameView

NO_SLACK = "no step waits on it"


def _slack(value: object) -> str:
    return NO_SLACK if value is None else fmt_ns(int(value))  # type: ignore[call-overload]


def path_note(data: TimelineData) -> str:
    """The line above the tables: the median step and what its path is made of."""
    cp = data.critical_path
    steps = cp.steps
    if not steps.height:
        return NO_STEPS
    named = steps["name"].drop_nulls()
    source = (f"steps: the {steps.height} '{named[0]}'… ranges" if named.len()
              else "no step ranges: the whole trace as one step")
    kinds = ", ".join(f"{kind} {pct:.0f} %" for kind, _, pct in cp.kinds.head(4).iter_rows())
    return f"Median step {fmt_ns(cp.median_step_ns)} ({source}); on the path: {kinds}."


def parts_frame(data: TimelineData) -> pl.DataFrame:
    """The path's parts, summed over the steps: Kind, Part, On the path (ns), Count, Share."""
    return data.critical_path.breakdown.select(
        pl.col("kind").alias("Kind"), pl.col("name").alias("Part"),
        pl.col("ns").alias("On the path (ns)"), pl.col("count").cast(pl.Int64).alias("Count"),
        pl.col("pct").alias("Share (%)"))


def families_frame(data: TimelineData) -> pl.DataFrame:
    """The kernel families: Launches, GPU time, On the path (ns), Slack, Family."""
    return data.critical_path.families.filter(pl.col("kind") == "kernel").select(
        pl.col("launches").cast(pl.Int64).alias("Launches"), pl.col("gpu_ns").alias("GPU (ns)"),
        pl.col("path_ns").alias("On the path (ns)"), pl.col("slack_ns").alias("Slack"),
        pl.col("name").alias("Family"))


class CriticalView(TableView):
    DEFAULT_CSS = """
    CriticalView > #critical-families-frame {
        height: 1fr;
    }
    """

    VIEW_ID = "critical-view"

    def compose(self) -> ComposeResult:
        yield Static("", classes="table-note", id="critical-note", markup=False)
        yield FrameView(
            "What the steps wait on: the critical path, part by part",
            [Column("Kind", "Kind", str, numeric=False),
             Column("On the path (ns)", "On the path (ns)", fmt_int),
             Column("Count", "Count", fmt_int, priority=1),
             Column("Share (%)", "Share (%)", lambda v: fmt_float(v, 1)), name_column("Part")],
            sort="On the path (ns)", noun="parts", describe=describe_by("Part"),
            table_id="critical-parts-table")
        yield FrameView(
            "Kernel families: time on the path, and slack (how much later before a step moves)",
            [Column("Launches", "Launches", fmt_int), Column("GPU (ns)", "GPU (ns)", fmt_int),
             Column("On the path (ns)", "On the path (ns)", fmt_int),
             Column("Slack", "Slack", _slack), name_column("Family", kernel_names=True)],
            sort="On the path (ns)", noun="families", describe=describe_by("Family"),
            table_id="critical-families-table", id="critical-families-frame")

    def show(self, data: TimelineData) -> None:
        self.query_one("#critical-note", Static).update(path_note(data))
        frames = list(self.query(FrameView))
        frames[0].set_frame(parts_frame(data))
        frames[1].set_frame(families_frame(data))
