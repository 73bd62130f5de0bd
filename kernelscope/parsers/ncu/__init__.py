"""The Nsight Compute model: open a report, list kernels, read a kernel's detail."""

from kernelscope.parsers.ncu.metrics import Metric, Series
from kernelscope.parsers.ncu.model import (
    DeviceInfo,
    KernelDetail,
    KernelSummary,
    RuleResult,
    SourceHotspots,
)
from kernelscope.parsers.ncu.report import NcuReport, open_ncu_report, rows_to_frame
from kernelscope.parsers.ncu.summary_reader import format_dims

__all__ = [
    "DeviceInfo",
    "KernelDetail",
    "KernelSummary",
    "Metric",
    "NcuReport",
    "RuleResult",
    "Series",
    "SourceHotspots",
    "format_dims",
    "open_ncu_report",
    "rows_to_frame",
]
