"""Every cause a GPU idle gap can be given, in one place: its id, its title, what it means and
what to do about it.

``gap_causes.explain_gaps`` names a large gap's cause from the CPU calls around it
(:data:`EXPLAINED`); the join adds the buckets it sorts the other idle time into
(``start-up``, ``short-gaps``, ``copies``, ``unified-memory``), the ranks view the gaps spent
in collective calls (``communication``) and those it did not explain (``not explained``), and
a PyTorch profiler trace the gaps spent loading data (``data-loading``). The timeline's gap
panel, the join's ranking, the ranks view and the exports all read titles, descriptions and
remedies from :data:`GAP_CAUSES`, so a cause added to the analysis cannot be missing from a
view (``tests/nsys/test_gap_cause_catalog.py`` checks every id the analysis can produce).
"""

from __future__ import annotations

from dataclasses import dataclass

from kernelscope.timeline.analysis.unified_memory import UNIFIED_REMEDY


@dataclass(frozen=True)
class GapCause:
    """One cause of GPU idle time."""

    id: str
    title: str
    """A heading that stands alone in a ranking: ``Memory allocation or pinning: GPU idle``."""
    description: str
    """What the CPU (or the GPU) was doing, in one or two sentences."""
    remedy: str
    """What to try first."""


_CATALOG = (
    GapCause(
        "sync", "Synchronisation: GPU idle after the host synchronised",
        "The CPU thread that feeds the GPU waited in a synchronisation call "
        "(cudaDeviceSynchronize, cudaStreamSynchronize, an implicit sync such as .item()), so "
        "the GPU drained and waits for the next launch.",
        "Remove the synchronisation from the loop (no .item()/.cpu() per step; keep values on "
        "the GPU, read them every N steps, or wait on events).",
    ),
    GapCause(
        "memcpy", "Synchronous or pageable copies: GPU idle",
        "The feeding thread was stuck in a synchronous copy or memset (cudaMemcpy, or "
        "cudaMemcpyAsync from pageable memory).",
        "Use pinned host memory and cudaMemcpyAsync on a stream so copies overlap compute.",
    ),
    GapCause(
        "in-graph", "Idle inside a CUDA graph launch",
        "The operations before and after the gap belong to one CUDA graph launch: all its work "
        "was submitted at once, so the gap is the graph's own (a dependency between nodes, an "
        "event wait, a host node), not the CPU's.",
        "Read the graph's dependencies around the gap: shorten the critical path or move host "
        "nodes out of the graph.",
    ),
    GapCause(
        "alloc", "Memory allocation or pinning: GPU idle",
        "The feeding thread was allocating or pinning memory (cudaMalloc, cudaFree, "
        "cudaHostAlloc, cudaHostRegister): these calls block the host, and freeing waits for "
        "the device.",
        "Allocate once up front and reuse buffers (a caching allocator, a memory pool, "
        "cudaMallocAsync); pin host buffers once, outside the loop.",
    ),
    GapCause(
        "cuda-setup", "CUDA set-up (streams, events, graphs): GPU idle",
        "The feeding thread was setting CUDA up: creating streams, events or graphs, setting "
        "kernel attributes or looking functions up (cudaStreamCreate, cudaGraphInstantiate, "
        "cuKernelSetAttribute, …).",
        "Create streams, events and graphs once before the loop; warm up before measuring.",
    ),
    GapCause(
        "module-loading", "Module loading (lazy, at first launch): GPU idle",
        "The feeding thread was loading a module or library (cuLibraryLoadData, "
        "cuModuleLoadData): with lazy loading a kernel's first launch loads its module, a "
        "one-time cost, not launch overhead.",
        "One-time: warm up before the measured region, or load modules eagerly "
        "(CUDA_MODULE_LOADING=EAGER) to pay it at start-up.",
    ),
    GapCause(
        "launch-overhead", "Launch overhead: GPU idle between tiny kernels",
        "The feeding thread was launching (cudaLaunchKernel, module loading on first launch): "
        "launches take longer than the kernels run.",
        "Capture the launches in a CUDA Graph or fuse the kernels (torch.compile, a custom "
        "fused kernel) so launches stop dominating.",
    ),
    GapCause(
        "graph-launch", "CUDA graph launch: GPU idle while the graph is submitted",
        "The feeding thread was in cudaGraphLaunch: a graph's first launch uploads it, and a "
        "large graph takes long to submit.",
        "Upload the graph before the loop (cudaGraphUpload) and launch fewer, larger graphs.",
    ),
    GapCause(
        "cuda-api", "Other blocking CUDA calls: GPU idle",
        "The feeding thread was inside other CUDA API calls that block the host.",
        "Read the calls behind the gap and move them out of the hot loop.",
    ),
    GapCause(
        "cpu-idle", "CPU blocked (sleep, wait, poll): GPU idle",
        "The feeding thread was blocked in the OS (sleep, poll, a lock, I/O, another thread).",
        "Find what the CPU waits for (I/O, a lock, another process) and overlap it.",
    ),
    GapCause(
        "cpu-busy", "CPU busy in its own code: GPU idle",
        "The feeding thread ran its own code: no traced call covers most of the gap.",
        "Move the CPU work off the critical path (data loading in workers, prefetch) or "
        "overlap it with GPU work.",
    ),
    GapCause(
        "data-loading", "Data loading on the launching thread: GPU idle",
        "The feeding thread was loading data (a DataLoader's __next__, a dataset's "
        "__getitem__, collate): the GPU waited for the next batch.",
        "Load in worker processes (DataLoader num_workers > 0, pin_memory=True) and prefetch "
        "the next batch while the GPU runs this one.",
    ),
    GapCause(
        "unknown", "GPU idle, cause unknown",
        "No cause can be named from this trace.",
        "Read the CPU activity during the gap; trace more of the CPU "
        "(--trace=cuda,nvtx,osrt) to see what it did.",
    ),
    GapCause(
        "start-up", "Start-up: GPU idle until the first step ends",
        "The gap lies in a first step that lasts more than twice the others: one-time costs "
        "(set-up, module loading, autotuning, allocation) that a longer run amortises.",
        "One-time: warm up outside the measured region, cache autotuning (cudnn.benchmark "
        "plans, torch.compile caches), load modules eagerly.",
    ),
    GapCause(
        "short-gaps", "Short gaps between other launches",
        "Gaps between launches, each shorter than a large gap, that no other cause claims.",
        "Launch from fewer, larger operations, or capture them in a CUDA Graph.",
    ),
    GapCause(
        "copies", "Copies and memsets on the GPU",
        "Copies and memsets are GPU time that no kernel tuning saves.",
        "Avoid the copies (keep data on the GPU) or overlap them with kernels.",
    ),
    GapCause(
        "unified-memory", "Unified-memory migrations on the GPU",
        "Pages of managed memory (cudaMallocManaged) moved between host and device on demand, "
        "on page faults (nsys: [CUDA memcpy Unified Host-to-Device], [CUDA memcpy Unified "
        "Device-to-Host]); a kernel that touches them waits for the faults.",
        UNIFIED_REMEDY,
    ),
    GapCause(
        "communication", "Communication: GPU idle during collectives",
        "The rank's CPU-side collective calls (NCCL, MPI) cover at least half of the gap: the "
        "rank waits for the others.",
        "Overlap communication with compute, and even out the work that makes the others "
        "late.",
    ),
    GapCause(
        "not explained", "Gaps not explained",
        "Gaps beyond the longest ones explained, to keep the analysis fast.",
        "Open the rank's timeline to read these gaps one by one.",
    ),
)

GAP_CAUSES: dict[str, GapCause] = {cause.id: cause for cause in _CATALOG}
"""Every gap cause by id."""

EXPLAINED = ("sync", "memcpy", "in-graph", "alloc", "cuda-setup", "module-loading",
             "launch-overhead", "graph-launch", "cuda-api", "cpu-idle", "cpu-busy", "unknown")
"""The causes ``explain_gaps`` gives a large gap of a timeline (a PyTorch profiler trace's
gaps can also be ``data-loading``)."""


def gap_cause(cause_id: str) -> GapCause:
    """The catalogue entry of ``cause_id`` (KeyError for an id no analysis produces)."""
    return GAP_CAUSES[cause_id]


__all__ = ["EXPLAINED", "GAP_CAUSES", "GapCause", "gap_cause"]
