"""The roofline of each kernel, from the report's own metrics and ceilings."""

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
