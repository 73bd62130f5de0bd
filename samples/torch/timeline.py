"""timeline.py — a PyTorch program for an Nsight Systems timeline sample.

    nsys profile --trace=cuda,nvtx,osrt -o timeline_torch -f true python3 timeline.py

What the timeline shows, in order (NVTX ranges in quotes):
  "setup"        model + data creation, a pageable host->device copy (64 MB,
                 synchronous) and a pinned host->device copy with non_blocking=True
  "tiny_ops"     400 tiny elementwise kernels on a 1 Ki-element tensor (launch bound)
  "train_step"   5 iterations of a small MLP forward/backward/SGD step, each in its
                 own nested "iter" range, then torch.cuda.synchronize()
  "cpu_stall"    torch.cuda.synchronize() then time.sleep(0.05): GPU idle for 50 ms
  "cuda_graph"   capture of a few elementwise ops into a CUDA graph, then 20 replays
  "two_streams"  matmuls on two side streams at once, joined with wait_stream
  "eval"         a forward pass under torch.no_grad(), result copied to the host
"""

import time

import torch
import torch.nn as nn

nvtx = torch.cuda.nvtx


def main():
    assert torch.cuda.is_available()
    dev = torch.device("cuda")
    torch.manual_seed(0)

    nvtx.range_push("setup")
    model = nn.Sequential(
        nn.Linear(1024, 2048), nn.GELU(), nn.Linear(2048, 1024)
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    host_pageable = torch.randn(16 << 20)  # 64 MB, pageable
    dev_a = host_pageable.to(dev)  # synchronous pageable H2D copy
    host_pinned = torch.randn(16 << 20).pin_memory()
    dev_b = host_pinned.to(dev, non_blocking=True)  # async pinned H2D copy
    xb = torch.randn(256, 1024, device=dev)
    yb = torch.randn(256, 1024, device=dev)
    torch.cuda.synchronize()
    nvtx.range_pop()

    nvtx.range_push("tiny_ops")
    t = torch.zeros(1024, device=dev)
    for _ in range(100):
        t = t + 1.0
        t = t * 0.5
        t = torch.relu(t)
        t = t - 0.25
    nvtx.range_pop()

    nvtx.range_push("train_step")
    for i in range(5):
        nvtx.range_push(f"iter {i}")
        opt.zero_grad(set_to_none=True)
        loss = ((model(xb) - yb) ** 2).mean()
        loss.backward()
        opt.step()
        nvtx.range_pop()
    torch.cuda.synchronize()
    nvtx.range_pop()

    nvtx.range_push("cpu_stall")
    torch.cuda.synchronize()
    time.sleep(0.05)  # the GPU has nothing to do for 50 ms
    nvtx.range_pop()

    nvtx.range_push("cuda_graph")
    static_x = torch.randn(1 << 20, device=dev)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up on a side stream before capture
        for _ in range(3):
            static_y = torch.sin(static_x) * 2.0 + 1.0
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_y = torch.sin(static_x) * 2.0 + 1.0
        static_y = torch.relu(static_y)
    for _ in range(20):
        static_x.add_(0.01)
        g.replay()
    torch.cuda.synchronize()
    nvtx.range_pop()

    nvtx.range_push("two_streams")
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    m1 = torch.randn(2048, 2048, device=dev)
    m2 = torch.randn(2048, 2048, device=dev)
    s1.wait_stream(torch.cuda.current_stream())
    s2.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s1):
        r1 = m1
        for _ in range(8):
            r1 = r1 @ m1 * 1e-3
    with torch.cuda.stream(s2):
        r2 = m2
        for _ in range(8):
            r2 = r2 @ m2 * 1e-3
    torch.cuda.current_stream().wait_stream(s1)
    torch.cuda.current_stream().wait_stream(s2)
    total = r1 + r2 + dev_a[:1].sum() + dev_b[:1].sum()
    torch.cuda.synchronize()
    nvtx.range_pop()

    nvtx.range_push("eval")
    with torch.no_grad():
        pred = model(xb)
    result = pred.sum().item()  # D2H copy + implicit sync
    nvtx.range_pop()

    print("timeline done", torch.__version__, result, float(total.sum()), float(static_y.sum()), float(t.sum()))


if __name__ == "__main__":
    main()
