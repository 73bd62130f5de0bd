"""The prompts: the seeds' method as an agent's plan, tool by tool.

The order is the notes' diagnosis order: where the time goes first (a kernel that takes 2 %
of the run is not worth an afternoon), then launch, SOL, occupancy, memory, compute, stalls
and finally the source lines; one change at a time, re-measured before concluding.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

METHOD = (
    "1. Time share: which families take the time (summary). Fix nothing below a few percent.",
    "2. Launch: grid, block, waves, registers and shared memory per block "
    "(kernel panes=[\"launch\"]). Tiny grids and kernels of a few microseconds are "
    "launch-bound: fuse them or capture them in a CUDA graph.",
    "3. SOL: compute and memory throughput against the peak (panes=[\"sol\"]). Neither high "
    "means latency-bound: look at occupancy and stalls, not at bandwidth.",
    "4. Occupancy: theoretical and achieved, the limiting resource (panes=[\"occupancy\"]). "
    "Low occupancy is a problem only when the kernel cannot hide latency; GEMMs trade it "
    "for reuse.",
    "5. Memory: DRAM, L2 and L1 throughput, hit rates, sectors per request, bank conflicts "
    "(panes=[\"memory\"]). High memory throughput is not HBM-bound until DRAM says so.",
    "6. Compute: pipes and instruction mix (metrics with a pattern such as "
    "\"pipe|inst_executed\").",
    "7. Stalls: the top warp stall reasons (panes=[\"stalls\"]).",
    "8. Source: the hottest lines (source=true) to find what to change.",
)


def diagnose(path: str) -> str:
    """Diagnose one report with kernelscope, following the method's order."""
    steps = "\n".join(METHOD)
    return (
        f"Diagnose the report {path} with the kernelscope tools, in this order, quoting the "
        "evidence (metric, value, threshold) for each conclusion:\n"
        f"{steps}\n"
        "For a timeline (.nsys-rep, .sqlite), start with timeline(path): GPU busy, the idle "
        "gaps and their causes, then ncu_command for the families worth profiling. Where "
        "the report lacks a section, say so and name what to collect (the answer's "
        "'collect'), instead of guessing. End with the one change to try next and how to "
        "re-measure it."
    )


def compare(before: str, after: str) -> str:
    """Compare a report before and after one change, and conclude."""
    return (
        f"Compare {before} (before) with {after} (after) using diff(before, after): the "
        "summed kernel time, each pair's speedup, the label transitions (for instance "
        "memory-bound to compute-bound) and the flags resolved or new. Check first that "
        "the pairs are the same kernels at the same launch configuration; then, for the "
        "pairs that changed most, call kernel on both sides and walk the method's order "
        "(time share, launch, SOL, occupancy, memory, compute, stalls, source) to say why. "
        "Conclude whether the change helped, whether it moved the bottleneck, and what to "
        "change next; a change under the run-to-run noise is no result."
    )


def register(server: MCPServer) -> None:
    server.prompt(name="diagnose", title="Diagnose this report")(diagnose)
    server.prompt(name="compare", title="Compare before and after")(compare)
