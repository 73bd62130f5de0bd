"""kineto_ranks.py — one rank of a four-rank data-parallel step, profiled with torch.profiler.

Started once per rank on the one GPU (cuda:0), the ranks talking through gloo:

    RANK=r WORLD_SIZE=4 MASTER_PORT=29555 python3 kineto_ranks.py OUTDIR
        -> OUTDIR/rank{r}.pt.trace.json

Each of STEPS steps runs "data" (host-side batch preparation), "compute" (bf16 matmuls, then
a device-to-host copy of the gradient) and "allreduce" (dist.all_reduce of the gradient over
gloo, copied back to the GPU). Rank SLOW_RANK sleeps SLOW_MS in "data" every step, so it
arrives last at every all-reduce, SLOW_MS after the others, and they wait for it. The
profiler records the last ACTIVE steps (schedule wait=1, warmup=1).

Each rank uses one CPU thread (torch.set_num_threads(1)) and prepares a small batch: the
committed traces were made with the default threads and a 2048 x 2048 batch, and the four
ranks' multi-threaded randn contended for the CPU, so rank 2 arrived 7-28 ms late instead
of 30 ms (its sleep freed cores for the others). The next regeneration uses this version.
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


def one_step(rank, dev, w):
    with record_function("data"):
        batch = torch.randn(512, 2048).to(torch.bfloat16)
        if rank == SLOW_RANK:
            time.sleep(SLOW_MS / 1000)
        x = batch.to(dev).repeat(4, 1)
    with record_function("compute"):
        h = x
        for _ in range(4):
            h = torch.tanh(h @ w)
        grad = (h.float().T @ h.float()[:, :128]).cpu()
    with record_function("allreduce"):
        dist.all_reduce(grad)
        w = w - 1e-6 * grad[:, :1].to(dev, torch.bfloat16)
    return w


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    rank, world = int(os.environ["RANK"]), int(os.environ.get("WORLD_SIZE", "4"))
    port = os.environ.get("MASTER_PORT", "29555")
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world
    )
    torch.set_num_threads(1)
    dev = torch.device("cuda:0")
    torch.manual_seed(rank)
    w = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16)
    (w @ w).sum().item()  # warm-up: cuBLAS, allocator
    dist.barrier()
    prof = profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=1, active=ACTIVE, repeat=1),
    )
    with prof:
        for _ in range(STEPS):
            w = one_step(rank, dev, w)
            torch.cuda.synchronize()
            prof.step()
    prof.export_chrome_trace(str(out / f"rank{rank}.pt.trace.json"))
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {rank} done", float(w.float().sum()))


if __name__ == "__main__":
    main()
