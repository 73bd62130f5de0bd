"""View 1 — Overview: what was traced, how busy each GPU was, the top kernels and the findings.

This is step 0 of the method: before tuning a kernel, confirm that kernels are where the time
goes, or that the GPU mostly waits (launches, copies, syncs, the CPU).
"""

from __future__ import annotations

from collections import Counter

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from kernelscope.core.durations import fmt_ns
from kernelscope.core.kernel_names import fit_name
from kernelscope.core.shares import fmt_pct
from kernelscope.core.words import plural
from kernelscope.timeline.analysis.gpu_breakdown import COMMUNICATION
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.profilers import hint
from kernelscope.timeline.screens.widgets.timeline_findings import findings_text, severity_counts
from kernelscope.ui.widgets.bars import BarRow, bar_table, level_style

TOP_KERNELS = 5
BUSY_HIGH = 80.0
BUSY_LOW = 50.0


def facts_table(data: TimelineData) -> Table:
    report = data.report
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    procs = ", ".join(f"{p.name} [{p.pid}]" for p in report.processes[:3])
    if len(report.processes) > 3:
        procs += f", … ({len(report.processes)})"
    source = data.path.name + (f" · nsys {report.nsys_version}" if report.nsys_version else "")
    table.add_row("Report", source)
    table.add_row("Processes", procs or "none traced")
    devices = "; ".join(
        f"{d.name} (GPU {d.id}" + (f", {d.sm_count} SMs)" if d.sm_count else ")")
        for d in report.devices
    )
    table.add_row("Devices", devices or "none (no CUDA activity traced)")
    util = data.utilization
    span = f"{fmt_ns(report.duration_ns)} recorded"
    if util.height:
        lo = int(util["start_ns"].min()) - report.start_ns  # type: ignore[arg-type]
        hi = int(util["end_ns"].max()) - report.start_ns  # type: ignore[arg-type]
        span += f" · GPU active from {fmt_ns(lo)} to {fmt_ns(hi)} ({fmt_ns(hi - lo)})"
    table.add_row("Span", span)
    work = [
        plural(report.kernels.height, "kernel"),
        plural(report.memcpy.height, "memcpy", "memcpys"),
        plural(report.memset.height, "memset"),
        plural(report.cuda_api.height, "CUDA API call"),
        plural(int(data.nvtx["Instances"].sum()) if data.nvtx.height else 0, "NVTX range"),
    ]
    if not report.has_cuda_trace:
        work.insert(0, "no CUDA trace (a CPU-only capture)")
    table.add_row("Work", " · ".join(work))
    return table


def busy_rows(data: TimelineData) -> list[BarRow]:
    rows = []
    for row in data.utilization.iter_rows(named=True):
        pct = float(row["utilization_pct"])
        rows.append(BarRow(
            f"{row['name']} (GPU {row['device']})", pct / 100, fmt_pct(pct, 1, sign=True),
            level_style(pct),
            f"of {fmt_ns(row['span_ns'])} · {plural(int(row['ops']), 'op')}",
        ))
    return rows


def gap_line(data: TimelineData) -> Text:
    big = data.large_gaps
    text = Text()
    text.append("Large gaps ", style="bold")
    threshold = fmt_ns(data.large_gap_ns, compact=True)
    if not big:
        text.append(f"none of {threshold} or more.")
        return text
    idle = sum(g.duration_ns for g in big)
    text.append(f"{plural(len(big), 'gap')} of {threshold} or more, {fmt_ns(idle)} idle in all")
    causes = Counter(e.cause for e in data.explanations.values())
    if causes:
        text.append(" — causes: ")
        text.append(" · ".join(f"{cause} {n}" for cause, n in causes.most_common()),
                    style="yellow")
    return text


