"""ranks.py — one rank of a four-rank data-parallel step with a deliberately slow rank.

Started once per rank (RANK=0..3, WORLD_SIZE=4, MASTER_PORT), each under its own nsys:

    RANK=r WORLD_SIZE=4 MASTER_PORT=29533 nsys profile --trace=cuda,nvtx,osrt \
        -o rank%q{RANK} python3 ranks.py

All ranks share the one GPU (cuda:0) and all-reduce CPU tensors through gloo, so a
rank's collective wait is host time inside the NVTX range "allreduce". Each of STEPS
steps (NVTX "step N") runs "data" (host-side batch preparation), "compute" (bf16 matmuls,
then a device-to-host copy of the gradient) and "allreduce" (dist.all_reduce of the
gradient, copied back to the GPU). Rank SLOW_RANK spends SLOW_MS more in "data" every
step (a slow data loader), so it arrives last at every all-reduce and the others wait.
"""

import os
import time

import torch
import torch.distributed as dist

nvtx = torch.cuda.nvtx
STEPS = 8
SLOW_RANK = 2
SLOW_MS = 40


def main():
    rank, world = int(os.environ["RANK"]), int(os.environ.get("WORLD_SIZE", "4"))
    port = os.environ.get("MASTER_PORT", "29533")
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world
    )
    dev = torch.device("cuda:0")
    torch.manual_seed(rank)
    w = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16)
    x = torch.randn(4096, 2048, device=dev, dtype=torch.bfloat16)
    (x @ w).sum().item()  # warm-up: cuBLAS, allocator
    dist.barrier()
    for step in range(STEPS):
        nvtx.range_push(f"step {step}")
        nvtx.range_push("data")
        batch = torch.randn(4096, 2048).to(torch.bfloat16)
        if rank == SLOW_RANK:
            time.sleep(SLOW_MS / 1000)
        x = batch.to(dev, non_blocking=False)
        nvtx.range_pop()
        nvtx.range_push("compute")
        h = x
        for _ in range(6):
            h = torch.tanh(h @ w)
        grad = (h.float().T @ h.float()[:, :256]).cpu()
        nvtx.range_pop()
        nvtx.range_push("allreduce")
        dist.all_reduce(grad)
        w = w - 1e-6 * grad[:, :1].to(dev, torch.bfloat16)
        nvtx.range_pop()
        nvtx.range_pop()
    torch.cuda.synchronize()
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {rank} done", float(w.float().sum()))


if __name__ == "__main__":
    main()
