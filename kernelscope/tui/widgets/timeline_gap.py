"""The side panel's text for one GPU idle gap: its cause, and what the CPU did meanwhile."""

from __future__ import annotations

from rich.text import Text

from kernelscope.parsers.nsys import Gap, GapExplanation
from kernelscope.render.format import ellipsis, fmt_ns
from kernelscope.tui.widgets.bars import bar_cells

CAUSE_TEXT: dict[str, tuple[str, str]] = {
    "sync": (
        "The CPU thread that feeds the GPU waited in a synchronisation call "
        "(cudaDeviceSynchronize, cudaStreamSynchronize, an implicit sync such as .item()).",
        "Drop needless syncs; wait on events; queue the next work before syncing.",
    ),
    "memcpy": (
        "The feeding thread was stuck in a synchronous copy or memset (cudaMemcpy, or "
        "cudaMemcpyAsync from pageable memory).",
        "Use pinned host memory and cudaMemcpyAsync on a stream so copies overlap compute.",
    ),
    "alloc": (
        "The feeding thread was allocating or pinning memory (cudaMalloc, cudaFree, "
        "cudaHostAlloc, cudaHostRegister): these calls block the host, and freeing waits for "
        "the device.",
        "Allocate once up front and reuse buffers (a caching allocator, a memory pool, "
        "cudaMallocAsync); pin host buffers once, outside the loop.",
    ),
    "cuda-setup": (
        "The feeding thread was setting CUDA up: creating streams, events or graphs, setting "
        "kernel attributes or looking functions up (cudaStreamCreate, cudaGraphInstantiate, "
        "cuKernelSetAttribute, …).",
        "Create streams, events and graphs once before the loop; warm up before measuring.",
    ),
    "cuda-api": (
        "The feeding thread was inside other CUDA API calls that block the host.",
        "Read the calls below; move them out of the hot loop.",
    ),
    "launch-overhead": (
        "The feeding thread was launching (cudaLaunchKernel, module loading on first launch): "
        "launches take longer than the kernels run.",
        "Capture the launches in a CUDA Graph, fuse small kernels, warm up before measuring.",
    ),
    "cpu-busy": (
        "The feeding thread ran its own code: no traced call covers most of the gap.",
        "Overlap that CPU work with GPU work (another thread, prefetching) or move it to the GPU.",
    ),
    "data-loading": (
        "The feeding thread was loading data (a DataLoader's __next__, a dataset's "
        "__getitem__, collate): the GPU waited for the next batch.",
        "Load in worker processes (DataLoader num_workers > 0, pin_memory=True) and prefetch "
        "the next batch while the GPU runs this one.",
    ),
    "cpu-idle": (
        "The feeding thread was blocked in the OS (sleep, poll, a lock, I/O, another thread).",
        "Find what it waits for (data loading, a lock) and prefetch or overlap it.",
    ),
    "unknown": (
        "No cause can be named from this trace.",
        "Read the CPU activity below and the CUDA API lane during the gap.",
    ),
}

CAUSE_STYLES = {
    "sync": "bold red", "memcpy": "bold magenta", "launch-overhead": "bold yellow",
    "alloc": "bold magenta", "cuda-setup": "bold yellow", "cuda-api": "bold yellow",
    "cpu-busy": "bold cyan", "cpu-idle": "bold blue", "data-loading": "bold cyan",
    "unknown": "bold",
}
SOURCE_LABELS = {"cuda": "CUDA", "osrt": "OSRT", "nvtx": "NVTX"}
COVERAGE_BAR = 10
CATEGORY_LABELS = {"sync": "syncs", "memcpy": "copies", "launch": "launches",
                   "alloc": "allocation", "setup": "CUDA setup",
                   "idle": "OS waits", "os": "OS calls", "api": "other CUDA"}


def gap_heading(gap: Gap, position: int | None, total: int, origin_ns: int) -> Text:
    text = Text()
    where = f"Gap {position + 1} of {total}" if position is not None else "Gap"
    text.append(f"{where} · GPU {gap.device}\n", style="bold")
    text.append(f"at {fmt_ns(gap.start_ns - origin_ns)}, idle for ")
    text.append(fmt_ns(gap.duration_ns), style="bold")
    return text


def gap_text(
    gap: Gap,
    explanation: GapExplanation | None,
    *,
    position: int | None,
    total: int,
    origin_ns: int,
    explained: int,
    width: int = 40,
) -> Text:
    """Everything the panel shows for ``gap`` (``explanation`` None: not explained)."""
    text = gap_heading(gap, position, total, origin_ns)
    if explanation is None:
        text.append(f"\n\nNot explained: only the {explained:,} longest gaps are, to keep "
                    "opening fast.", style="dim")
        return text
    what, fix = CAUSE_TEXT.get(explanation.cause, CAUSE_TEXT["unknown"])
    text.append("\n\nCause ")
    text.append(explanation.cause, style=CAUSE_STYLES.get(explanation.cause, "bold"))
    if explanation.detail:
        text.append(f": {explanation.detail}", style="bold")
    text.append(f"\n{what}\n")
    if explanation.reason:
        text.append(f"{explanation.reason}\n", style="yellow")
    text.append("Fix: ", style="bold")
    text.append(fix, style="italic cyan")
    if explanation.hint:
        text.append("\nTo see more, profile with ", style="dim")
        text.append(explanation.hint, style="cyan")
    if explanation.coverage:
        text.append("\n\nShare of the gap covered by", style="bold")
        for category, share in sorted(explanation.coverage.items(), key=lambda kv: -kv[1]):
            filled, track = bar_cells(share, COVERAGE_BAR)
            text.append(f"\n  {CATEGORY_LABELS.get(category, category):<10} ")
            text.append(filled, style="yellow")
            text.append(track, style="bright_black")
            text.append(f" {share * 100:5.1f} %")
    who = f"thread {explanation.thread}" if explanation.thread is not None else "unknown thread"
    nxt = f" · next on the GPU: {explanation.next_op}" if explanation.next_op else ""
    text.append(f"\n\nFed by {who}{nxt}", style="dim")
    text.append("\n\nCPU during the gap", style="bold")
    if not explanation.cpu:
        text.append("\n  nothing traced", style="dim")
    name_width = max(8, width - 18)
    for act in explanation.cpu:
        text.append(f"\n  {SOURCE_LABELS.get(act.source, act.source):<4} ", style="dim")
        text.append(ellipsis(act.name or "?", name_width).ljust(name_width))
        text.append(f" {fmt_ns(act.overlap_ns):>10}")
    return text
