"""An estimated headroom for a kernel family nobody profiled, from the shapes the timeline
records (``timeline/analysis/op_efficiency.py``): the operators that own the family's kernels
run at some share of the roofline at their intensity; the rest, weighted by the family's time
in each, is how much faster the family could run at best; what that saves of the steps is a
what-if on the critical path, as for a profiled family (``step_saving.py``). An estimate from
shapes, not a measurement: the ranking of measured headroom does not take it, and the row says
so."""

from __future__ import annotations

from dataclasses import dataclass, replace

from kernelscope.kinds.join.analysis.item import RankedItem
from kernelscope.timeline.analysis.op_efficiency import OpEfficiency

ESTIMATE = "estimate from shapes"
ESTIMATE_NOTE = ("estimate from shapes, not a measurement: the distance of its operators to "
                 "the roofline of the device's {peaks} (docs/op_efficiency.md); "
                 "profile a launch (the ncu command below) to measure it")
DATASHEET = "datasheet peaks"
MEASURED = "ceilings Nsight Compute measured on the profiled kernels"


@dataclass(frozen=True)
class ShapeEstimate:
    headroom: float
    """The fraction (0-1) of the family's time its operators leave to the roofline."""
    source: str


def shape_estimate(kernel_name: str, efficiency: OpEfficiency) -> ShapeEstimate | None:
    """The estimate for the kernels named ``kernel_name``: 1 − the share of the roofline
    its operators reach, weighted by the family's time in each; None when no operator with a
    roofline share owns them."""
    owners = [(row, ns) for row in efficiency.rows for name, ns in row.kernel_ns
              if name == kernel_name and row.pct_of_roofline is not None and ns > 0]
    total = sum(ns for _, ns in owners)
    if not total:
        return None
    reached = sum(min(100.0, row.pct_of_roofline or 0.0) * ns for row, ns in owners) / total
    lead = max(owners, key=lambda owner: owner[1])[0]
    return ShapeEstimate(max(0.0, 1 - reached / 100),
                         f"{ESTIMATE} ({lead.op} {lead.input_shapes}: {reached:.0f} % of "
                         "its roofline)")


def with_shape_estimate(item: RankedItem, efficiency: OpEfficiency) -> RankedItem:
    """An unprofiled family's row with its estimate, or unchanged where there is none."""
    if item.profiled or item.kind != "kernel" or not efficiency.available:
        return item
    found = shape_estimate(item.name or item.family, efficiency)
    if found is None:
        return item
    return replace(item, headroom=found.headroom, headroom_source=found.source,
                   potential_saving_ns=item.total_ns * found.headroom,
                   weak=ESTIMATE_NOTE.format(peaks=MEASURED if efficiency.peaks is not None
                                             and efficiency.peaks.measured else DATASHEET))
