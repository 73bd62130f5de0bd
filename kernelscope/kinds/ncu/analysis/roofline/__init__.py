"""The roofline of each kernel, from the report's own metrics and ceilings.

The names below are imported on first use (``lazy_exports``): the metrics a report is opened
with (``spec``, which the diagnosis's ``REQUIRED_METRICS`` names) come without the model and
the computation, before the TUI's first rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernelscope.core.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from kernelscope.kinds.ncu.analysis.roofline.compute import compute_roofline, level_bandwidth
    from kernelscope.kinds.ncu.analysis.roofline.model import (
        Ceiling,
        PrecisionPoint,
        Roofline,
        main_precision,
        time_weighted_precision,
    )
    from kernelscope.kinds.ncu.analysis.roofline.spec import (
        PRECISION_KEYS,
        PRECISION_TITLES,
        PRECISIONS,
        ROOFLINE_METRICS,
        ROOFLINE_SECTIONS,
    )

__getattr__ = lazy_exports(__name__, {
    "compute_roofline": ".compute",
    "level_bandwidth": ".compute",
    "Ceiling": ".model",
    "PrecisionPoint": ".model",
    "Roofline": ".model",
    "main_precision": ".model",
    "time_weighted_precision": ".model",
    "PRECISION_KEYS": ".spec",
    "PRECISION_TITLES": ".spec",
    "PRECISIONS": ".spec",
    "ROOFLINE_METRICS": ".spec",
    "ROOFLINE_SECTIONS": ".spec",
})

__all__ = [
    "PRECISIONS",
    "PRECISION_KEYS",
    "PRECISION_TITLES",
    "ROOFLINE_METRICS",
    "ROOFLINE_SECTIONS",
    "Ceiling",
    "PrecisionPoint",
    "Roofline",
    "compute_roofline",
    "level_bandwidth",
    "main_precision",
    "time_weighted_precision",
]
