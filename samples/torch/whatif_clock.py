"""whatif_clock.py — the GPU's clock and power while whatif_cases.py's `shift` runs.

    python3 samples/torch/whatif_clock.py      (from the repository root; needs nvidia-smi)

Runs `shift`'s base (6 GEMMs beside a 6 ms spin) and fast (3 GEMMs) variants alternately,
9 steps each, first as whatif_cases.py profiles them (one warm-up step) and then after 3 s of
the same steps, and prints per run: the median step, the spin's time and the mean SM clock it
implies (the spin counts SM cycles: 1.98 million per ms asked), a GEMM's time (CUDA events),
and what nvidia-smi sampled every 50 ms meanwhile: SM clock, power draw, throttle reasons
(0x4: the software power cap).
"""

import statistics as st
import subprocess
import sys
import threading
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from whatif_cases import CASES, CYCLES_PER_MS, Work

SMI = ["nvidia-smi", "--query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active",
       "--format=csv,noheader,nounits", "-lms", "50"]
readings = []  # (time, SM MHz, power W, throttle reasons)


def read_smi(proc):
    for line in proc.stdout:
        try:
            sm, power, reasons = (x.strip() for x in line.split(","))
            readings.append((time.time(), float(sm), float(power), reasons))
        except ValueError:
            pass


def run_steps(work, args, steps):
    """(step ms, spin ms, ms per GEMM) of each of ``steps`` steps of ``shift``."""
    main = torch.cuda.current_stream()
    gemms, spin_ms, _, _ = args
    rows = []
    for _ in range(steps):
        marks = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
        t0 = time.perf_counter()
        work.side.wait_stream(main)
        with torch.cuda.stream(work.side):
            marks[0].record()
            torch.cuda._sleep(int(spin_ms * CYCLES_PER_MS))
            marks[1].record()
        marks[2].record()
        h = work.a
        for _ in range(gemms):
            h = h @ work.w
        marks[3].record()
        main.wait_stream(work.side)
        torch.cuda.synchronize()
        rows.append(((time.perf_counter() - t0) * 1e3, marks[0].elapsed_time(marks[1]),
                     marks[2].elapsed_time(marks[3]) / gemms))
    return rows


def main():
    work = Work()
    proc = subprocess.Popen(SMI, stdout=subprocess.PIPE, text=True)
    threading.Thread(target=read_smi, args=(proc,), daemon=True).start()
    time.sleep(1.5)
    print(f"idle: SM {st.median(r[1] for r in readings):.0f} MHz, "
          f"{st.median(r[2] for r in readings):.0f} W", flush=True)
    for protocol, warm_s in (("as profiled (1 warm-up step)", 0.0), ("after 3 s of steps", 3.0)):
        for variant in ("base", "fast", "base", "fast"):
            args = CASES["shift"][variant]
            end = time.perf_counter() + warm_s
            run_steps(work, args, 1)
            while time.perf_counter() < end:
                run_steps(work, args, 1)
            t0 = time.time()
            rows = run_steps(work, args, 9)
            seen = [r for r in readings if t0 <= r[0] <= time.time()]
            spin = st.median(r[1] for r in rows)
            print(f"{protocol:28s} {variant}: step {st.median(r[0] for r in rows):6.2f} ms, "
                  f"spin {spin:5.2f} ms ({args[1] * CYCLES_PER_MS / spin / 1e3:.0f} MHz), "
                  f"GEMM {st.median(r[2] for r in rows):5.3f} ms; nvidia-smi: SM "
                  f"{st.median(r[1] for r in seen):.0f} MHz, "
                  f"{st.median(r[2] for r in seen):.0f} W, "
                  f"reasons {sorted({r[3] for r in seen})}", flush=True)
            time.sleep(0.5)
    proc.terminate()


if __name__ == "__main__":
    main()
