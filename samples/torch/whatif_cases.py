"""whatif_cases.py — base/variant pairs for checking a critical-path what-if against a re-run.

    python3 whatif_cases.py kineto OUTDIR            -> OUTDIR/<case>_<variant>.pt.trace.json
    nsys profile ... python3 whatif_cases.py nvtx OUTDIR CASE VARIANT
                                                     -> NVTX "step N" ranges, one run
They write OUTDIR/<case>_<variant>.steps.json (kineto) and <case>_<variant>.nsys.steps.json
(nvtx): each profiled step's wall time measured on the CPU (perf_counter from the step's start
to the end of its closing synchronise).

Every step ends with torch.cuda.synchronize(), so a step's time is what the CPU waits for.
Two kinds of GPU work, chosen so that two streams barely share SMs:
  * GEMM  — bf16 8192 x 8192 x 8192 matmuls (cuBLAS; each fills the GPU, ~1.5 ms on an H200);
  * SPIN  — torch.cuda._sleep(cycles): at::cuda's `spin_kernel`, one thread that spins for a
            number of clock cycles, so halving its cycles halves its work and its time, and it
            takes one SM from a GEMM beside it.
Cases (main = the default stream, side = a second stream the main stream waits for by event):
  serial  main: 3 GEMM, then SPIN 4 ms.                      fast: SPIN 2 ms
  beside  main: 6 GEMM; side: SPIN 4 ms.                     fast: SPIN 2 ms
  hidden  main: SPIN 4 ms, then 10 ms of host work before the synchronise.  fast: SPIN 2 ms
  shift   main: 6 GEMM; side: SPIN 6 ms.                     fast: 3 GEMM (half the chain)
The what-if to check on each base trace: `spin_kernel` x2 for serial, beside and hidden; the
GEMM kernel (cuBLAS's, named in README) x2 for shift. The naive estimate (base step minus
the time saved) is right only for serial.
"""

import json
import sys
import time
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, schedule

WAIT, WARMUP, ACTIVE = 1, 2, 6
CYCLES_PER_MS = 1_980_000  # the H200's top SM clock: 1,980 MHz
CASES = {
    # case: {variant: (gemms on main, spin ms, spin on side?, host ms)}
    "serial": {"base": (3, 4.0, False, 0.0), "fast": (3, 2.0, False, 0.0)},
    "beside": {"base": (6, 4.0, True, 0.0), "fast": (6, 2.0, True, 0.0)},
    "hidden": {"base": (0, 4.0, False, 10.0), "fast": (0, 2.0, False, 10.0)},
    "shift": {"base": (6, 6.0, True, 0.0), "fast": (3, 6.0, True, 0.0)},
}


class Work:
    def __init__(self):
        self.dev = torch.device("cuda:0")
        g = torch.Generator(device=self.dev).manual_seed(0)
        n = 8192
        self.a = torch.randn(n, n, device=self.dev, dtype=torch.bfloat16, generator=g)
        self.w = torch.randn(n, n, device=self.dev, dtype=torch.bfloat16, generator=g) / n**0.5
        self.side = torch.cuda.Stream()

    def step(self, gemms, spin_ms, spin_on_side, host_ms):
        main = torch.cuda.current_stream()
        cycles = int(spin_ms * CYCLES_PER_MS)
        if spin_on_side:
            self.side.wait_stream(main)
            with torch.cuda.stream(self.side):
                torch.cuda._sleep(cycles)
        elif gemms == 0:
            torch.cuda._sleep(cycles)
        h = self.a
        for _ in range(gemms):
            h = h @ self.w
        if spin_on_side:
            main.wait_stream(self.side)
        elif gemms:
            torch.cuda._sleep(cycles)
        if host_ms:
            end = time.perf_counter() + host_ms / 1000
            while time.perf_counter() < end:  # host work the CPU does before it synchronises
                pass
        torch.cuda.synchronize()
        return h


def timed_steps(work, args, steps, each_step):
    times = []
    for i in range(steps):
        t0 = time.perf_counter()
        each_step(i, lambda: work.step(*args))
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def run_kineto(out):
    work = Work()
    for case, variants in CASES.items():
        for variant, args in variants.items():
            work.step(*args)  # warm-up outside the profile
            prof = profile(
                activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1),
                experimental_config=torch._C._profiler._ExperimentalConfig(
                    enable_cuda_sync_events=True
                ),
            )

            def each(_i, body, prof=prof):
                body()
                prof.step()

            with prof:
                times = timed_steps(work, args, WAIT + WARMUP + ACTIVE, each)
            name = f"{case}_{variant}"
            prof.export_chrome_trace(str(out / f"{name}.pt.trace.json"))
            write_steps(out / f"{name}.steps.json", times[WAIT + WARMUP :])


def run_nvtx(out, case, variant):
    work = Work()
    args = CASES[case][variant]
    work.step(*args)
    nvtx = torch.cuda.nvtx

    def each(i, body):
        nvtx.range_push(f"step {i}")
        body()
        nvtx.range_pop()

    times = timed_steps(work, args, WARMUP + ACTIVE, each)
    write_steps(out / f"{case}_{variant}.nsys.steps.json", times[WARMUP:])


def write_steps(path, times):
    ordered = sorted(times)
    median = ordered[len(ordered) // 2] if len(ordered) % 2 else sum(
        ordered[len(ordered) // 2 - 1 : len(ordered) // 2 + 1]) / 2
    path.write_text(json.dumps({"step_ms": times, "median_ms": median}, indent=1))
    print(path.name, f"median {median:.3f} ms", [round(t, 3) for t in times])


def main():
    mode, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    if mode == "kineto":
        run_kineto(out)
    else:
        run_nvtx(out, sys.argv[3], sys.argv[4])


if __name__ == "__main__":
    main()
