"""whatif_ranks.py — one rank of a two-rank step whose straggler a what-if can speed up.

Started once per rank on the one GPU (cuda:0), the ranks talking through gloo:

    RANK=r WORLD_SIZE=2 MASTER_PORT=P python3 whatif_ranks.py kineto VARIANT OUTDIR
        -> OUTDIR/rank{r}.pt.trace.json and OUTDIR/rank{r}.steps.json
    nsys profile ... env RANK=r ... python3 whatif_ranks.py nvtx VARIANT OUTDIR
        -> NVTX "step N" ranges (the all-reduce in "gloo:all_reduce", the others under
           their own names); OUTDIR/rank{r}.nsys.steps.json

Each step, on every rank: "compute" (four bf16 4096 x 4096 matmuls, the gradient copied to
the host), then on rank SLOW_RANK only "extra": torch.cuda._sleep (at::cuda's one-thread
`spin_kernel`) for SPIN_MS[VARIANT] and a synchronise, then "allreduce" (dist.all_reduce of
the gradient over gloo, copied back to the GPU, synchronised). The other rank arrives at
every all-reduce that much earlier and waits for the straggler there.

    base: the spin kernel runs 8 ms a step;  fast: 4 ms (half its cycles, half its work).

The what-if to check on the base run: `spin_kernel` x2 predicts the fast run's steps on both
ranks (the straggler's own spin halves; the other rank's wait at the all-reduce shrinks by the
same time). The spin kernel holds one SM, so the other rank's matmuls on the shared GPU
barely feel it. Each steps file holds the profiled steps' wall times on the CPU (perf_counter
from the step's start to the end of its last synchronise).
"""

import json
import os
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile, record_function, schedule

WAIT, WARMUP, ACTIVE = 1, 2, 6
SLOW_RANK = 1
SPIN_MS = {"base": 8.0, "fast": 4.0}
CYCLES_PER_MS = 1_980_000  # the top SM clock of an H100/H200 SXM: 1,980 MHz


def pin_to_own_cores(rank, world):
    """Give each rank an equal, disjoint share of the CPUs this process may use."""
    cpus = sorted(os.sched_getaffinity(0))
    share = len(cpus) // world
    if share >= 1:
        os.sched_setaffinity(0, cpus[rank * share:(rank + 1) * share])


class Rank:
    def __init__(self, rank, variant, nvtx):
        self.rank = rank
        self.nvtx = nvtx
        self.dev = torch.device("cuda:0")
        g = torch.Generator(device=self.dev).manual_seed(rank)
        self.x = torch.randn(4096, 4096, device=self.dev, dtype=torch.bfloat16, generator=g)
        self.w = torch.randn(4096, 4096, device=self.dev, dtype=torch.bfloat16,
                             generator=g) / 64
        self.spin_cycles = int(SPIN_MS[variant] * CYCLES_PER_MS)

    def region(self, name):
        """A named range: an NVTX range under nsys, a record_function range otherwise."""
        return torch.cuda.nvtx.range(name) if self.nvtx else record_function(name)

    def step(self):
        with self.region("compute"):
            h = self.x
            for _ in range(4):
                h = torch.tanh(h @ self.w)
            grad = h[:256, :256].float().cpu()
        if self.rank == SLOW_RANK:
            with self.region("extra"):
                torch.cuda._sleep(self.spin_cycles)
                torch.cuda.synchronize()
        with self.region("gloo:all_reduce" if self.nvtx else "allreduce"):
            dist.all_reduce(grad)
            self.x[:256, :256].copy_(grad.to(self.dev), non_blocking=False)
            torch.cuda.synchronize()


def timed(rank_work, steps, around):
    times = []
    for i in range(steps):
        t0 = time.perf_counter()
        around(i, rank_work.step)
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def write_steps(path, times):
    ordered = sorted(times)
    half = len(ordered) // 2
    median = ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2
    path.write_text(json.dumps({"step_ms": times, "median_ms": median}, indent=1))
    print(path.name, f"median {median:.3f} ms", [round(t, 3) for t in times])


def main():
    mode, variant, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    pin_to_own_cores(rank, world)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    work = Rank(rank, variant, nvtx=mode == "nvtx")
    work.step()
    torch.cuda.synchronize()
    if mode == "kineto":
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                       schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1))

        def around(_i, body):
            body()
            prof.step()

        with prof:
            times = timed(work, WAIT + WARMUP + ACTIVE, around)
        prof.export_chrome_trace(str(out / f"rank{rank}.pt.trace.json"))
        write_steps(out / f"rank{rank}.steps.json", times[WAIT + WARMUP:])
    else:
        def around(i, body):
            torch.cuda.nvtx.range_push(f"step {i}")
            body()
            torch.cuda.nvtx.range_pop()

        times = timed(work, WARMUP + ACTIVE, around)
        write_steps(out / f"rank{rank}.nsys.steps.json", times[WARMUP:])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
