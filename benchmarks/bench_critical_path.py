"""Benchmark the critical path and the what-if against ``summary`` on a large timeline.

    python benchmarks/bench_critical_path.py [--sample join_trace] [--kernels 300000]
        [--faster REGEX=FACTOR] [--repeat N]

The large trace is ``samples/nsys/NAME.sqlite.xz`` with its CUDA rows (kernels, copies,
memsets, API calls) and NVTX ranges replicated with time offsets (``bench_nsys.replicate``),
so its steps repeat too. Each case is a fresh process, timed on the wall clock and by its CPU
time (user + system, the child's: on a shared machine the figure to compare), the least of
``--repeat`` runs, the cases alternating:

- floor: ``kernelscope summary TRACE`` (every timeline analysis, printed);
- value: ``kernelscope whatif TRACE --faster REGEX=FACTOR`` (the graph, the measured replay
  with every step's critical path and slack, the changed replay and its paths; JSON).

Prints floor, value and value / floor, wall and CPU; the target is a ratio of 2 or less.
"""

from __future__ import annotations

import argparse
import lzma
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_nsys import REPLICATED, SAMPLES, replicate


def seconds(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of ``cmd`` run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", default="join_trace")
    ap.add_argument("--kernels", type=int, default=300_000)
    ap.add_argument("--faster", default="gemm|nvjet=2")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each case (the least counts)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-critical-") as tmp:
        sample = Path(tmp) / "sample.sqlite"
        with lzma.open(SAMPLES / f"{args.sample}.sqlite.xz") as src, open(sample, "wb") as dst:
            shutil.copyfileobj(src, dst)
        big = Path(tmp) / "big.sqlite"
        kernels = replicate(sample, big, args.kernels, (*REPLICATED, "NVTX_EVENTS"))
        tool = [sys.executable, "-m", "kernelscope"]
        seconds([*tool, "summary", str(big)])  # warm the page cache and the bytecode
        runs = [(seconds([*tool, "summary", str(big)]),
                 seconds([*tool, "whatif", str(big), "--faster", args.faster]))
                for _ in range(max(args.repeat, 1))]
    print(f"trace: {args.sample} replicated to {kernels:,} kernels")
    for label, pick in (("wall", 0), ("CPU", 1)):
        floor = min(run[0][pick] for run in runs)
        value = min(run[1][pick] for run in runs)
        print(f"{label}: floor (summary) {floor:.2f} s, value (whatif) {value:.2f} s, "
              f"ratio {value / floor:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
