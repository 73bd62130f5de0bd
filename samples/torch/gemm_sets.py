"""gemm_sets.py — cuBLAS GEMMs in three precisions, for the section-set diagnosis samples.

    ncu --clock-control none --profile-from-start off -f -o gemm_torch_default python3 gemm_sets.py
    ncu --clock-control none --set full --profile-from-start off -f -o gemm_torch_full \
        python3 gemm_sets.py

After a warm-up pass, profiles (between torch.cuda.profiler.start/stop):
  bf16 4096^3 (tensor cores), fp32 4096^3 with TF32 off (FP32 FMA pipe),
  fp64 2048^3 (FP64: DMMA tensor cores on Hopper), and an fp64 elementwise exp.
"""

import torch


def ops(t):
    return [
        t["a16"] @ t["b16"],
        t["a32"] @ t["b32"],
        t["a64"] @ t["b64"],
        torch.exp(t["a64"]),
    ]


def main():
    assert torch.cuda.is_available()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    dev = "cuda"
    t = {
        "a16": torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16),
        "b16": torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16),
        "a32": torch.randn(4096, 4096, device=dev),
        "b32": torch.randn(4096, 4096, device=dev),
        "a64": torch.randn(2048, 2048, device=dev, dtype=torch.float64),
        "b64": torch.randn(2048, 2048, device=dev, dtype=torch.float64),
    }
    ops(t)
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    out = ops(t)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print("gemm_sets", torch.__version__, [tuple(o.shape) for o in out])


if __name__ == "__main__":
    main()
