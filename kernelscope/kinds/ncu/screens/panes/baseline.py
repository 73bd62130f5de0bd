"""The strip at the top of every kernel-detail pane while a baseline kernel is marked (``b``):
this pane's key metrics against the baseline's, with their change."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from kernelscope.core.kernel_names import short_name
from kernelscope.kinds.ncu.analysis.baseline import compare_to_baseline
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.render.changes import fmt_speedup, metric_row
from kernelscope.kinds.ncu.screens.widgets.metric_table import grid_table

NO_METRICS = ("rules", "raw")
"""Panes with no key metrics of their own: the strip gives the duration alone."""


def baseline_view(
    baseline: KernelDetail | None, detail: KernelDetail, pane: str
) -> RenderableType | None:
    """What the pane shows of ``detail`` against ``baseline`` (None without a baseline)."""
    if baseline is None:
        return None
    name = short_name(baseline.demangled, 40)
    if baseline.id == detail.id:
        return Text(f"Baseline: this kernel ({name}); b on it clears the baseline.",
                    style="bold magenta")
    wanted = "sol" if pane in ("diagnosis", *NO_METRICS) else pane
    comparison = compare_to_baseline(baseline, detail, wanted)
    head = Text()
    head.append(f"vs baseline kernel {baseline.id} ({name}): ", style="bold magenta")
    head.append(f"{fmt_speedup(comparison.speedup)} the baseline's speed")
    if pane == "diagnosis":
        head.append(" · bottleneck ")
        head.append(comparison.label_change or f"{comparison.labels[1]} (unchanged)",
                    style="bold")
        head.append(f" · flags resolved: {', '.join(comparison.flags_resolved) or 'none'}"
                    f" · new: {', '.join(comparison.flags_new) or 'none'}")
    rows = [metric_row(c)[1:] for c in comparison.metrics]
    if pane in NO_METRICS or pane == "diagnosis":
        rows = [r for r, c in zip(rows, comparison.metrics, strict=True)
                if c.name == "gpu__time_duration.sum"]
    if not rows:
        return head
    duration = next((c for c in comparison.metrics if c.name == "gpu__time_duration.sum"), None)
    if duration is not None and pane not in ("sol", "diagnosis", *NO_METRICS):
        rows.insert(0, metric_row(duration)[1:])
    return Group(head, grid_table(("Metric", "Baseline", "This kernel", "Change"), rows))
