"""Evidence in the diagnosis: the findings model's evidence item (``kernelscope.core.findings``),
read in the steps of the method."""

from __future__ import annotations

from kernelscope.core.findings import Evidence as Evidence
from kernelscope.core.findings import split_evidence as split_evidence

STEPS = ("time", "launch", "sol", "occupancy", "memory", "compute", "scheduler", "source")
"""The steps of the method, in the order the notes prescribe: evidence is listed, and the top
flag chosen (``verdict.py``), in this order."""

ev = Evidence
"""Shorthand constructor used by the checks: ``ev(step, metric, value, op, threshold, unit,
note)``, the evidence's own fields in their order (the class itself: no call in between, as
a kernel's diagnosis makes a dozen)."""


def add_in_order(trail: list[Evidence], e: Evidence) -> None:
    """Insert ``e`` after the last evidence of its step or an earlier one (method order)."""
    rank = STEPS.index(e.step)
    at = max((i + 1 for i, x in enumerate(trail) if STEPS.index(x.step) <= rank), default=0)
    trail.insert(at, e)
