"""The timeline screen's help, before the key tables the help modal generates."""

from kernelscope.timeline.analysis.gap_cause_catalog import EXPLAINED

TIMELINE_HELP = """\
# kernelscope — timeline (Nsight Systems)

Step 0 of any tuning: confirm that a kernel matters end to end. A kernel that takes 60 % of the
GPU time matters only if the GPU is busy; when the GPU mostly waits, the time goes to launches,
copies, synchronisation or the CPU, and no kernel tuning will help.

1. **Overview** — devices, the span recorded, how busy each GPU was over its active span, the
   top kernels by GPU time, a verdict, and the findings of the `nsys analyze` rules plus
   kernelscope's own (many tiny kernels), most severe first.
2. **Timeline** — one lane per GPU (all streams merged) and per stream, then per CPU thread its
   NVTX ranges and CUDA API calls. A cell shows how much of its time slice was busy (`█` full,
   `▓▒░` partly, `·` idle); the yellow sparkline is the GPU utilisation. `▾` marks idle gaps of
   100 us or more: `g` / `G` jump to the next / previous one and the side panel says its cause —
   {causes} — with the CUDA API,
   OS runtime and NVTX activity of the feeding CPU thread during the gap.
3. **Kernels** — `nsys stats -r cuda_gpu_kern_sum`; `enter` shows a kernel's instances on the
   timeline.
4. **CPU calls** — `cuda_api_sum` and `osrt_sum`.
5. **NVTX** — `nvtx_sum` with the share of each range during which the GPU was busy; `enter`
   shows a range on the timeline.
6. **Gaps** — idle gaps by size, launch spacing per stream, and every gap; `enter` opens it on
   the timeline with its explanation.
7. **Copies** — memcpy and memset time and size summaries.
8. **Critical path** — what every step waits on: the critical path summed over the steps, part
   by part (kernel families, CPU ranges, API calls, launch overhead, synchronisation), and the
   kernel families with their time on the path and their slack (how much later their most
   critical launch could end before a step moves); `kernelscope whatif` predicts a change.

Times on the timeline and in the gap list count from the start of the report, as in the
Nsight Systems GUI; the summary tables print nanoseconds as `nsys stats` does. Tables list at
most 1,000 rows of their sort and say "showing N of M" when there are more.

## Mouse

Click a tab to switch views, a column header to sort, a highlighted row to open it; click the
keys in the footer (zoom, pan, gaps); scroll with the wheel.

## Keys

<!-- keys -->
""".replace(
    "{causes}", ", ".join(f"`{cause}`" for cause in EXPLAINED[:-1]) + f" or `{EXPLAINED[-1]}`"
)

KINETO_WORDS = (
    ("timeline (Nsight Systems)", "timeline (a PyTorch profiler trace)"),
    ("the findings of the `nsys analyze` rules plus\n   kernelscope's own", "the findings of "
     "the timeline rules plus\n   kernelscope's own"),
    ("`nsys stats -r cuda_gpu_kern_sum`; ", "every kernel name with its time, instances and "
     "durations; "),
    ("`cuda_api_sum` and `osrt_sum`.", "the CUDA runtime calls."),
    ("`nvtx_sum` with", "the `record_function` ranges (and `ProfilerStep#N`) with"),
    ("OS runtime and NVTX activity", "operators, Python frames and ranges"),
    ("as in the\nNsight Systems GUI; the summary tables print nanoseconds as `nsys stats` does.",
     "as in the\ntrace viewer; the summary tables print nanoseconds."),
)
"""What the timeline help says differently of a PyTorch profiler trace."""


def kineto_help() -> str:
    """The timeline help in a PyTorch profiler trace's words."""
    text = TIMELINE_HELP
    for nsys_words, own_words in KINETO_WORDS:
        if nsys_words not in text:
            raise ValueError(f"the timeline help no longer says {nsys_words!r}")
        text = text.replace(nsys_words, own_words)
    return text
