"""Evidence: a metric's value set against the threshold that decided something."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

STEPS = ("time", "launch", "sol", "occupancy", "memory", "compute", "scheduler", "source")
"""The steps of the method, in the order the notes prescribe: evidence is listed, and the top
flag chosen (``verdict.py``), in this order."""

_OPS = {
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
}


@dataclass(frozen=True)
class Evidence:
    """``metric`` (an ncu name, or an expression of ncu names) compared with ``threshold``."""

    step: str
    metric: str
    value: float | None
    op: str = ""
    threshold: float | None = None
    unit: str = ""
    note: str = ""

    @property
    def holds(self) -> bool | None:
        """Whether ``value op threshold`` is true; None when there is nothing to compare."""
        if self.value is None or self.threshold is None or self.op not in _OPS:
            return None
        return bool(_OPS[self.op](self.value, self.threshold))

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "metric": self.metric,
            "value": self.value,
            "op": self.op or None,
            "threshold": self.threshold,
            "unit": self.unit,
            "holds": self.holds,
            "note": self.note,
        }

    def text(self) -> str:
        """One line for a terminal: ``metric = value (op threshold)``."""
        value = "n/a" if self.value is None else _fmt(self.value)
        unit = f" {self.unit}" if self.unit and self.value is not None else ""
        cmp = (
            f" ({self.op} {_fmt(self.threshold)})" if self.op and self.threshold is not None else ""
        )
        note = f" — {self.note}" if self.note else ""
        return f"{self.metric} = {value}{unit}{cmp}{note}"


def split_evidence(
    evidence: tuple[Evidence, ...],
) -> tuple[tuple[Evidence, ...], tuple[Evidence, ...]]:
    """(what held or is a plain reading, what was checked and did not hold), each in order:
    a check that failed is part of the reasoning but never a fact about the kernel."""
    held = tuple(e for e in evidence if e.holds is not False)
    not_held = tuple(e for e in evidence if e.holds is False)
    return held, not_held


def _fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    if abs(x) >= 100:
        return f"{x:,.1f}"
    return f"{x:.3g}"


def ev(
    step: str,
    metric: str,
    value: float | None,
    op: str = "",
    threshold: float | None = None,
    unit: str = "",
    note: str = "",
) -> Evidence:
    """Shorthand constructor used by the checks."""
    return Evidence(step, metric, value, op, threshold, unit, note)


def add_in_order(trail: list[Evidence], e: Evidence) -> None:
    """Insert ``e`` after the last evidence of its step or an earlier one (method order)."""
    rank = STEPS.index(e.step)
    at = max((i + 1 for i, x in enumerate(trail) if STEPS.index(x.step) <= rank), default=0)
    trail.insert(at, e)
