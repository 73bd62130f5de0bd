"""The Nsight Systems model: open a report, summarise it like ``nsys stats``, find gaps and
problems like ``nsys analyze``, and precompute a zoomable timeline.

Everything here is plain dataclasses and polars frames (no Textual, no rich), each name
imported on first use (``core.lazy_exports``)::

    report = open_report("run.nsys-rep", progress=..., cancel=event)
    kernel_summary(report)          # == nsys stats -r cuda_gpu_kern_sum
    findings(report)                # nsys analyze rules + many-tiny-kernels
    explain_gaps(report)            # what the CPU did during large GPU gaps
    TimelineIndex(report).render(t0, t1, width)
"""

from typing import TYPE_CHECKING

from kernelscope.core.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from kernelscope.core.findings import Finding
    from kernelscope.core.hooks import CancelHook, OpenCancelled, ProgressHook
    from kernelscope.kinds.nsys.model.locate import find_nsys
    from kernelscope.kinds.nsys.model.opener import exported_sqlite_path, open_report
    from kernelscope.timeline.analysis.findings import findings, tiny_kernel_stretches
    from kernelscope.timeline.analysis.gap_causes import (
        CAUSES,
        CpuActivity,
        GapExplanation,
        explain_gaps,
    )
    from kernelscope.timeline.analysis.nvtx import nvtx_gpu_busy, nvtx_ranges, nvtx_summary
    from kernelscope.timeline.analysis.summaries import (
        cuda_api_summary,
        kernel_summary,
        memop_size_summary,
        memop_time_summary,
        osrt_summary,
    )
    from kernelscope.timeline.analysis.timeline import TimelineIndex
    from kernelscope.timeline.analysis.timeline_view import EventInfo, Gap, Lane, TimelineView
    from kernelscope.timeline.analysis.utilization import (
        gap_histogram,
        gpu_utilization,
        idle_gaps,
        launch_gaps,
        utilization_windows,
    )
    from kernelscope.timeline.model.intervals import Coverage, merge_intervals
    from kernelscope.timeline.model.model import DeviceInfo, ProcessInfo, TimelineReport

__getattr__ = lazy_exports(__name__, {
    "CAUSES": "kernelscope.timeline.analysis.gap_causes",
    "CancelHook": "kernelscope.core.hooks",
    "Coverage": "kernelscope.timeline.model.intervals",
    "CpuActivity": "kernelscope.timeline.analysis.gap_causes",
    "DeviceInfo": "kernelscope.timeline.model.model",
    "EventInfo": "kernelscope.timeline.analysis.timeline_view",
    "Finding": "kernelscope.core.findings",
    "Gap": "kernelscope.timeline.analysis.timeline_view",
    "GapExplanation": "kernelscope.timeline.analysis.gap_causes",
    "Lane": "kernelscope.timeline.analysis.timeline_view",
    "TimelineReport": "kernelscope.timeline.model.model",
    "OpenCancelled": "kernelscope.core.hooks",
    "ProcessInfo": "kernelscope.timeline.model.model",
    "ProgressHook": "kernelscope.core.hooks",
    "TimelineIndex": "kernelscope.timeline.analysis.timeline",
    "TimelineView": "kernelscope.timeline.analysis.timeline_view",
    "cuda_api_summary": "kernelscope.timeline.analysis.summaries",
    "explain_gaps": "kernelscope.timeline.analysis.gap_causes",
    "exported_sqlite_path": "kernelscope.kinds.nsys.model.opener",
    "find_nsys": "kernelscope.kinds.nsys.model.locate",
    "findings": "kernelscope.timeline.analysis.findings",
    "gap_histogram": "kernelscope.timeline.analysis.utilization",
    "gpu_utilization": "kernelscope.timeline.analysis.utilization",
    "idle_gaps": "kernelscope.timeline.analysis.utilization",
    "kernel_summary": "kernelscope.timeline.analysis.summaries",
    "launch_gaps": "kernelscope.timeline.analysis.utilization",
    "memop_size_summary": "kernelscope.timeline.analysis.summaries",
    "memop_time_summary": "kernelscope.timeline.analysis.summaries",
    "merge_intervals": "kernelscope.timeline.model.intervals",
    "nvtx_gpu_busy": "kernelscope.timeline.analysis.nvtx",
    "nvtx_ranges": "kernelscope.timeline.analysis.nvtx",
    "nvtx_summary": "kernelscope.timeline.analysis.nvtx",
    "open_report": "kernelscope.kinds.nsys.model.opener",
    "osrt_summary": "kernelscope.timeline.analysis.summaries",
    "tiny_kernel_stretches": "kernelscope.timeline.analysis.findings",
    "utilization_windows": "kernelscope.timeline.analysis.utilization",
})

__all__ = [
    "CAUSES",
    "CancelHook",
    "Coverage",
    "CpuActivity",
    "DeviceInfo",
    "EventInfo",
    "Finding",
    "Gap",
    "GapExplanation",
    "Lane",
    "OpenCancelled",
    "ProcessInfo",
    "ProgressHook",
    "TimelineIndex",
    "TimelineReport",
    "TimelineView",
    "cuda_api_summary",
    "explain_gaps",
    "exported_sqlite_path",
    "find_nsys",
    "findings",
    "gap_histogram",
    "gpu_utilization",
    "idle_gaps",
    "kernel_summary",
    "launch_gaps",
    "memop_size_summary",
    "memop_time_summary",
    "merge_intervals",
    "nvtx_gpu_busy",
    "nvtx_ranges",
    "nvtx_summary",
    "open_report",
    "osrt_summary",
    "tiny_kernel_stretches",
    "utilization_windows",
]
