"""A timeline's headless commands end to end, interpreter start included (issues 18 and 36).

Usage: python benchmarks/bench_timeline_cli.py [--runs N] [--before TREE] [TRACE.sqlite[.xz]]
(default: samples/nsys/many_tiny.sqlite.xz, 40,000 kernels; ``--before``: another checkout,
its ``export -f json`` run with its ``.venv``, alternating with this one's)

Each case is a fresh process timed from outside (``fresh_process.py``: wall and CPU time,
user + system, its threads included), median of five; the cases take turns, run by run, so
a change in the machine's load falls on all of them. The floor is a fresh Python that
imports polars and the ADBC SQLite driver and reads the trace's kernel table into polars
(issue 36's), the driver's Arrow stream handed to polars as kernelscope's reader hands it
(``fetch_arrow_table`` needs pyarrow, no dependency; where pyarrow is installed, the DB-API
module imports it anyway: ~0.06 s more). Target: ``export -f json`` <= 1.5x the floor
(issue 36; CPU time decides on a loaded machine). Every timeline export builds the critical
path: the row "its critical path" is the CPU time the export spent building it (the graph,
the replay and the paths), timed inside the same command (run as the program runs it), and
"without it" the export's CPU time less that.
"""

from __future__ import annotations

import compileall
import json
import lzma
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bytecode import compile_package
from fresh_process import WRAPPER

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "samples" / "nsys" / "many_tiny.sqlite.xz"
RUNS = [5]
FLOOR = (
    "import sys, polars as pl, adbc_driver_sqlite.dbapi as adbc\n"
    "with adbc.connect('file:' + sys.argv[1] + '?mode=ro') as conn, conn.cursor() as cur:\n"
    "    cur.execute('SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL')\n"
    "    print(pl.DataFrame(cur.fetch_arrow()).height)\n"
)
SPLIT = (
    "import functools, sys, time\n"
    "from kernelscope.timeline.analysis import timeline_data as td\n"
    "build = td.TimelineData.__dict__['critical_model'].func\n"
    "spent = []\n"
    "def timed(self):\n"
    "    t = time.process_time(); model = build(self); model.critical_path\n"
    "    spent.append(time.process_time() - t); return model\n"
    "prop = functools.cached_property(timed)\n"
    "prop.__set_name__(td.TimelineData, 'critical_model')\n"
    "td.TimelineData.critical_model = prop\n"
    "from kernelscope.tui.cli import main\n"
    "code = main(sys.argv[1:], program=True)\n"
    "print(sum(spent))\n"
    "sys.exit(code)\n"
)


def measure(cases: dict[str, list[str]], numbered: tuple[str, ...] = (),
            cwds: dict[str, Path] | None = None) -> dict[str, dict[str, float]]:
    """Each case's median wall and CPU seconds, the cases run in turn ``RUNS`` times; for a
    case in ``numbered``, also the median of the number its output ends with (``last``).
    A case runs in its folder of ``cwds``, else in this tree (``python -m kernelscope``
    imports the package of the folder it runs in, whatever its interpreter)."""
    runs: dict[str, list[dict[str, str]]] = {name: [] for name in cases}
    for _ in range(RUNS[0]):
        for name, cmd in cases.items():
            done = subprocess.run([sys.executable, "-c", WRAPPER, *cmd], capture_output=True,
                                  text=True, check=False, cwd=(cwds or {}).get(name, ROOT))
            if done.returncode:
                raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
            runs[name].append(json.loads(done.stdout))
    out = {}
    for name, done_runs in runs.items():
        out[name] = {key: statistics.median(float(r[key]) for r in done_runs)
                     for key in ("s", "cpu")}
        if name in numbered:
            out[name]["last"] = statistics.median(float(r["out"].split()[-1])
                                                  for r in done_runs)
    return out


def _arguments() -> tuple[Path, Path | None]:
    args, before = sys.argv[1:], None
    if args[:1] == ["--runs"]:
        RUNS[0], args = int(args[1]), args[2:]
    if args[:1] == ["--before"]:
        before, args = Path(args[1]).resolve(), args[2:]
    return (Path(args[0]) if args else DEFAULT), before


def main() -> None:
    trace, before = _arguments()
    compile_package()  # as an installed package has it
    if before is not None:
        compileall.compile_dir(before / "kernelscope", quiet=1)
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="bench-timeline-cli-") as name:
        plain = Path(name) / trace.name.removesuffix(".xz")
        if trace.suffix == ".xz":
            with lzma.open(trace) as src, open(plain, "wb") as dst:
                shutil.copyfileobj(src, dst)
        else:
            shutil.copyfile(trace, plain)
        out = str(Path(name) / "out.json")
        export = ["export", str(plain), "-f", "json", "-o", out]
        cases = {"floor": [py, "-c", FLOOR, str(plain)],
                 "export": [py, "-m", "kernelscope", *export],
                 "split": [py, "-c", SPLIT, *export],
                 "summary": [py, "-m", "kernelscope", "summary", str(plain)]}
        if before is not None:
            cases["before"] = [str(before / ".venv" / "bin" / "python"), "-m", "kernelscope",
                               *export]
        res = measure(cases, numbered=("split",),
                      cwds={"before": before} if before is not None else None)
    _print_table(trace, res, before)


def _print_table(trace: Path, res: dict[str, dict[str, float]], before: Path | None) -> None:
    floor, export, split, summary = res["floor"], res["export"], res["split"], res["summary"]
    critical = split["last"]
    print(f"({trace.name}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; each "
          f"case a fresh process, median of {RUNS[0]}, the cases in turn)")
    print("| case | wall | CPU | CPU ratio to the floor | target |")
    print("| --- | ---: | ---: | ---: | --- |")
    print(f"| floor: python, polars + ADBC, the kernel table | {floor['s']:.2f} s | "
          f"{floor['cpu']:.2f} s | 1.00× | |")
    rows = [("`export -f json`, end to end", export, export["cpu"]),
            ("its critical path (inside the export)", None, critical),
            ("`export -f json` without the critical path", None, split["cpu"] - critical),
            ("`summary`, end to end", summary, summary["cpu"])]
    if before is not None:
        rows.append((f"`export -f json`, end to end, {before}", res["before"],
                     res["before"]["cpu"]))
    for label, row, cpu in rows:
        ratio = cpu / floor["cpu"]
        wall = f"{row['s']:.2f} s" if row else ""
        target = ""
        if label.startswith("`export"):
            target = f"≤ 1.5×: {'met' if ratio <= 1.5 else '**missed**'}"
        print(f"| {label} | {wall} | {cpu:.2f} s | {ratio:.2f}× | {target} |")


if __name__ == "__main__":
    main()
