"""A metric compared with another launch of a kernel, as text: changes, speedups, a metric's
row (the diff and the kernel list's baseline show them alike)."""

from __future__ import annotations

from kernelscope.core.units import NOT_AVAILABLE, fmt_value
from kernelscope.kinds.ncu.analysis.metric_changes import MetricChange

MINUS = "−"
PANE_TITLES = {
    "launch": "Launch",
    "sol": "Speed Of Light",
    "occupancy": "Occupancy",
    "memory": "Memory",
    "stalls": "Warp stalls",
    "source": "Source",
}



def fmt_change(pct: float | None) -> str:
    """``+5.3 %``, ``−42.1 %``, ``0.0 %``; ``n/a`` when it cannot be said."""
    if pct is None:
        return NOT_AVAILABLE
    shown = round(pct, 1)  # a change too small to show has no sign: never "−0.0 %"
    sign = "+" if shown > 0 else (MINUS if shown < 0 else "")
    return f"{sign}{abs(shown):,.1f} %"


def fmt_speedup(value: float | None) -> str:
    """``1.73×`` (before / after duration)."""
    return NOT_AVAILABLE if value is None else f"{value:,.2f}×"


def fmt_points(points: float | None) -> str:
    """A change of a percentage in percentage points: ``−87.44 pp``, ``+3.10 pp``, ``0.00 pp``."""
    if points is None:
        return NOT_AVAILABLE
    sign = "+" if points > 0 else (MINUS if points < 0 else "")
    return f"{sign}{abs(points):,.2f} pp"


def metric_change_text(change: MetricChange) -> str:
    """A metric's change: in percentage points for a percentage (``87.45 % → 0.01 %`` is
    ``−87.44 pp``, never ``−100.0 %``), else relative."""
    if change.is_percentage:
        return fmt_points(change.change_points)
    return fmt_change(change.change_pct)


def metric_value(value: float | None, unit: str) -> str:
    return fmt_value(value, unit) if value is not None else NOT_AVAILABLE


def metric_row(change: MetricChange) -> list[str]:
    """Pane, metric, before, after, change (and whether it got better)."""
    verdict = f" ({change.verdict})" if change.verdict in ("better", "worse") else ""
    return [
        PANE_TITLES.get(change.pane, change.pane),
        change.label,
        metric_value(change.before, change.unit),
        metric_value(change.after, change.unit),
        metric_change_text(change) + verdict,
    ]
