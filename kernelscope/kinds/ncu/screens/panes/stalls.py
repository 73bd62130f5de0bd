"""Pane 5 — Warp stalls: why warps wait, next to how busy the schedulers' issue slots are."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from kernelscope.core.shares import fmt_pct
from kernelscope.kinds.ncu.analysis.diagnosis import DEFAULT_THRESHOLDS, derived
from kernelscope.kinds.ncu.analysis.diagnosis import names as n
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.model.panes import STALL_PREFIX, STALL_SUFFIX, STALLS
from kernelscope.kinds.ncu.screens.panes.base import Pane
from kernelscope.kinds.ncu.screens.widgets.metric_table import metric_row, rows_table
from kernelscope.ui.widgets.bars import BarRow, bar_table, pct_row

ISSUE_ACTIVE = n.ISSUE_ACTIVE


def stall_label(detail: KernelDetail, name: str) -> str:
    """``Long Scoreboard`` for the long-scoreboard stall metric."""
    metric = detail.metric(name)
    if metric is not None and metric.label:
        return metric.label.removeprefix("Stall ")
    reason = name.removeprefix(STALL_PREFIX).removesuffix(STALL_SUFFIX)
    return reason.replace("_", " ").title()


def ranked_stalls(detail: KernelDetail) -> list[tuple[str, float]]:
    """(reason, cycles per issue-active) for every stall reason, largest first (the ranking
    the Markdown record and the diagnosis use: ``derived.ranked_stalls``)."""
    ranked = derived.ranked_stalls(detail.metrics, detail.stall_reasons)
    return [(stall_label(detail, name), v) for name, v in ranked]


def reading(detail: KernelDetail) -> Text:
    """One line: do the stalls matter (the diagnosis's own test, ``issue_underused_pct`` of
    the thresholds), and which one leads."""
    issue = detail.number(ISSUE_ACTIVE)
    top = derived.top_stalls(derived.ranked_stalls(detail.metrics, detail.stall_reasons), 1)
    text = Text()
    busy = derived.issue_slots_busy(issue)
    if issue is None or busy is None:
        return Text("Issue-slot utilisation was not collected (--section SchedulerStats).", "dim")
    limit = f"{DEFAULT_THRESHOLDS.issue_underused_pct:.0f}"
    if busy:
        text.append(
            f"Issue slots are busy ({fmt_pct(issue)} % ≥ {limit} %): ", style="bold green"
        )
        text.append("the schedulers issue on most cycles, so the stall reasons describe normal "
                    "waiting and no stall flag is raised — reduce the instructions issued "
                    "instead.")
    else:
        text.append(
            f"Issue slots are busy only {fmt_pct(issue)} % of cycles (< {limit} %): ",
            style="bold yellow",
        )
        text.append("stalls limit throughput")
        if top:
            name, value = top[0]
            text.append(
                f"; the top reason is {stall_label(detail, name)} ({value:,.2f} cycles per "
                "instruction)"
            )
        text.append(".")
    return text


class StallsPane(Pane):
    spec = STALLS
    tab_label = "Stalls"

    def compose_content(self) -> ComposeResult:
        yield Static("", id="stalls-reading", classes="pane-body")
        with Horizontal(id="stalls-row"):
            yield Static("", id=f"{self.spec.id}-body", classes="pane-body")
            yield Static("", id="stalls-scheduler", classes="pane-body")

    def update_content(self, detail: KernelDetail) -> None:
        self.query_one("#stalls-reading", Static).update(reading(detail))
        self.body.update(Group(*self.render_body(detail)))
        self.query_one("#stalls-scheduler", Static).update(self.scheduler_table(detail))

    @staticmethod
    def render_body(detail: KernelDetail) -> list[RenderableType]:
        ranked = ranked_stalls(detail)
        if not ranked:
            return [Text("No stall reasons in this report (--section WarpStateStats).", "dim")]
        peak = max(v for _, v in ranked) or 1.0
        total = sum(v for _, v in ranked) or 1.0
        bars = [
            BarRow(label, v / peak, f"{v:,.2f}", "magenta" if i < 3 else "blue",
                   f"{100 * v / total:4.1f}%")
            for i, (label, v) in enumerate(ranked)
        ]
        return [bar_table(bars, title="Stall reasons, cycles per issued instruction")]

    @staticmethod
    def scheduler_table(detail: KernelDetail) -> RenderableType:
        issue = detail.number(ISSUE_ACTIVE)
        return Group(
            bar_table([pct_row("Issue slots", issue, f"{fmt_pct(issue)} %")],
                      title="Scheduler", label_width=11),
            rows_table(
                [
                    metric_row(detail, "smsp__issue_active.avg.per_cycle_active", "Issued warp"),
                    metric_row(detail, "smsp__warps_eligible.avg.per_cycle_active", "Eligible"),
                    metric_row(detail, "smsp__warps_active.avg.per_cycle_active", "Active"),
                    metric_row(detail, "smsp__maximum_warps_avg_per_active_cycle", "Theoretical"),
                ],
                title="Warps per scheduler",
            ),
            rows_table(
                [
                    metric_row(
                        detail, "smsp__average_warp_latency_per_inst_issued.ratio",
                        "Per issued inst.",
                    ),
                ],
                title="Warp cycles",
            ),
        )