def verdict(data: TimelineData) -> Text:
    """Step 0: are the kernels the time, or does the GPU wait?"""
    busy = data.gpu_busy_pct
    text = Text()
    text.append("Verdict ", style="bold")
    if busy is None:
        how = hint(data.report.profiler, "--trace=cuda")
        text.append(f"no GPU work was traced (profile with {how}).")
        return text
    top = data.kernels.row(0, named=True) if data.kernels.height else None
    top_part = (
        f"the top kernel, {fit_name(data.short_name(str(top['Name'])), 40)}, takes "
        f"{top['Time (%)']:.1f} % of the kernel time"
        if top else "no kernel ran"
    )
    if busy >= BUSY_HIGH:
        text.append(f"the GPU is busy {busy:.1f} % of its active span, so the kernels are the "
                    f"time: {top_part}; {_next_step(top)}.", style="green")
    elif busy < BUSY_LOW:
        text.append(f"the GPU is idle {100 - busy:.1f} % of its active span: the time goes "
                    "between kernels (launches, copies, syncs, the CPU). Step through the gaps "
                    "(2, then g) before tuning a kernel; " + top_part + ".", style="yellow")
    else:
        text.append(f"the GPU is busy {busy:.1f} % of its active span: both the gaps (6) and "
                    f"the kernels matter; {top_part}.", style="yellow")
    return text


def _next_step(top: dict[str, object] | None) -> str:
    """Where the top kernel's question goes: a communication kernel's is whether it overlaps
    compute and how long its ranks wait for each other, not its own code."""
    if top is not None and COMMUNICATION.search(str(top["Name"])):
        return ("it is communication: check that it overlaps compute and how long ranks wait "
                "in it (open the ranks' traces together)")
    return "study it in Nsight Compute"


def metrics_line(data: TimelineData) -> Text:
    """What the GPU metrics say, per sampled device (or that there are none and how to
    collect them): the same verdicts as the exports' ``## GPU metrics``."""
    text = Text()
    text.append("GPU metrics ", style="bold")
    verdicts = data.metrics_verdicts
    for n, v in enumerate(verdicts):
        if n:
            text.append("\n")
        text.append(("" if v.device is None else f"device {v.device}: ") + v.sentence)
    if data.report.gpu_metrics.present:
        text.append(" (m on the timeline (2) draws them as lanes.)", style="dim")
    return text


def top_kernel_rows(data: TimelineData, count: int = TOP_KERNELS) -> list[BarRow]:
    rows = []
    for row in data.kernels.head(count).iter_rows(named=True):
        pct = float(row["Time (%)"])
        rows.append(BarRow(
            fit_name(data.short_name(str(row["Name"])), 48), pct / 100,
            fmt_pct(pct, 1, sign=True), "green",
            f"{fmt_ns(row['Total Time (ns)'])} · {row['Instances']:,}× · "
            f"avg {fmt_ns(row['Avg (ns)'])}",
        ))
    return rows


def overview_renderables(data: TimelineData) -> list[RenderableType]:
    parts: list[RenderableType] = [facts_table(data), Text()]
    busy = busy_rows(data)
    if busy:
        parts.append(bar_table(busy, title="GPU busy (of each GPU's active span)", label_max=30))
    parts += [Text(), verdict(data), gap_line(data), metrics_line(data), Text()]
    kernels = top_kernel_rows(data)
    if kernels:
        title = f"Top kernels by GPU time ({min(TOP_KERNELS, data.kernels.height)} of " \
                f"{data.kernels.height:,} names; all in 3)"
        parts.append(bar_table(kernels, title=title, label_max=48))
        parts.append(Text())
    heading = Text()
    heading.append("Findings ", style="bold")
    heading.append(severity_counts(data.findings))
    parts += [heading, findings_text(data.findings, data.report.start_ns, short=data.short_name)]
    return parts


class OverviewView(VerticalScroll):
    """The report at a glance; scrolls when the terminal is short."""

    DEFAULT_CSS = """
    OverviewView {
        height: 1fr;
        padding: 0 1;
    }
    OverviewView > #overview-body {
        height: auto;
    }
    """

    def __init__(self) -> None:
        super().__init__(id="overview-view")

    def compose(self) -> ComposeResult:
        yield Static("", id="overview-body")

    def show(self, data: TimelineData) -> None:
        self.query_one("#overview-body", Static).update(Group(*overview_renderables(data)))
