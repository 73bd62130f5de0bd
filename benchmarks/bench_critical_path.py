"""Benchmark the critical path and the what-if against ``summary`` on a large timeline.

    python benchmarks/bench_critical_path.py [--sample join_trace] [--kernels 300000]
        [--faster REGEX=FACTOR]

The large trace is ``samples/nsys/NAME.sqlite.xz`` with its CUDA rows (kernels, copies,
memsets, API calls) and NVTX ranges replicated with time offsets (``bench_nsys.replicate``),
so its steps repeat too. Each case is a fresh process, timed on the wall clock:

- floor: ``kernelscope summary TRACE`` (every timeline analysis, printed);
- value: ``kernelscope whatif TRACE --faster REGEX=FACTOR`` (the graph, the measured replay
  with every step's critical path and slack, the changed replay and its paths; JSON).

Prints floor, value and value / floor; the target is a ratio of 2 or less.
"""

from __future__ import annotations

import argparse
import lzma
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_nsys import REPLICATED, SAMPLES, replicate


def seconds(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", default="join_trace")
    ap.add_argument("--kernels", type=int, default=300_000)
    ap.add_argument("--faster", default="gemm|nvjet=2")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-critical-") as tmp:
        sample = Path(tmp) / "sample.sqlite"
        with lzma.open(SAMPLES / f"{args.sample}.sqlite.xz") as src, open(sample, "wb") as dst:
            shutil.copyfileobj(src, dst)
        big = Path(tmp) / "big.sqlite"
        kernels = replicate(sample, big, args.kernels, (*REPLICATED, "NVTX_EVENTS"))
        tool = [sys.executable, "-m", "kernelscope"]
        seconds([*tool, "summary", str(big)])  # warm the page cache and the bytecode
        floor = seconds([*tool, "summary", str(big)])
        value = seconds([*tool, "whatif", str(big), "--faster", args.faster])
    print(f"trace: {args.sample} replicated to {kernels:,} kernels")
    print(f"floor (summary): {floor:.2f} s")
    print(f"value (whatif):  {value:.2f} s")
    print(f"ratio: {value / floor:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
