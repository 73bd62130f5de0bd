"""uneven_ranks.py — two ranks of one run whose profiles start at different points.

Started once per rank on the one GPU (cuda:0), the ranks talking through gloo:

    RANK=r WORLD_SIZE=2 MASTER_PORT=29577 python3 uneven_ranks.py OUTDIR
        -> OUTDIR/rank{r}.pt.trace.json

Every step runs GPU work (bf16 matmuls), then three collectives of different kinds, sizes
and dtypes, in this order on both ranks:

    all_reduce  float32  1,048,576 elements   ("grad")
    all_reduce  float64     65,536 elements   ("stats")
    broadcast   int64        4,096 elements   ("tokens", from rank 0)

No rank sleeps: the ranks arrive together and nobody is a straggler. Both run on one host and
share one clock.

The profiles do not line up. Rank 0 starts its profiler before step 0 and records STEPS steps:
3 x STEPS collectives. Rank 1 starts its profiler in the middle of step 0, after that step's
first all_reduce, so it records 3 x STEPS - 1 collectives, and its first recorded collective
is the float64 all_reduce while rank 0's is the float32 one. A tool that pairs collectives by
their position in each rank's list pairs an all_reduce of 4 MB with one of 512 kB, and a
broadcast with an all_reduce; pairing by kind, size and dtype (and the order within those)
pairs them right. Each step is a `record_function("step N")` range on both ranks.
"""

import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile, record_function

STEPS = 4


def compute(w, x):
    h = x
    for _ in range(3):
        h = torch.tanh(h @ w)
    return h


def collectives(rank, dev, h, prof_start=None):
    grad = h.float().sum(0).repeat(512)[: 1 << 20].contiguous()
    dist.all_reduce(grad)
    if prof_start is not None:
        prof_start()
    stats = torch.arange(1 << 16, dtype=torch.float64, device=dev) * rank
    dist.all_reduce(stats)
    tokens = torch.full((4096,), rank, dtype=torch.int64, device=dev)
    dist.broadcast(tokens, src=0)
    return grad, stats, tokens


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    rank, world = int(os.environ["RANK"]), int(os.environ.get("WORLD_SIZE", "2"))
    port = os.environ.get("MASTER_PORT", "29577")
    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world
    )
    dev = torch.device("cuda:0")
    torch.manual_seed(rank)
    w = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16) * 0.02
    x = torch.randn(4096, 2048, device=dev, dtype=torch.bfloat16)
    compute(w, x).sum().item()  # warm-up: cuBLAS, allocator
    collectives(rank, dev, compute(w, x))
    torch.cuda.synchronize()
    dist.barrier()
    prof = profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True
    )
    if rank == 0:
        prof.start()
    for step in range(STEPS):
        with record_function(f"step {step}"):
            h = compute(w, x)
            late_start = prof.start if (rank == 1 and step == 0) else None
            collectives(rank, dev, h, late_start)
            torch.cuda.synchronize()
    prof.stop()
    prof.export_chrome_trace(str(out / f"rank{rank}.pt.trace.json"))
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {rank} done")


if __name__ == "__main__":
    main()
