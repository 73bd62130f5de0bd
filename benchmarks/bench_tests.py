"""The test suite's own cost (issue 25: "peak RSS <= 4 GB, <= 10 min on CI's two cores").

Usage: python benchmarks/bench_tests.py [PYTEST ARGS ...]
(default: ``-q -n 2``, the README's pytest step; run it from an environment where the README's
install step has run)

Runs pytest as the README's test command does and samples, every 0.2 s, the resident memory of
pytest and every process under it (the xdist workers, the CLI processes the tests start, the
SASS child), from ``/proc``. It prints one table: wall time, the peak of the summed resident
memory of the whole process tree (what the machine must hold at once), the largest single
process (``RUSAGE_CHILDREN``), and pytest's own closing line. Linux only (it reads /proc).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 600.0
TARGET_MB = 4096.0
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def children_of() -> dict[int, list[int]]:
    """Each running process's children, by parent pid, from /proc."""
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def resident_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * PAGE_KB / 1024
    except (OSError, IndexError, ValueError):
        return 0.0


def tree_mb(root: int) -> float:
    """The summed resident memory of ``root`` and everything under it, now."""
    tree = children_of()
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += resident_mb(pid)
        todo.extend(tree.get(pid, ()))
    return total


def sample(process: subprocess.Popen[bytes], peak: list[float]) -> None:
    while process.poll() is None:
        peak[0] = max(peak[0], tree_mb(process.pid))
        time.sleep(0.2)


def main() -> None:
    args = sys.argv[1:] or ["-q", "-n", "2"]
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "pytest", *args], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    peak = [0.0]
    watcher = threading.Thread(target=sample, args=(process, peak), daemon=True)
    watcher.start()
    output, _ = process.communicate()
    wall = time.perf_counter() - started
    watcher.join()
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    text = output.decode(errors="replace")
    sys.stdout.write(text)  # pytest's own report first (failures, skips), then the table
    closing = text.strip().splitlines()[-1:]
    print(f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end; "
          f"pytest {' '.join(args)}: {closing[0] if closing else 'no output'})")
    print("| measure | value | target |")
    print("| --- | ---: | --- |")
    print(f"| wall time | {wall / 60:.1f} min | ≤ {TARGET_S / 60:.0f} min: "
          f"{'met' if wall <= TARGET_S else '**missed**'} |")
    print(f"| peak resident memory, all processes at once | {peak[0]:,.0f} MB | ≤ "
          f"{TARGET_MB / 1024:.0f} GB: {'met' if peak[0] <= TARGET_MB else '**missed**'} |")
    print(f"| largest single process | {largest:,.0f} MB | |")
    sys.exit(process.returncode)


if __name__ == "__main__":
    main()
