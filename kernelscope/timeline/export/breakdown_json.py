"""HTA's temporal breakdown and communication/computation overlap as JSON members, shared by
the timeline's document (``timeline_json.py``), a Kineto trace's and a run's ranks. A module
of its own so that the ranks export does not import the timeline document's builders."""

from __future__ import annotations

from typing import Any

from kernelscope.timeline.analysis.gpu_breakdown import TemporalBreakdown


def breakdown_doc(temporal: TemporalBreakdown | None, overlap: float | None
                  ) -> dict[str, Any]:
    """HTA's temporal breakdown and communication/computation overlap as the JSON members
    ``temporal_breakdown`` and ``comm_comp_overlap_pct`` (``timeline/analysis/gpu_breakdown.py``;
    docs/kineto.md): the same members for a timeline, a Kineto trace and a rank."""
    return {
        "temporal_breakdown": None if temporal is None else {
            **temporal.as_ns(), "idle_pct": temporal.idle_pct,
            "compute_pct": temporal.compute_pct, "non_compute_pct": temporal.non_compute_pct,
        },
        "comm_comp_overlap_pct": overlap,
    }


__all__ = ["breakdown_doc"]
