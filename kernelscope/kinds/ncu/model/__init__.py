"""The Nsight Compute model: open a report, list kernels, read a kernel's detail.

The names below are imported on first use (``lazy_exports``): code that needs only
``Metric`` (number formatting for timelines) does not import the report reader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernelscope.core.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from kernelscope.kinds.ncu.model.key_frame import rows_to_frame
    from kernelscope.kinds.ncu.model.metrics import Metric, Series
    from kernelscope.kinds.ncu.model.model import (
        DeviceInfo,
        KernelDetail,
        KernelSummary,
        RuleResult,
        SourceHotspots,
    )
    from kernelscope.kinds.ncu.model.report import NcuReport, open_ncu_report

__getattr__ = lazy_exports(__name__, {
    "Metric": ".metrics",
    "Series": ".metrics",
    "DeviceInfo": ".model",
    "KernelDetail": ".model",
    "KernelSummary": ".model",
    "RuleResult": ".model",
    "SourceHotspots": ".model",
    "NcuReport": ".report",
    "open_ncu_report": ".report",
    "rows_to_frame": ".key_frame",
})

__all__ = [
    "DeviceInfo",
    "KernelDetail",
    "KernelSummary",
    "Metric",
    "NcuReport",
    "RuleResult",
    "Series",
    "SourceHotspots",
    "open_ncu_report",
    "rows_to_frame",
]
