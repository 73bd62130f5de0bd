"""opeff_optim.py — optimizer steps and variable-length attention, traced with their shapes.

    python3 opeff_optim.py OUTDIR   -> OUTDIR/optim_varlen.pt.trace.json (record_shapes,
                                       with_flops; ProfilerStep#N around each step)

Each step, on cuda:0:
  a three-layer MLP (fp32 parameters 4096 x 4096, 4096 x 4096, 4096 x 1024; batch 512):
  forward, backward, then AdamW with foreach=True (PyTorch's _foreach_* kernels) and a
  second AdamW over a copy of the parameters with fused=True (aten::_fused_adamw_);
  variable-length attention over three packed sequences (lengths 512, 1024 and 256; 16 heads
  of 128, bf16) through aten::_flash_attention_forward with cum_seq_q / cum_seq_k, and
  through aten::_efficient_attention_forward with cu_seqlens, where this PyTorch has them.
What ran is printed (one line per part), so that a part this PyTorch lacks is said, not hidden.
"""

import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, schedule

DEV = torch.device("cuda:0")
LENGTHS = (512, 1024, 256)
HEADS, HEAD_DIM = 16, 128


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(4096, 4096), torch.nn.GELU(),
            torch.nn.Linear(4096, 4096), torch.nn.GELU(),
            torch.nn.Linear(4096, 1024))

    def forward(self, x):
        return self.layers(x)


def packed(total):
    t = torch.randn(total, HEADS, HEAD_DIM, device=DEV, dtype=torch.bfloat16) * 0.1
    return t


class Step:
    def __init__(self):
        self.model = Mlp().to(DEV)
        self.twin = Mlp().to(DEV)
        self.x = torch.randn(512, 4096, device=DEV)
        self.opt_foreach = torch.optim.AdamW(self.model.parameters(), lr=1e-4, foreach=True)
        self.opt_fused = torch.optim.AdamW(self.twin.parameters(), lr=1e-4, fused=True)
        total = sum(LENGTHS)
        self.q, self.k, self.v = packed(total), packed(total), packed(total)
        starts = [0]
        for n in LENGTHS:
            starts.append(starts[-1] + n)
        self.cu = torch.tensor(starts, device=DEV, dtype=torch.int32)
        self.max_len = max(LENGTHS)
        self.parts = []

    def train(self):
        for model, opt in ((self.model, self.opt_foreach), (self.twin, self.opt_fused)):
            opt.zero_grad(set_to_none=True)
            model(self.x).sum().backward()
            opt.step()

    def flash_varlen(self):
        torch.ops.aten._flash_attention_forward(
            self.q, self.k, self.v, self.cu, self.cu, self.max_len, self.max_len,
            0.0, False, False)

    def efficient_varlen(self):
        q, k, v = (t.unsqueeze(0) for t in (self.q, self.k, self.v))
        torch.ops.aten._efficient_attention_forward(
            q, k, v, None, self.cu, self.cu, self.max_len, self.max_len, 0.0, 0, False)

    def probe(self):
        """Run each part once and keep the ones this PyTorch has."""
        self.train()
        self.parts = [self.train]
        for part in (self.flash_varlen, self.efficient_varlen):
            try:
                part()
            except (RuntimeError, TypeError, AttributeError) as exc:
                print("skipped", part.__name__, type(exc).__name__, str(exc)[:200])
            else:
                self.parts.append(part)
                print("ran", part.__name__)
        torch.cuda.synchronize()

    def __call__(self):
        for part in self.parts:
            part()


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    print("torch", torch.__version__, torch.cuda.get_device_name(0))
    step = Step()
    step.probe()
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
    prof.export_chrome_trace(str(out / "optim_varlen.pt.trace.json"))
    print("opeff_optim done")


if __name__ == "__main__":
    main()
