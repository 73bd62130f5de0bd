"""kineto_step.py — a single-GPU training loop profiled with torch.profiler (Kineto).

    python3 kineto_step.py OUTDIR      -> OUTDIR/kineto_step.pt.trace.json

A small bf16 MLP trains on batches from a DataLoader whose dataset builds each sample on
the host (num_workers=0, so loading runs on the main thread and the GPU waits for it). Each
step has record_function ranges "data", "forward", "backward" and "optimizer"; the loss is
read with .item() (a sync). Step 2 empties the allocator's cache first, so its first
tensors are allocated again with cudaMalloc. The profiler records three active steps
(schedule wait=1, warmup=1, active=3) with record_shapes and with_stack (Python frames).
"""

import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

BATCH, WIDTH, STEPS = 256, 1024, 5


class HostBuiltData(torch.utils.data.Dataset):
    """Samples made on the host, one at a time (a slow loader by design)."""

    def __len__(self):
        return BATCH * STEPS

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(WIDTH, generator=g), torch.randint(0, 10, (), generator=g)


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    dev = torch.device("cuda:0")
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(WIDTH, 4 * WIDTH), torch.nn.GELU(), torch.nn.Linear(4 * WIDTH, WIDTH),
        torch.nn.GELU(), torch.nn.Linear(WIDTH, 10),
    ).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = torch.utils.data.DataLoader(HostBuiltData(), batch_size=BATCH, num_workers=0)
    prof = profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
        record_shapes=True, with_stack=True,
    )
    with prof:
        batches = iter(loader)
        for step in range(STEPS):
            if step == 2:
                torch.cuda.empty_cache()
            with record_function("data"):
                x, y = next(batches)
                x, y = x.to(dev, non_blocking=False), y.to(dev)
            with record_function("forward"), torch.autocast("cuda", dtype=torch.bfloat16):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            with record_function("backward"):
                loss.backward()
            with record_function("optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=False)
            print(f"step {step} loss {loss.item():.4f}")
            prof.step()
    prof.export_chrome_trace(str(out / "kineto_step.pt.trace.json"))


if __name__ == "__main__":
    main()
