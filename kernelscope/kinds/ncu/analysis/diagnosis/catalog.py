"""The rules of the kernel diagnosis: one registration each (a ``FlagSpec``): its stable id,
title, checklist level, method step, remedy, the NCU rules that speak of the same problem, and
its check.

Levels follow the optimisation checklist of the methodology notes:
0 is the GPU doing work at all, 1 occupancy, 2 global-memory coalescing, 3 data reuse through
shared memory and caches, 4 shared-memory bank conflicts, 5 latency hiding, 6 arithmetic
intensity (precision, tensor cores, fusion).

A check is named by ``"module:function"`` in this package, resolved on first use
(``flags.checks``), so the catalog imports no check and every module may read it; a stall
reason names the stall metric it grades instead (``stall``: its check is ``flags.stall_check``).
The order here is the order the checks run in and the method's order among flags of one step
and level (``verdict.chain_position``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from kernelscope.kinds.ncu.analysis.diagnosis import names as n


@dataclass(frozen=True)
class RuleMatch:
    """An NCU rule message that speaks about the same problem (title filter optional)."""

    rule: str
    title_contains: str = ""


@dataclass(frozen=True)
class FlagSpec:
    """One rule: what the flag says (id, title, level, step, remedy), the NCU rules it mirrors,
    and its check (``check`` or ``stall``, exactly one)."""

    id: str
    title: str
    level: int
    step: str
    remedy: str
    rules: tuple[RuleMatch, ...] = ()
    check: str = ""
    """The check, ``"module:function"`` in this package (e.g. ``"flags:low_occupancy"``)."""
    stall: str = ""
    """For a stall reason: the stall metric it grades (``names.STALL_*``)."""

    @cached_property
    def rule_ids(self) -> frozenset[str]:
        """The identifiers of the NCU rules it mirrors."""
        return frozenset(match.rule for match in self.rules)

    def __post_init__(self) -> None:
        if bool(self.check) == bool(self.stall):
            raise ValueError(f"rule {self.id}: give its check or its stall metric, not both")


_SPECS = (
    FlagSpec(
        "short-kernel",
        "Kernel shorter than its launch overhead",
        0,
        "launch",
        "The launch costs about as much as the work. Fuse this kernel with its neighbours, "
        "batch several small launches into one, or capture the sequence in a CUDA Graph so "
        "the CPU stops paying per launch.",
        check="launch:short_kernel",
    ),
    FlagSpec(
        "grid-too-small",
        "Grid smaller than the number of SMs",
        0,
        "launch",
        "Give the grid at least one block per SM (several "
        "is better): split the work finer, use smaller blocks, or make the kernel persistent "
        "and loop over work items; if it must stay small, run it concurrently with other work "
        "on another stream.",
        (RuleMatch("LaunchConfiguration", "Small Grid"), RuleMatch("LaunchConfiguration", "Grid")),
        check="launch:grid_too_small",
    ),
    FlagSpec(
        "tail-effect",
        "Partial last wave leaves SMs idle",
        1,
        "launch",
        "The last wave of blocks only partly fills the GPU. Choose a grid that is a multiple of "
        "(SMs × resident blocks per SM), shrink the blocks so the remainder matters less, or "
        "use a persistent kernel that balances the work itself.",
        (RuleMatch("LaunchConfiguration", "Tail"),),
        check="launch:tail_effect",
    ),
    FlagSpec(
        "low-occupancy",
        "Few warps resident to hide latency",
        1,
        "occupancy",
        "Too few warps are resident to cover memory and pipeline latency. If theoretical "
        "occupancy is low, free the limiting resource (registers, shared memory, block size); "
        "if only achieved occupancy is low, look for tail effects, early-exiting warps and "
        "load imbalance between blocks.",
        (RuleMatch("AchievedOccupancy"), RuleMatch("TheoreticalOccupancy")),
        check="flags:low_occupancy",
    ),
    FlagSpec(
        "occupancy-limiter",
        "A per-SM resource caps the resident blocks",
        1,
        "occupancy",
        "Relieve the named resource: cap registers with __launch_bounds__ or -maxrregcount "
        "(watch for spills), use smaller shared-memory tiles, or change the block size so "
        "more blocks fit on an SM.",
        (RuleMatch("TheoreticalOccupancy"),),
        check="flags:occupancy_limiter",
    ),
    FlagSpec(
        "register-spill",
        "Register spills to local memory",
        1,
        "memory",
        "The compiler spills registers to local memory, which travels through L1/L2 like "
        "global memory. Shorten live ranges, unroll less, or allow more registers per thread "
        "(a larger __launch_bounds__ budget, fewer threads per block, -maxrregcount).",
        (RuleMatch("MemoryCacheAccessPattern", "Local"),),
        check="flags:register_spill",
    ),
    FlagSpec(
        "local-memory",
        "Local memory (stack arrays / dynamically indexed locals)",
        2,
        "memory",
        "Per-thread arrays indexed at run time, or too large for registers, live in local "
        "memory, which travels through L1/L2 like global memory. Index them only with "
        "compile-time constants (fully unrolled loops), keep them small enough for registers, "
        "or keep data the threads share in shared memory.",
        (RuleMatch("MemoryCacheAccessPattern", "Local"),),
        check="flags:local_memory",
    ),
    FlagSpec(
        "uncoalesced-global-access",
        "Uncoalesced global memory accesses",
        2,
        "memory",
        "Each 32-byte sector fetched is only partly used. Make neighbouring threads of a warp "
        "touch neighbouring addresses (transpose the layout, use structure-of-arrays), stage "
        "strided data through shared memory, and use vector loads where the data allow.",
        (
            RuleMatch("UncoalescedGlobalAccess"),
            RuleMatch("MemoryCacheAccessPattern", "Global"),
        ),
        check="flags:uncoalesced_global_access",
    ),
    FlagSpec(
        "l1tex-pressure",
        "On-chip L1/TEX path saturated while DRAM is quiet",
        3,
        "memory",
        "The pressure is in the SM's own memory pipeline, not in HBM. Issue fewer, wider "
        "loads (vectorise), keep reused values in registers (register tiling) so each load "
        "feeds more arithmetic, and check shared-memory bank conflicts.",
        (RuleMatch("MemoryCacheAccessPattern", "L1TEX"),),
        check="flags:l1tex_pressure",
    ),
    FlagSpec(
        "l2-low-hit-rate",
        "L2 misses while L2 is busy",
        3,
        "memory",
        "Most L2 requests go on to DRAM. Block the computation so that data is reused while it "
        "is still cached, order blocks so neighbours share data, or keep hot data resident "
        "with an L2 access-policy window. A pure streaming kernel has nothing to reuse: fuse it "
        "with its producer or consumer instead.",
        check="flags:l2_low_hit_rate",
    ),
    FlagSpec(
        "atomic-contention",
        "Atomics serialise on a few addresses",
        3,
        "memory",
        "Many threads update the same few addresses, so their atomics queue one after another "
        "in the L2 slice that owns them. Privatise the updates (per-block copies in shared "
        "memory, merged with one atomic per block at the end), aggregate within a warp first "
        "(__reduce_add_sync or a shuffle reduction, then one atomic per warp), or spread the "
        "targets over more addresses and combine them afterwards.",
        check="flags:atomic_contention",
    ),
    FlagSpec(
        "dram-bandwidth-saturated",
        "HBM bandwidth saturated",
        6,
        "sol",
        "The kernel is at the DRAM roof: only moving fewer bytes helps. Fuse it with the "
        "kernels around it, store data in a narrower type (FP16/BF16/FP8/INT8), avoid "
        "redundant reads and writes, and raise reuse in shared memory or registers.",
        check="flags:dram_bandwidth_saturated",
    ),
    FlagSpec(
        "shared-bank-conflicts",
        "Shared-memory bank conflicts",
        4,
        "memory",
        "Lanes of a warp hit the same shared-memory bank and are served one after another. "
        "Pad the row stride (e.g. [32][33]), swizzle the index, or change the tile layout so a "
        "warp's 32 accesses fall into 32 different banks.",
        (
            RuleMatch("SharedMemoryConflicts"),
            RuleMatch("UncoalescedSharedAccess"),
        ),
        check="flags:shared_bank_conflicts",
    ),
    FlagSpec(
        "warp-divergence",
        "Threads of a warp take different paths",
        5,
        "compute",
        "A warp executes each side of a divergent branch with part of its lanes masked off. "
        "Sort or bin the data so a warp handles one case, move the branch to warp granularity, "
        "or split the cases into separate kernels.",
        (RuleMatch("ThreadDivergence"), RuleMatch("BranchDivergence")),
        check="compute_flags:warp_divergence",
    ),
    FlagSpec(
        "no-tensor-core",
        "Matrix math off the tensor cores",
        6,
        "compute",
        "Matrix-shaped fused multiply-adds run on the FMA (or FP64) pipe of a GPU whose "
        "tensor cores take that work. Put them on the tensor cores: call cuBLAS/cuDNN/CUTLASS "
        "(for FP32, allow TF32 with cublasSetMathMode or torch's allow_tf32 where its 10-bit "
        "mantissa is accurate enough, or convert to BF16/FP16), or use WMMA/MMA with aligned, "
        "correctly laid-out tiles.",
        check="compute_flags:no_tensor_core",
    ),
    FlagSpec(
        "barrier-stalls",
        "Warps wait at block-wide barriers",
        5,
        "scheduler",
        "Warps spend their time waiting in __syncthreads(). Synchronise less often (reduce "
        "within a warp with shuffles first), balance the work of the warps in a block, and "
        "double-buffer tiles so loading the next one does not need a barrier.",
        (RuleMatch("CPIStall", "Barrier"), RuleMatch("CPIStallBarrier")),
        stall=n.STALL_BARRIER,
    ),
    FlagSpec(
        "long-scoreboard-stalls",
        "Warps wait for global/local memory",
        5,
        "scheduler",
        "Warps sit waiting on L1TEX (global, local, texture) data. Start loads earlier and "
        "keep more of them in flight (several elements per thread, vector loads, cp.async "
        "pipelines), raise occupancy, and remove spills.",
        (RuleMatch("CPIStall", "Long Scoreboard"),),
        stall=n.STALL_LONG_SCOREBOARD,
    ),
    FlagSpec(
        "mio-throttle",
        "MIO instruction queue full",
        4,
        "scheduler",
        "The queue feeding shared memory and other MIO instructions is full. Issue fewer "
        "shared-memory instructions (wider accesses, register tiling), remove bank conflicts, "
        "and spread special-function work out.",
        (RuleMatch("CPIStall", "Mio Throttle"),),
        stall=n.STALL_MIO_THROTTLE,
    ),
    FlagSpec(
        "membar-stalls",
        "Warps wait at memory fences",
        5,
        "scheduler",
        "Each __threadfence() (MEMBAR) holds the warp until its earlier writes are visible to "
        "the whole GPU. Fence once per batch of writes rather than after each one, use the "
        "narrowest scope that is correct (__threadfence_block() when only the block reads the "
        "data), or publish with one release store / acquire load on a flag "
        "(cuda::atomic_ref) instead of fencing every store.",
        (RuleMatch("CPIStall", "Membar"),),
        stall=n.STALL_MEMBAR,
    ),
    FlagSpec(
        "wait-stalls",
        "Warps wait out fixed-latency dependencies",
        5,
        "scheduler",
        "Each instruction waits a fixed number of cycles for the one before it: the code is "
        "one long dependency chain. Interleave independent work (unroll with several "
        "accumulators, several elements per thread, reorder the computation) so the scheduler "
        "always has an instruction ready, and keep enough warps resident to cover the latency.",
        (RuleMatch("CPIStall", "Wait"),),
        stall=n.STALL_WAIT,
    ),
    FlagSpec(
        "short-scoreboard-stalls",
        "Warps wait for shared-memory or special-function results",
        5,
        "scheduler",
        "Warps wait on MIO results: shared-memory loads, special functions (sin, exp, rsqrt), "
        "shuffles. Keep reused values in registers instead of re-reading shared memory, remove "
        "bank conflicts, and use fewer or cheaper special-function instructions (fast "
        "intrinsics, precomputed tables).",
        (RuleMatch("CPIStall", "Short Scoreboard"),),
        stall=n.STALL_SHORT_SCOREBOARD,
    ),
    FlagSpec(
        "lg-throttle",
        "Local/global memory queue full",
        4,
        "scheduler",
        "Too many separate load/store instructions queue for the LSU. Issue fewer, wider "
        "accesses (vector loads and stores), reuse loaded values from registers, and remove "
        "local-memory traffic (spills, dynamically indexed arrays).",
        (RuleMatch("CPIStall", "LG Throttle"),),
        stall=n.STALL_LG_THROTTLE,
    ),
    FlagSpec(
        "math-pipe-throttle",
        "A math pipe is oversubscribed",
        6,
        "scheduler",
        "Warps wait for a busy math pipe to accept their next instruction. Move work to a "
        "less busy pipe (packed FP16x2, tensor cores), use fewer special-function or FP64 "
        "instructions, or mix in independent work of another kind.",
        (RuleMatch("CPIStall", "Math Pipe Throttle"),),
        stall=n.STALL_MATH_THROTTLE,
    ),
)

CATALOG: dict[str, FlagSpec] = {spec.id: spec for spec in _SPECS}
FLAG_IDS: tuple[str, ...] = tuple(CATALOG)
STALL_FLAGS: dict[str, str] = {spec.id: spec.stall for spec in _SPECS if spec.stall}
"""Flag id → the stall metric it grades."""
