"""The timeline's details line: what the event under the cursor is."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from kernelscope.core.durations import fmt_ns
from kernelscope.core.units import fmt_bytes
from kernelscope.core.words import api_name
from kernelscope.timeline.analysis.timeline_view import EventInfo

KIND_LABELS = {"kernel": "kernel", "memcpy": "copy", "memset": "memset", "nvtx": "NVTX",
               "cuda-api": "CUDA API"}


def event_name(kind: str, name: str, short: Callable[[str], str]) -> str:
    """How an event is named on the timeline: a kernel by its short name (``short``), a copy
    as ``memcpy Host-to-Device``, an API call without its version suffix."""
    if kind == "kernel":
        return short(name)
    if kind in ("memcpy", "memset"):
        return name.strip("[]").removeprefix("CUDA ")
    if kind == "cuda-api":
        return api_name(name)
    return name


def _dims(dims: tuple[int, int, int]) -> str:
    return "×".join(str(d) for d in dims)


def event_line(info: EventInfo, origin_ns: int, short: Callable[[str], str]) -> Text:
    """``kernel vectorized_elementwise<Gelu> · at 1.234 s · 1.98 us · GPU 0 stream 7 ·
    grid 128×1×1 × block 256×1×1 · launched by cudaLaunchKernel (5.82 us, thread 751)``."""
    text = Text(overflow="ellipsis")
    text.append(f"{KIND_LABELS.get(info.kind, info.kind)} ", style="dim")
    text.append(event_name(info.kind, info.name, short), style="bold")
    text.append(f" · at {fmt_ns(info.start_ns - origin_ns)} · ")
    text.append(fmt_ns(info.duration_ns), style="bold")
    if info.device is not None:
        where = f"GPU {info.device}"
        if info.stream is not None:
            where += f" stream {info.stream}"
        text.append(f" · {where}")
    if info.grid is not None and info.block is not None:
        text.append(f" · grid {_dims(info.grid)} × block {_dims(info.block)}")
    if info.bytes is not None:
        text.append(f" · {fmt_bytes(info.bytes)}")
    if info.tid is not None:
        text.append(f" · thread {info.tid}")
    if info.depth:
        text.append(f" · level {info.depth + 1}")
    if info.related is not None:
        name, start, end, tid = info.related
        if info.kind == "cuda-api":
            text.append(" · launched ", style="dim")
            text.append(event_name("kernel", name, short), style="cyan")
            text.append(f" (at {fmt_ns(start - origin_ns)}, {fmt_ns(end - start)})")
        else:
            text.append(" · launched by ", style="dim")
            text.append(api_name(name), style="cyan")
            who = f", thread {tid}" if tid is not None else ""
            text.append(f" ({fmt_ns(end - start)}{who})")
    elif info.kind in ("kernel", "memcpy", "memset"):
        text.append(" · no CUDA API call correlates", style="dim")
    return text


__all__ = ["event_line", "event_name"]
