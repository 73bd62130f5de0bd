"""The timeline screen's views, one module each, in the order of the number keys."""

from __future__ import annotations

from dataclasses import dataclass

from textual.widget import Widget

from kernelscope.timeline.screens.timeline_views.api import ApiView
from kernelscope.timeline.screens.timeline_views.critical import CriticalView
from kernelscope.timeline.screens.timeline_views.gaps import GapsView
from kernelscope.timeline.screens.timeline_views.kernels import KernelsView
from kernelscope.timeline.screens.timeline_views.memory import MemoryView
from kernelscope.timeline.screens.timeline_views.nvtx import NvtxView
from kernelscope.timeline.screens.timeline_views.overview import OverviewView
from kernelscope.timeline.screens.timeline_views.timeline import TimelinePane


@dataclass(frozen=True)
class ViewSpec:
    id: str
    title: str
    widget: type[Widget]
    tooltip: str


VIEWS: tuple[ViewSpec, ...] = (
    ViewSpec("overview", "Overview", OverviewView,
             "Devices, span, GPU busy %, top kernels and findings."),
    ViewSpec("timeline", "Timeline", TimelinePane,
             "Lanes per GPU stream, NVTX and CUDA API; zoom, pan, step through gaps."),
    ViewSpec("kernels", "Kernels", KernelsView, "Kernel summary (cuda_gpu_kern_sum)."),
    ViewSpec("api", "CPU calls", ApiView, "CUDA API and OS runtime summaries."),
    ViewSpec("nvtx", "NVTX", NvtxView, "NVTX ranges with the GPU busy share inside each."),
    ViewSpec("gaps", "Gaps", GapsView, "GPU idle gaps: sizes, causes, launch spacing."),
    ViewSpec("memory", "Copies", MemoryView, "Memcpy and memset time and size summaries."),
    ViewSpec("critical", "Critical path", CriticalView,
             "What the steps wait on: the critical path by part, kernel families' slack."),
)

__all__ = [
    "VIEWS",
    "ApiView",
    "CriticalView",
    "GapsView",
    "KernelsView",
    "MemoryView",
    "NvtxView",
    "OverviewView",
    "TimelinePane",
    "ViewSpec",
]
