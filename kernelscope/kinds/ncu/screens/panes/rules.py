"""Pane 7 — NCU rules: every result of NVIDIA's own rules, the largest estimated speedup
first."""

from __future__ import annotations

from collections import Counter

from rich.console import RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from kernelscope.kinds.ncu.model import KernelDetail, RuleResult
from kernelscope.kinds.ncu.model.panes import RULES
from kernelscope.kinds.ncu.model.rules import TYPE_ORDER, rules_by_speedup
from kernelscope.kinds.ncu.render.ncu_markup import render_ncu_markup
from kernelscope.kinds.ncu.screens.panes.base import Pane, blank

TYPE_STYLES = {"ERR": "bold white on red", "WRN": "bold black on yellow", "OPT": "bold cyan",
               "INF": "dim"}


def speedup_text(rule: RuleResult) -> str:
    """``est. speedup 11.71% (global)``, or empty when NCU gives none."""
    if rule.speedup_pct is None:
        return ""
    kind = f" ({rule.speedup_type})" if rule.speedup_type else ""
    return f"est. speedup {rule.speedup_pct:,.2f}%{kind}"


def rule_header(rule: RuleResult) -> Table:
    head = Table.grid(expand=True, padding=(0, 1))
    head.add_column(no_wrap=True)
    head.add_column(ratio=1)
    head.add_column(justify="right", no_wrap=True)
    title = Text(rule.name or rule.rule, style="bold")
    if rule.title:
        title.append(f" — {rule.title}", style="")
    head.add_row(
        Text(f"[{rule.type}]", style=TYPE_STYLES.get(rule.type, "")),
        title,
        Text(speedup_text(rule), style="bold green"),
    )
    return head


def summary_line(rules: tuple[RuleResult, ...]) -> Text:
    counts = Counter(r.type for r in rules)
    parts = [f"{counts[t]} {t}" for t in TYPE_ORDER if counts[t]]
    return Text(f"{len(rules)} rule results: " + ", ".join(parts)
                + " (the largest estimated speedup first)", style="bold")


class RulesPane(Pane):
    spec = RULES
    tab_label = "Rules"

    @staticmethod
    def render_body(detail: KernelDetail) -> list[RenderableType]:
        if not detail.rules:
            return [
                Text(
                    "NCU reported no rule results for this kernel. Rules run on the sections "
                    "collected: --set full runs all of them.",
                    style="dim",
                )
            ]
        out: list[RenderableType] = [summary_line(detail.rules)]
        for rule in rules_by_speedup(detail.rules):
            out.extend([blank(), rule_header(rule)])
            if rule.message:
                out.append(Padding(render_ncu_markup(rule.message), (0, 0, 0, 6)))
        return out
