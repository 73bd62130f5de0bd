"""What made a timeline (Nsight Systems or the PyTorch profiler, Kineto) and how each of them
collects what a view finds missing, in its own words: a Kineto trace is never told to run
``nsys``, and an nsys report is never told about ``torch.profiler``."""

from __future__ import annotations

import re

NSYS = "nsys"
KINETO = "kineto"

_HINTS = {
    # nsys option → the torch.profiler way to get the same (None: torch.profiler cannot).
    "--trace=cuda": "torch.profiler activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]",
    "--trace=osrt": None,
    "--trace=cuda,nvtx": "torch.profiler.record_function ranges",
    "--trace=cuda,nvtx,osrt": "torch.profiler with_stack=True",
    "--sample=process-tree (CPU sampling shows which code ran)": "torch.profiler "
    "with_stack=True (Python frames show which code ran)",
}

NSYS_GPU_METRICS = (
    "collect them with `nsys profile --gpu-metrics-devices=all` "
    "(`--gpu-metrics-frequency` in Hz, 10000 by default)"
)
KINETO_GPU_METRICS = (
    "torch.profiler does not sample GPU metrics (SM activity, SM issue, DRAM bandwidth), so "
    "a PyTorch profiler trace has none to show"
)


def producer_text(profiler: str, nsys_version: str | None) -> str:
    """The tool that wrote the timeline, as a report's head names it."""
    if profiler == KINETO:
        return "PyTorch profiler (Kineto) trace"
    return f"nsys {nsys_version or '?'}"


def hint(profiler: str, nsys_option: str) -> str:
    """How ``profiler`` collects what ``nsys_option`` would add ("" when it cannot)."""
    if profiler != KINETO or not nsys_option:
        return nsys_option
    return _HINTS.get(nsys_option) or ""


def in_own_words(profiler: str, text: str) -> str:
    """``text`` (a remedy naming nsys options in parentheses) with each option as
    ``profiler`` collects it (dropped where it cannot)."""
    if profiler != KINETO:
        return text
    return _OPTION.sub(lambda m: f" ({hint(profiler, m[1])})" if hint(profiler, m[1]) else "",
                       text)


_OPTION = re.compile(r" \((--(?:trace|sample)=[^)]*)\)")


KINETO_GRAPH_NOTE = "the trace holds none of the kernels they ran"
"""A PyTorch trace's CUDA graph launches without kernels: no nsys option to name."""


def ranges_title(profiler: str) -> str:
    """What a timeline's ranges are called: NVTX ranges, or a PyTorch trace's annotations
    (``record_function``, ``ProfilerStep#N``)."""
    return "Annotated ranges (record_function)" if profiler == KINETO else "NVTX ranges"


def gpu_metrics_hint(profiler: str) -> str:
    """How to get sampled GPU metrics, or why there are none."""
    return KINETO_GPU_METRICS if profiler == KINETO else NSYS_GPU_METRICS


def no_ranges_text(profiler: str) -> str:
    """What a timeline without NVTX ranges (Kineto: user annotations) says."""
    if profiler == KINETO:
        return ("This trace has no annotated ranges. Mark your program's phases with "
                "torch.profiler.record_function (or torch.cuda.nvtx.range) to see how busy the "
                "GPU is in each.")
    return ("This report has no NVTX ranges. Mark your program's phases (nvtxRangePush/Pop, "
            "torch.cuda.nvtx.range, nvtx.annotate) and profile with --trace=cuda,nvtx to see "
            "how busy the GPU is in each.")
