"""The kernel list from the command, as a person sees it (issue 36's measure): ``kernelscope
REPORT`` started in a detached tmux window of 120×36, its screen read every 5 ms.

Usage: python benchmarks/bench_tui_start.py [--repeat N] [--before TREE] [REPORT]
(default: samples/ncu/many_launches.ncu-rep.xz, decompressed before the clock starts;
``--before``: another checkout, run with its ``.venv``, alternating with this one)

For each run: when the first row (kernel ID 0: not the info line's ``0 of N kernels``, which
an empty list shows) shows, and when the list says every kernel is
loaded (``N of N kernels`` without ``loading…``), each as wall time from the command and as
the CPU time the kernelscope process had used by then (user + system, from ``/proc``; on a
shared machine the wall times follow the load, the CPU times follow the work). Targets:
first rows ≤ 0.3 s, complete ≤ 0.6 s. The interpreter's start and imports are included.

The floor, measured the same way: a bare Textual app that shows a DataTable of 48 rows and
11 columns (Textual's import, start and first paint, with no report read).
"""

from __future__ import annotations

import compileall
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
TMUX = ("tmux", "-L", f"bench-tui-start-{os.getpid()}")
"""tmux on a server of its own, which no other tmux user's ``kill-server`` takes down."""
POLL_S = 0.005
LIMIT_S = 60.0


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _screen(session: str) -> list[str]:
    shown = subprocess.run([*TMUX, "capture-pane", "-p", "-t", session],
                           capture_output=True, text=True, check=False)
    return shown.stdout.splitlines()


FLOOR_APP = """
from textual.app import App
from textual.widgets import DataTable, Footer

class Bare(App):
    def compose(self):
        yield DataTable()
        yield Footer()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns(*(f"column {i}" for i in range(11)))
        table.add_rows([str(row), *(f"{row * 1.37 + i:.2f}" for i in range(10))]
                       for row in range(48))

Bare().run()
"""


def _first_row_shown(lines: list[str]) -> bool:
    """Whether the table's row of ID 0 shows (the info line ``0 of N kernels`` does not
    count: the list says it before its first rows)."""
    return any(words[:1] == ["0"] and len(words) > 3 and words[1] != "of"
               for words in (line.split() for line in lines))


def floor_run() -> dict[str, float]:
    """One start of the bare Textual app: wall and CPU seconds at its first rows."""
    session = f"bench-{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    subprocess.run([*TMUX, "new-session", "-d", "-s", session, "-x", "120", "-y", "36",
                    sys.executable, "-c", FLOOR_APP], check=True)
    pane = subprocess.run([*TMUX, "display", "-p", "-t", session, "#{pane_pid}"],
                          capture_output=True, text=True, check=True)
    pid = int(pane.stdout)
    try:
        while time.perf_counter() - started < LIMIT_S:
            if _first_row_shown(_screen(session)):
                return {"first_s": time.perf_counter() - started, "first_cpu_s": _cpu_s(pid)}
            time.sleep(POLL_S)
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], check=False)
    raise SystemExit(f"the bare Textual app did not show its rows within {LIMIT_S:.0f} s")


def one_run(report: Path, kernels: int, tree: Path = ROOT) -> dict[str, float]:
    """One start of the TUI of checkout ``tree`` on ``report``: wall and CPU seconds at first
    rows and complete."""
    session = f"bench-{uuid.uuid4().hex[:8]}"
    python = tree / ".venv" / "bin" / "python" if tree != ROOT else Path(sys.executable)
    command = f"cd {tree} && exec {python} -m kernelscope {report}"
    started = time.perf_counter()
    subprocess.run([*TMUX, "new-session", "-d", "-s", session, "-x", "120", "-y", "36",
                    command], check=True)
    pane = subprocess.run([*TMUX, "display", "-p", "-t", session, "#{pane_pid}"],
                          capture_output=True, text=True, check=True)
    pid = int(pane.stdout)
    found: dict[str, float] = {}
    complete = f"{kernels:,} of {kernels:,} kernels"
    try:
        while time.perf_counter() - started < LIMIT_S:
            lines = _screen(session)
            now = time.perf_counter() - started
            if "first_s" not in found and _first_row_shown(lines):
                found.update(first_s=now, first_cpu_s=_cpu_s(pid))
            text = "\n".join(lines)
            if complete in text and "loading" not in text:
                found.update(complete_s=now, complete_cpu_s=_cpu_s(pid))
                break
            time.sleep(POLL_S)
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], check=False)
    if "complete_s" not in found:
        raise SystemExit(f"the list did not complete within {LIMIT_S:.0f} s")
    return found


def main() -> None:
    if shutil.which("tmux") is None:
        print("This benchmark needs tmux on PATH.", file=sys.stderr)
        raise SystemExit(2)
    args = sys.argv[1:]
    repeat, before = 5, None
    if "--repeat" in args:
        at = args.index("--repeat")
        repeat = int(args[at + 1])
        del args[at:at + 2]
    if "--before" in args:
        at = args.index("--before")
        before = Path(args[at + 1]).resolve()
        del args[at:at + 2]
        compileall.compile_dir(before / "kernelscope", quiet=1)
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
        runs, floors, earlier = [], [], []
        # A session that lives through the runs: the server does not exit (and refuse the
        # next run's new-session) each time a run's session ends.
        subprocess.run([*TMUX, "new-session", "-d", "-s", "keep", "cat"], check=True)
        try:
            for _ in range(repeat):  # alternating, so that all see the same load
                runs.append(one_run(report, kernels))
                floors.append(floor_run())
                if before is not None:
                    earlier.append(one_run(report, kernels, before))
        finally:
            subprocess.run([*TMUX, "kill-server"], check=False, capture_output=True)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"report: {given.name} ({kernels:,} kernels), tmux 120×36, {repeat} runs, "
          f"load average {load}")
    _print_runs(runs, "")
    if before is not None:
        _print_runs(earlier, f" ({before})")
    floor_cpu = statistics.median(r["first_cpu_s"] for r in floors)
    floor_wall = statistics.median(r["first_s"] for r in floors)
    print(f"| floor: a bare Textual app's first rows | wall median {floor_wall:.2f} s | "
          f"CPU median {floor_cpu:.2f} s | |")


def _print_runs(runs: list[dict[str, float]], tree: str) -> None:
    for key, what, target in (("first", "first rows", 0.3), ("complete", "list complete", 0.6)):
        wall = [r[f"{key}_s"] for r in runs]
        cpu = [r[f"{key}_cpu_s"] for r in runs]
        print(f"| {what}{tree} | wall {min(wall):.2f}–{max(wall):.2f} s (median "
              f"{statistics.median(wall):.2f}) | CPU median {statistics.median(cpu):.2f} s | "
              f"target ≤ {target} s |")


if __name__ == "__main__":
    main()
