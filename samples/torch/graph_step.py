"""graph_step.py — one PyTorch inference step, launched eagerly and replayed as a CUDA graph.

    nsys profile --trace=cuda,nvtx,osrt --cuda-graph-trace=node -o graph_eager \
        python3 graph_step.py --mode eager
    nsys profile ... -o graph_replay python3 graph_step.py --mode graph
    nsys profile ... --gpu-metrics-devices=all -o gpu_metrics python3 graph_step.py --mode both

The step is a small residual MLP (4 blocks of layer_norm -> Linear -> GELU -> Linear ->
residual add, batch 32, width 1024): ~30 small kernels a step, so launching it is the
bottleneck. Each of the STEPS steps sits in an NVTX range "step N" inside a range
"eager" or "graph"; "--mode both" runs the eager steps, then the graph replays.
In graph mode the step is captured once (range "capture") and replayed STEPS times.
"""

import argparse

import torch
import torch.nn as nn

nvtx = torch.cuda.nvtx
STEPS = 40


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 2 * width)
        self.down = nn.Linear(2 * width, width)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def eager(model, x):
    nvtx.range_push("eager")
    for i in range(STEPS):
        nvtx.range_push(f"step {i}")
        with torch.no_grad():
            y = model(x)
        nvtx.range_pop()
    torch.cuda.synchronize()
    nvtx.range_pop()
    return y


def graph(model, x):
    nvtx.range_push("capture")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():  # warm-up before capture
        for _ in range(3):
            model(x)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g), torch.no_grad():
        y = model(x)
    torch.cuda.synchronize()
    nvtx.range_pop()
    nvtx.range_push("graph")
    for i in range(STEPS):
        nvtx.range_push(f"step {i}")
        g.replay()
        nvtx.range_pop()
    torch.cuda.synchronize()
    nvtx.range_pop()
    return y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=("eager", "graph", "both"), default="eager")
    mode = ap.parse_args().mode
    assert torch.cuda.is_available()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = nn.Sequential(*[Block(1024) for _ in range(4)]).to(dev).eval()
    x = torch.randn(32, 1024, device=dev)
    with torch.no_grad():  # warm-up: cuBLAS handles, allocator, lazy modules
        for _ in range(3):
            model(x)
    torch.cuda.synchronize()
    out = []
    if mode in ("eager", "both"):
        out.append(eager(model, x))
    if mode in ("graph", "both"):
        out.append(graph(model, x))
    print("graph_step", mode, torch.__version__, [float(y.float().sum()) for y in out])


if __name__ == "__main__":
    main()
