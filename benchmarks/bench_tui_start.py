"""The kernel list from the command, as a person sees it (issue 36's measure): ``kernelscope
REPORT`` started in a detached tmux window of 120×36, its screen read every 5 ms.

Usage: python benchmarks/bench_tui_start.py [--repeat N] [REPORT]
(default: samples/ncu/many_launches.ncu-rep.xz, decompressed before the clock starts)

For each run: when the first row (kernel ID 0) shows, and when the list says every kernel is
loaded (``N of N kernels`` without ``loading…``), each as wall time from the command and as
the CPU time the kernelscope process had used by then (user + system, from ``/proc``; on a
shared machine the wall times follow the load, the CPU times follow the work). Targets:
first rows ≤ 0.3 s, complete ≤ 0.6 s. The interpreter's start and imports are included.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bytecode import compile_package

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "samples" / "ncu" / "many_launches.ncu-rep.xz"
POLL_S = 0.005
LIMIT_S = 60.0


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _screen(session: str) -> list[str]:
    shown = subprocess.run(["tmux", "capture-pane", "-p", "-t", session],
                           capture_output=True, text=True, check=False)
    return shown.stdout.splitlines()


def one_run(report: Path, kernels: int) -> dict[str, float]:
    """One start of the TUI on ``report``: wall and CPU seconds at first rows and complete."""
    session = f"bench-{uuid.uuid4().hex[:8]}"
    command = f"cd {ROOT} && exec {sys.executable} -m kernelscope {report}"
    started = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "36",
                    command], check=True)
    pane = subprocess.run(["tmux", "display", "-p", "-t", session, "#{pane_pid}"],
                          capture_output=True, text=True, check=True)
    pid = int(pane.stdout)
    found: dict[str, float] = {}
    complete = f"{kernels:,} of {kernels:,} kernels"
    try:
        while time.perf_counter() - started < LIMIT_S:
            lines = _screen(session)
            now = time.perf_counter() - started
            if "first_s" not in found and any(
                line.split()[:1] == ["0"] and len(line.split()) > 3 for line in lines
            ):
                found.update(first_s=now, first_cpu_s=_cpu_s(pid))
            text = "\n".join(lines)
            if complete in text and "loading" not in text:
                found.update(complete_s=now, complete_cpu_s=_cpu_s(pid))
                break
            time.sleep(POLL_S)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
    if "complete_s" not in found:
        raise SystemExit(f"the list did not complete within {LIMIT_S:.0f} s")
    return found


def main() -> None:
    if shutil.which("tmux") is None:
        print("This benchmark needs tmux on PATH.", file=sys.stderr)
        raise SystemExit(2)
    args = sys.argv[1:]
    repeat = 5
    if "--repeat" in args:
        at = args.index("--repeat")
        repeat = int(args[at + 1])
        del args[at:at + 2]
    compile_package()
    sys.path.insert(0, str(ROOT))
    from kernelscope.kinds.ncu.model import open_ncu_report
    from kernelscope.kinds.ncu.model.opener import decompress_to_temp

    given = Path(args[0]) if args else DEFAULT
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.ncu-rep"
        if given.suffix in (".xz", ".gz"):
            shutil.copyfile(decompress_to_temp(given, ".ncu-rep"), report)
        else:
            shutil.copyfile(given, report)
        with open_ncu_report(report) as opened:
            kernels = opened.kernel_count
        runs = [one_run(report, kernels) for _ in range(repeat)]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"report: {given.name} ({kernels:,} kernels), tmux 120×36, {repeat} runs, "
          f"load average {load}")
    for key, what, target in (("first", "first rows", 0.3), ("complete", "list complete", 0.6)):
        wall = [r[f"{key}_s"] for r in runs]
        cpu = [r[f"{key}_cpu_s"] for r in runs]
        print(f"| {what} | wall {min(wall):.2f}–{max(wall):.2f} s (median "
              f"{statistics.median(wall):.2f}) | CPU median {statistics.median(cpu):.2f} s | "
              f"target ≤ {target} s |")


if __name__ == "__main__":
    main()
