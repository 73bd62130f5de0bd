"""opeff.py — operators whose work is known from their shapes, for operator-efficiency checks.

    python3 opeff.py kineto gemm OUTDIR   -> OUTDIR/gemm_sweep.pt.trace.json (record_shapes,
                                             with_flops; ProfilerStep#N around each step)
    python3 opeff.py kineto sdpa OUTDIR   -> OUTDIR/sdpa.pt.trace.json
    nsys profile ... python3 opeff.py nvtx gemm OUTDIR
                                          -> emit_nvtx(record_shapes=True): shapes in NVTX names
    ncu --profile-from-start off ... python3 opeff.py ncu gemm|sdpa OUTDIR
                                          -> one step between cudaProfilerStart/Stop

The "gemm" step (all bf16 on cuda:0), each operator REPS times:
  aten::mm       (4096 x 4096) @ (4096 x 4096), (2048 x 1024) @ (1024 x 8192),
                 (8192 x 2048) @ (2048 x 512)
  aten::addmm    bias 4096 + (4096 x 1024) @ (1024 x 4096)
  aten::bmm      (16 x 1024 x 128) @ (16 x 128 x 1024)
  aten::baddbmm  (16 x 1024 x 1024) + (16 x 1024 x 128) @ (16 x 128 x 1024)
  aten::matmul   (8 x 512 x 2048) @ (2048 x 2048)
  aten::linear   x (4096 x 2048), weight (8192 x 2048), bias 8192, forward and backward
                 (x and weight require grad: AddmmBackward0 runs two mm)
  aten::conv2d   x (32 x 64 x 56 x 56), weight (128 x 64 x 3 x 3), padding 1, forward and
                 backward
  bytes-only     aten::add, aten::mul, aten::gelu, aten::layer_norm, aten::softmax, aten::sum
                 over a (8192 x 8192) bf16 tensor
The "sdpa" step: q, k, v (4 x 16 x 2048 x 128) bf16, requiring grad;
scaled_dot_product_attention forward and backward, is_causal False, then True.
"""

import os
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function, schedule

REPS = int(os.environ.get("OPEFF_REPS", "3"))
DEV = torch.device("cuda:0")
BF16 = torch.bfloat16


def rand(*shape, grad=False):
    t = torch.randn(*shape, device=DEV, dtype=BF16) * 0.1
    return t.requires_grad_(grad)


class GemmStep:
    def __init__(self):
        self.mm = [(rand(4096, 4096), rand(4096, 4096)), (rand(2048, 1024), rand(1024, 8192)),
                   (rand(8192, 2048), rand(2048, 512))]
        self.addmm = (rand(4096), rand(4096, 1024), rand(1024, 4096))
        self.bmm = (rand(16, 1024, 128), rand(16, 128, 1024))
        self.baddbmm = (rand(16, 1024, 1024), rand(16, 1024, 128), rand(16, 128, 1024))
        self.matmul = (rand(8, 512, 2048), rand(2048, 2048))
        self.linear = (rand(4096, 2048, grad=True), rand(8192, 2048, grad=True),
                       rand(8192, grad=True))
        self.conv = (rand(32, 64, 56, 56, grad=True), rand(128, 64, 3, 3, grad=True))
        self.big = rand(8192, 8192)

    def __call__(self):
        for _ in range(REPS):
            for a, b in self.mm:
                torch.mm(a, b)
            torch.addmm(*self.addmm)
            torch.bmm(*self.bmm)
            torch.baddbmm(*self.baddbmm)
            torch.matmul(*self.matmul)
            F.linear(*self.linear).float().sum().backward()
            F.conv2d(*self.conv, padding=1).float().sum().backward()
            x = self.big
            torch.add(x, x)
            torch.mul(x, x)
            F.gelu(x)
            F.layer_norm(x, (8192,))
            torch.softmax(x, dim=-1)
            torch.sum(x, dim=-1)


class SdpaStep:
    def __init__(self):
        self.qkv = [rand(4, 16, 2048, 128, grad=True) for _ in range(3)]

    def __call__(self):
        for causal in (False, True):
            for _ in range(REPS):
                out = F.scaled_dot_product_attention(*self.qkv, is_causal=causal)
                out.float().sum().backward()


def run_kineto(step, out, name):
    step()
    torch.cuda.synchronize()
    prof = profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
        record_shapes=True,
        with_flops=True,
    )
    with prof:
        for _ in range(4):
            step()
            torch.cuda.synchronize()
            prof.step()
    prof.export_chrome_trace(str(out / f"{name}.pt.trace.json"))


def run_nvtx(step):
    step()
    torch.cuda.synchronize()
    with torch.autograd.profiler.emit_nvtx(record_shapes=True):
        for i in range(2):
            torch.cuda.nvtx.range_push(f"step {i}")
            step()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()


def run_ncu(step):
    step()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    with record_function("opeff"):
        step()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


def main():
    mode, which, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    step = GemmStep() if which == "gemm" else SdpaStep()
    name = "gemm_sweep" if which == "gemm" else "sdpa"
    if mode == "kineto":
        run_kineto(step, out, name)
    elif mode == "nvtx":
        run_nvtx(step)
    else:
        run_ncu(step)
    print("opeff", mode, which, "done")


if __name__ == "__main__":
    main()
