"""Findings as text: one evidence item in one line (``metric = value unit (op threshold)``).

The findings model (``kernelscope.core.findings``) holds numbers; this is where they become
words, for the screens and the exports of every kind.
"""

from __future__ import annotations

from kernelscope.core.findings import Evidence
from kernelscope.core.units import NOT_AVAILABLE


def evidence_text(evidence: Evidence) -> str:
    """One line for a terminal: ``metric = value unit (op threshold) — note``."""
    e = evidence
    value = NOT_AVAILABLE if e.value is None else evidence_number(e.value)
    unit = f" {e.unit}" if e.unit and e.value is not None else ""
    compared = (
        f" ({e.op} {evidence_number(e.threshold)})" if e.op and e.threshold is not None else ""
    )
    note = f" — {e.note}" if e.note else ""
    return f"{e.metric} = {value}{unit}{compared}{note}"


def evidence_number(x: float | None) -> str:
    """A reading as evidence shows it: whole numbers with thousands separators, one decimal
    from 100 up, three significant digits below; ``n/a`` for none."""
    if x is None:
        return NOT_AVAILABLE
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    if abs(x) >= 100:
        return f"{x:,.1f}"
    return f"{x:.3g}"
