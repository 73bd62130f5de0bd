"""Why a kernel is slow: one bottleneck label, a catalog of flags, and guard rails.

``diagnose(metrics, rules, sections)`` is a pure function of a kernel's metrics, so it runs on a
``KernelSummary`` (the list pass) as well as on a ``KernelDetail``. Open reports with
``extra_metrics=REQUIRED_METRICS`` so the list pass reads what it needs.

The names below are imported on first use (``lazy_exports``): a timeline's GPU-metric analysis
needs only the thresholds, not the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernelscope.core.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from kernelscope.core.severity import SEVERITIES
    from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG, FLAG_IDS, FlagSpec
    from kernelscope.kinds.ncu.analysis.diagnosis.engine import diagnose, with_time_share
    from kernelscope.kinds.ncu.analysis.diagnosis.evidence import Evidence
    from kernelscope.kinds.ncu.analysis.diagnosis.names import REQUIRED_METRICS
    from kernelscope.kinds.ncu.analysis.diagnosis.result import (
        LABELS,
        Bottleneck,
        Diagnosis,
        Flag,
        GuardRail,
    )
    from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS, Thresholds

__getattr__ = lazy_exports(__name__, {
    "CATALOG": ".catalog",
    "FLAG_IDS": ".catalog",
    "FlagSpec": ".catalog",
    "diagnose": ".engine",
    "with_time_share": ".engine",
    "Evidence": ".evidence",
    "REQUIRED_METRICS": ".names",
    "LABELS": ".result",
    "Bottleneck": ".result",
    "Diagnosis": ".result",
    "Flag": ".result",
    "GuardRail": ".result",
    "DEFAULT_THRESHOLDS": ".thresholds",
    "Thresholds": ".thresholds",
    "SEVERITIES": "kernelscope.core.severity",
})

__all__ = [
    "CATALOG",
    "DEFAULT_THRESHOLDS",
    "FLAG_IDS",
    "LABELS",
    "REQUIRED_METRICS",
    "SEVERITIES",
    "Bottleneck",
    "Diagnosis",
    "Evidence",
    "Flag",
    "FlagSpec",
    "GuardRail",
    "Thresholds",
    "diagnose",
    "with_time_share",
]
