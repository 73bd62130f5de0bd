"""Evidence in the diagnosis: the findings model's evidence item (``kernelscope.core.findings``),
read in the steps of the method."""

from __future__ import annotations

from kernelscope.core.findings import Evidence as Evidence
from kernelscope.core.findings import split_evidence as split_evidence

STEPS = ("time", "launch", "sol", "occupancy", "memory", "compute", "scheduler", "source")
"""The steps of the method, in the order the notes prescribe: evidence is listed, and the top
flag chosen (``verdict.py``), in this order."""

_new = object.__new__


def ev(
    step: str,
    metric: str,
    value: float | None,
    op: str = "",
    threshold: float | None = None,
    unit: str = "",
    note: str = "",
) -> Evidence:
    """``Evidence(step, metric, value, op, threshold, unit, note)``, its fields written at once
    (in their order) where the frozen dataclass's ``__init__`` writes each with
    ``object.__setattr__``: the checks make a dozen a kernel, the kernel list's reading
    worker ~12,000 for a report of 1,000 launches (~1.2 µs saved each)."""
    made: Evidence = _new(Evidence)
    fields = made.__dict__
    fields["step"] = step
    fields["metric"] = metric
    fields["value"] = value
    fields["op"] = op
    fields["threshold"] = threshold
    fields["unit"] = unit
    fields["note"] = note
    return made


def add_in_order(trail: list[Evidence], e: Evidence) -> None:
    """Insert ``e`` after the last evidence of its step or an earlier one (method order)."""
    rank = STEPS.index(e.step)
    at = max((i + 1 for i, x in enumerate(trail) if STEPS.index(x.step) <= rank), default=0)
    trail.insert(at, e)
