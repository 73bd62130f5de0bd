"""View 6 — GPU idle gaps: their sizes, launch spacing per stream, and every gap (sortable).

``enter`` on a gap opens the timeline there with its explanation in the side panel.
"""

from __future__ import annotations

import polars as pl
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from kernelscope.core.durations import fmt_ns
from kernelscope.core.units import fmt_int
from kernelscope.timeline.analysis.timeline_data import EXPLAIN_LIMIT, TimelineData
from kernelscope.timeline.analysis.timeline_view import Gap
from kernelscope.timeline.screens.timeline_views.tables import TableView
from kernelscope.timeline.screens.widgets.timeline_table import Column, FrameView, Row


def gap_of(row: Row) -> Gap:
    return Gap(int(row["device"]), int(row["start_ns"]), int(row["end_ns"]))


def describe(row: Row) -> str:
    return f"GPU {row['device']} idle {fmt_ns(row['duration_ns'])} at {fmt_ns(row['at_ns'])}"


def sizes_text(data: TimelineData) -> Text:
    """Gap count and idle time per decade of size, then launch spacing per stream."""
    text = Text()
    hist = data.histogram.filter(pl.col("gaps") > 0)
    if not hist.height:
        text.append("Gap sizes ", style="bold")
        text.append("no gaps between GPU operations.")
    devices = hist["device"].unique(maintain_order=True).to_list()
    for n, device in enumerate(devices):
        if n:
            text.append("\n")
        label = f"Gap sizes GPU {device} " if len(devices) > 1 else "Gap sizes "
        text.append(label, style="bold")
        rows = hist.filter(pl.col("device") == device).iter_rows(named=True)
        text.append(" · ".join(
            f"{row['bucket']}: {row['gaps']:,} ({fmt_ns(row['total_ns'])})" for row in rows
        ))
    for row in data.launches.head(4).iter_rows(named=True):
        text.append(f"\nStream {row['stream']} (GPU {row['device']}) ", style="bold")
        text.append(
            f"{row['kernels']:,} kernels, median kernel {fmt_ns(row['median_kernel_ns'])}, "
            f"median gap {fmt_ns(row['median_gap_ns'])} before the next"
        )
    if data.launches.height > 4:
        text.append(f"\n… and {data.launches.height - 4} more streams", style="dim")
    return text


def gaps_frame(data: TimelineData) -> pl.DataFrame:
    """Every gap with its cause (and the calls behind it, or why none can be named); a gap
    that was not explained says why not."""
    explained = list(data.explanations.values())
    cpu = pl.DataFrame(
        {
            "device": [e.device for e in explained],
            "start_ns": [e.start_ns for e in explained],
            "why": [
                e.cause + (f": {e.detail or e.reason}" if e.detail or e.reason else "")
                for e in explained
            ],
            "cpu": [", ".join(f"{a.name}" for a in e.cpu[:3]) for e in explained],
        },
        schema={"device": pl.Int64, "start_ns": pl.Int64, "why": pl.String, "cpu": pl.String},
    )
    short = f"short (< {fmt_ns(data.large_gap_ns, compact=True)}): not explained one by one"
    beyond = f"not among the {EXPLAIN_LIMIT:,} longest: not explained"
    return (
        data.gaps.join(cpu, on=["device", "start_ns"], how="left", maintain_order="left")
        .with_columns(
            (pl.col("start_ns") - data.start_ns).alias("at_ns"),
            pl.when(pl.col("why").is_not_null()).then(pl.col("why"))
            .when(pl.col("duration_ns") < data.large_gap_ns).then(pl.lit(short))
            .otherwise(pl.lit(beyond)).alias("cause"),
            pl.col("cpu").fill_null(""),
        )
    )


class GapsView(TableView):
    VIEW_ID = "gaps-view"

    def compose(self) -> ComposeResult:
        yield Static("", classes="table-note", id="gaps-note")
        yield FrameView(
            "GPU idle gaps — enter: open on the timeline with the cause",
            [
                Column("duration_ns", "Idle", fmt_ns),
                Column("at_ns", "At", fmt_ns),
                Column("device", "GPU", fmt_int),
                Column("cpu", "CPU meanwhile", str, numeric=False, priority=1),
                Column("cause", "Cause", str, numeric=False, flex=True),
            ],
            sort="duration_ns", noun="gaps", describe=describe, choosable=True,
            table_id="gaps-table",
        )

    def show(self, data: TimelineData) -> None:
        self.query_one("#gaps-note", Static).update(sizes_text(data))
        self.query_one(FrameView).set_frame(gaps_frame(data))
