"""join_app.py — a transformer-like training program for joining a timeline with kernel reports.

    nsys profile --trace=cuda,nvtx,osrt --cuda-graph-trace=node -o join_trace python3 join_app.py
    ncu --set full --import-source yes --profile-from-start off -f -o join_kernels \
        python3 join_app.py --ncu

Each of STEPS steps (NVTX "step N") runs, in NVTX ranges:
  "attention"  bf16 Q/K/V projections and scaled-dot-product attention over 8 heads
  "mlp"        bf16 Linear 2048 -> 8192, GELU, Linear 8192 -> 2048
  "norm"       two layer_norms
  "tiny_ops"   150 tiny elementwise launches on a 256-element tensor (launch-bound)
  "sync"       loss.item(): a device-to-host copy that synchronises every step
With --ncu, cudaProfilerStart/Stop bracket the attention, mlp and norm ranges of steps 3
and 4 only, so the kernel report holds two launches of each main kernel and none of the
tiny ones (those families are left for the join to suggest an ncu command for).
"""

import argparse

import torch
import torch.nn.functional as F

nvtx = torch.cuda.nvtx
STEPS = 20
PROFILED = (3, 4)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ncu", action="store_true")
    ncu = ap.parse_args().ncu
    assert torch.cuda.is_available()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    bf = torch.bfloat16
    tokens, width, heads = 4096, 2048, 8
    x = torch.randn(tokens, width, device=dev, dtype=bf)
    wq, wk, wv, wo = (torch.randn(width, width, device=dev, dtype=bf) * 0.02 for _ in range(4))
    w1 = torch.randn(width, 4 * width, device=dev, dtype=bf) * 0.02
    w2 = torch.randn(4 * width, width, device=dev, dtype=bf) * 0.02
    g1 = torch.ones(width, device=dev, dtype=bf)
    b1 = torch.zeros(width, device=dev, dtype=bf)
    small = torch.zeros(256, device=dev)
    loss = None
    for step in range(STEPS):
        profiled = ncu and step in PROFILED
        nvtx.range_push(f"step {step}")
        if profiled:
            torch.cuda.profiler.start()
        nvtx.range_push("attention")
        q = (x @ wq).view(tokens // 512, 512, heads, width // heads).transpose(1, 2)
        k = (x @ wk).view(tokens // 512, 512, heads, width // heads).transpose(1, 2)
        v = (x @ wv).view(tokens // 512, 512, heads, width // heads).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v)
        h = x + a.transpose(1, 2).reshape(tokens, width) @ wo
        nvtx.range_pop()
        nvtx.range_push("norm")
        h = F.layer_norm(h, (width,), g1, b1)
        nvtx.range_pop()
        nvtx.range_push("mlp")
        h = h + F.gelu(h @ w1) @ w2
        nvtx.range_pop()
        nvtx.range_push("norm")
        h = F.layer_norm(h, (width,), g1, b1)
        nvtx.range_pop()
        if profiled:
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
        nvtx.range_push("tiny_ops")
        for _ in range(50):
            small = small + 1.0
            small = small * 0.5
            small = torch.relu(small)
        nvtx.range_pop()
        nvtx.range_push("sync")
        loss = float(h.float().mean().item()) + float(small.sum().item())
        nvtx.range_pop()
        nvtx.range_pop()
    print("join_app", torch.__version__, loss)


if __name__ == "__main__":
    main()
