"""kineto_ranks.py — one rank of a four-rank data-parallel step, profiled with torch.profiler.

Started once per rank on the one GPU (cuda:0), the ranks talking through gloo:

    RANK=r WORLD_SIZE=4 MASTER_PORT=29555 python3 kineto_ranks.py OUTDIR
        -> OUTDIR/rank{r}.pt.trace.json

Each of STEPS steps runs "compute" (bf16 matmuls on the current batch, then a device-to-host
copy of the gradient), "data" (host-side preparation of the next batch, copied to the GPU)
and "allreduce" (dist.all_reduce of the gradient over gloo, copied back to the GPU). Rank
SLOW_RANK sleeps SLOW_MS at the end of "data" every step, right before the all-reduce, so
it arrives last at every all-reduce, SLOW_MS after the others, and they wait for it. The
profiler records the last ACTIVE steps (schedule wait=1, warmup=1).

The sleep is isolated from everything the ranks share: all four ranks run the same GPU work
and the same batch preparation before it (so the GPU and the host contend equally for all
of them), each rank uses one CPU thread (torch.set_num_threads(1)) and, where the machine
has the cores, its own share of them (os.sched_setaffinity). An earlier version slept
before the GPU work and prepared a 2048 x 2048 batch with the default threads: the ranks'
multi-threaded randn contended for the CPU and the slowed rank ran its GPU work alone, so
it arrived only about 8 ms late instead of 30 ms.
"""

import os
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile, record_function, schedule

ACTIVE = 4
STEPS = 2 + ACTIVE
SLOW_RANK = 2
SLOW_MS = 30


def pin_to_own_cores(rank, world):
    """Give each rank an equal, disjoint share of the CPUs this process may use."""
    cpus = sorted(os.sched_getaffinity(0))
    share = len(cpus) // world
    if share >= 1:
        os.sched_setaffinity(0, cpus[rank * share:(rank + 1) * share])


def next_batch(dev):
    return torch.randn(512, 2048).to(torch.bfloat16).to(dev).repeat(4, 1)


def one_step(rank, dev, w, x):
    with record_function("compute"):
        h = x
        for _ in range(4):
            h = torch.tanh(h @ w)
        grad = (h.float().T @ h.float()[:, :128]).cpu()
    with record_function("data"):
        x = next_batch(dev)
        torch.cuda.synchronize()
        if rank == SLOW_RANK:
            time.sleep(SLOW_MS / 1000)
    with record_function("allreduce"):
        dist.all_reduce(grad)
        w = w - 1e-6 * grad[:, :1].to(dev, torch.bfloat16)
    return w, x


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    rank, world = int(os.environ["RANK"]), int(os.environ.get("WORLD_SIZE", "4"))
    port = os.environ.get("MASTER_PORT", "29555")
    pin_to_own_cores(rank, world)
    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world
    )
    dev = torch.device("cuda:0")
    torch.manual_seed(rank)
    w = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16)
    (w @ w).sum().item()  # warm-up: cuBLAS, allocator
    x = next_batch(dev)
    dist.barrier()
    prof = profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=1, active=ACTIVE, repeat=1),
    )
    with prof:
        for _ in range(STEPS):
            w, x = one_step(rank, dev, w, x)
            torch.cuda.synchronize()
            prof.step()
    prof.export_chrome_trace(str(out / f"rank{rank}.pt.trace.json"))
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {rank} done", float(w.float().sum()))


if __name__ == "__main__":
    main()
