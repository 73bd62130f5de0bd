"""A kernel against a baseline kernel of the same report (the TUI's ``b``, as Nsight
Compute's baseline): each pane's key metrics with their change, the duration's speedup, the
label's transition and the flags resolved and new."""

from __future__ import annotations

from dataclasses import dataclass

from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis
from kernelscope.kinds.ncu.analysis.kernel_analysis import diagnose_detail
from kernelscope.kinds.ncu.analysis.metric_changes import MetricChange, metric_changes, speedup
from kernelscope.kinds.ncu.model import KernelDetail


@dataclass(frozen=True)
class BaselineComparison:
    baseline_id: int
    kernel_id: int
    metrics: tuple[MetricChange, ...]
    speedup: float | None
    """baseline duration / this kernel's (above 1: this kernel is faster)."""
    labels: tuple[str, str]
    flags_resolved: tuple[str, ...]
    flags_new: tuple[str, ...]

    @property
    def label_change(self) -> str | None:
        old, new = self.labels
        return None if old == new else f"{old} → {new}"


def _flags(diagnosis: Diagnosis) -> list[str]:
    return [f.id for f in diagnosis.flags]


def compare_to_baseline(
    baseline: KernelDetail, detail: KernelDetail, pane: str | None = None
) -> BaselineComparison:
    """``detail`` against ``baseline``: the metrics of ``pane`` (every pane's with None)."""
    old, new = diagnose_detail(baseline), diagnose_detail(detail)
    old_flags, new_flags = _flags(old), _flags(new)
    return BaselineComparison(
        baseline_id=baseline.id,
        kernel_id=detail.id,
        metrics=metric_changes(baseline.metrics, detail.metrics, pane),
        speedup=speedup(baseline.duration_ns, detail.duration_ns),
        labels=(old.label, new.label),
        flags_resolved=tuple(f for f in old_flags if f not in new_flags),
        flags_new=tuple(f for f in new_flags if f not in old_flags),
    )
