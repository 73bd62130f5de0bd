"""nccl_ranks.py — one rank of a two-GPU data-parallel step with NCCL all-reduce and a slow rank.

Started once per rank (RANK=0..1, WORLD_SIZE=2, MASTER_PORT), each under its own nsys, on a
machine with two GPUs (rank r uses cuda:r):

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 RANK=r WORLD_SIZE=2 \
        MASTER_PORT=29544 nsys profile --trace=cuda,nvtx,osrt -o nccl_rank%q{RANK} \
        python3 nccl_ranks.py

Each of STEPS steps (NVTX "step N") runs "data" (host-side batch preparation and its copy),
"compute" (bf16 matmuls: forward and a stand-in backward producing a 64 MB gradient) and
"allreduce" (dist.all_reduce of the gradient on the GPU: an NCCL kernel). Rank SLOW_RANK
spends SLOW_MS more in "data" every step, so it reaches every all-reduce last and the other
rank's NCCL kernel waits for it inside the kernel (the kernel starts early and runs long).
"""

import os
import time

import torch
import torch.distributed as dist

nvtx = torch.cuda.nvtx
STEPS = 10
SLOW_RANK = 1
SLOW_MS = 30


def main():
    rank, world = int(os.environ["RANK"]), int(os.environ.get("WORLD_SIZE", "2"))
    port = os.environ.get("MASTER_PORT", "29544")
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group(
        "nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
        device_id=dev,
    )
    torch.manual_seed(rank)
    w = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16) * 0.01
    grad = torch.zeros(4096, 4096 * 2, device=dev, dtype=torch.bfloat16)  # 64 MB
    dist.all_reduce(grad)  # warm-up: NCCL communicators, cuBLAS
    torch.cuda.synchronize()
    for step in range(STEPS):
        nvtx.range_push(f"step {step}")
        nvtx.range_push("data")
        batch = torch.randn(8192, 4096).to(torch.bfloat16)
        if rank == SLOW_RANK:
            time.sleep(SLOW_MS / 1000)
        x = batch.to(dev)
        nvtx.range_pop()
        nvtx.range_push("compute")
        h = x
        for _ in range(8):
            h = torch.tanh(h @ w)
        grad = torch.cat([h.T @ x[:, :4096], h.T @ h], dim=1)[:, : 4096 * 2]
        nvtx.range_pop()
        nvtx.range_push("allreduce")
        dist.all_reduce(grad)
        w = w - 1e-9 * grad[:, :4096]
        nvtx.range_pop()
        nvtx.range_pop()
    torch.cuda.synchronize()
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {rank} done", float(w.float().sum()))


if __name__ == "__main__":
    main()
