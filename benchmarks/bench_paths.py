"""Every headless path over a kernel report against the floor, end to end (issue 18).

Usage: python benchmarks/bench_paths.py [REPORT ...]
(default: samples/ncu/many_launches, samples/big/many_launches_sol,
samples/big/many_launches_full_264, samples/big/many_launches_huge)

Each case is one fresh process timed from outside, interpreter start included, median of
three; its peak RSS is that of the largest process it ran (the command or one of its worker
processes: ``RUSAGE_CHILDREN`` of a fresh wrapper). The floor opens every kernel with
ncu_report alone in one process (``range.action_by_idx``, nothing read). Reports are
decompressed first, so every case reads the same plain file.

Target: summary and every export <= 1.0x the floor on 2 cores, ``diff`` and ``join`` <= 1.0x the
sum of their two inputs' floors; no process above 400 MB. (Run without arguments, the last row
joins samples/nsys/many_launches, the timeline of the program that made
samples/ncu/many_launches, with that report.)
"""

from __future__ import annotations

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

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = (
    ROOT / "samples" / "ncu" / "many_launches.ncu-rep.xz",
    ROOT / "samples" / "big" / "many_launches_sol.ncu-rep.xz",
    ROOT / "samples" / "big" / "many_launches_full_264.ncu-rep.xz",
    ROOT / "samples" / "big" / "many_launches_huge.ncu-rep.xz",
)
FLOOR = (
    "import sys, ncu_report\n"
    "ctx = ncu_report.load_report(sys.argv[1])\n"
    "n = 0\n"
    "for r in range(ctx.num_ranges()):\n"
    "    rng = ctx.range_by_idx(r)\n"
    "    for a in range(rng.num_actions()):\n"
    "        rng.action_by_idx(a); n += 1\n"
    "print(n)\n"
)
WRAPPER = (
    "import json, resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "out = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
    "wall = time.perf_counter() - t\n"
    "if out.returncode:\n"
    "    sys.exit(out.stderr.decode()[-2000:])\n"
    "print(json.dumps({'s': wall, 'mb': resource.getrusage(resource.RUSAGE_CHILDREN)"
    ".ru_maxrss / 1024, 'out': out.stdout.decode()[-200:]}))\n"
)


def measure(cmd: list[str], repeat: int = 3) -> dict[str, float | str]:
    runs = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-c", WRAPPER, *cmd], capture_output=True, text=True, check=False
        )
        if done.returncode:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
        runs.append(json.loads(done.stdout))
    return {
        "s": statistics.median(r["s"] for r in runs),
        "mb": max(r["mb"] for r in runs),
        "out": runs[-1]["out"],
    }


def cases(path: Path, tmp: Path) -> list[tuple[str, list[str]]]:
    ks = [sys.executable, "-m", "kernelscope"]
    return [
        ("summary", [*ks, "summary", str(path)]),
        *(
            (f"export --format {fmt}", [*ks, "export", str(path), "-f", fmt, "-o",
                                         str(tmp / f"out.{fmt}")])
            for fmt in ("json", "md", "csv")
        ),
    ]


def diff_case(path: Path, tmp: Path) -> list[str]:
    """``kernelscope diff`` of the report against a copy of itself (two files, each read
    once): its floor is the sum of the two reports' floors."""
    twin = tmp / f"twin-{path.name}"
    if not twin.exists():
        shutil.copyfile(path, twin)
    return [sys.executable, "-m", "kernelscope", "diff", str(path), str(twin), "-f", "json",
            "-o", str(tmp / "diff.json")]


def main() -> None:
    reports = [Path(a) for a in sys.argv[1:]] or list(DEFAULTS)
    compile_package()  # as an installed package has it
    print(f"({os.cpu_count()} CPUs; each case a fresh process, median of 3, end to end)")
    print("| report | kernels | path | time | × floor | peak RSS (largest process) |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    for report in reports:
        with tempfile.TemporaryDirectory(prefix="bench-paths-") as name:
            tmp = Path(name)
            plain = tmp / report.name.removesuffix(".xz")
            if report.suffix == ".xz":
                with lzma.open(report) as src, open(plain, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            else:
                shutil.copyfile(report, plain)
            floor = measure([sys.executable, "-c", FLOOR, str(plain)])
            kernels = str(floor["out"]).strip()
            label = report.name.split(".")[0]
            print(f"| {label} | {kernels} | floor: open every kernel | {floor['s']:.2f} s | "
                  f"1.00× | {floor['mb']:.0f} MB |")
            for what, cmd in cases(plain, tmp):
                res = measure(cmd)
                ratio = float(res["s"]) / float(floor["s"])
                miss = " (misses ≤ 1.0×)" if ratio > 1.0 else ""
                over = " (over 400 MB)" if float(res["mb"]) > 400 else ""
                print(f"| {label} | {kernels} | {what} | {res['s']:.2f} s | "
                      f"{ratio:.2f}×{miss} | {res['mb']:.0f} MB{over} |", flush=True)
            res = measure(diff_case(plain, tmp))
            ratio = float(res["s"]) / (2 * float(floor["s"]))
            miss = " (misses ≤ 1.0×)" if ratio > 1.0 else ""
            over = " (over 400 MB)" if float(res["mb"]) > 400 else ""
            print(f"| {label} | 2 × {kernels} | diff with a copy (floor: both floors, "
                  f"{2 * float(floor['s']):.2f} s) | {res['s']:.2f} s | {ratio:.2f}×{miss} | "
                  f"{res['mb']:.0f} MB{over} |", flush=True)

    if not sys.argv[1:]:
        join_row()


JOIN_PAIR = (
    ROOT / "samples" / "nsys" / "many_launches.sqlite.xz",
    ROOT / "samples" / "ncu" / "many_launches.ncu-rep.xz",
)
TRACE_FLOOR = (
    "import sys, polars as pl, adbc_driver_sqlite.dbapi as adbc\n"
    "with adbc.connect('file:' + sys.argv[1] + '?mode=ro') as conn, conn.cursor() as cur:\n"
    "    cur.execute('SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL')\n"
    "    print(pl.from_arrow(cur.fetch_arrow_table()).height)\n"
)


def join_row() -> None:
    """``kernelscope join`` of the 1,000-launch pair (a timeline and the kernel report of the
    same program): its floor is the kernel report's floor plus the trace's (a fresh process
    reading its kernel table through ADBC into polars, imports included)."""
    with tempfile.TemporaryDirectory(prefix="bench-join-") as name:
        tmp = Path(name)
        plain = []
        for packed in JOIN_PAIR:
            plain.append(tmp / packed.name.removesuffix(".xz"))
            with lzma.open(packed) as src, open(plain[-1], "wb") as dst:
                shutil.copyfileobj(src, dst)
        trace, kernels = plain
        floor = (float(measure([sys.executable, "-c", FLOOR, str(kernels)])["s"])
                 + float(measure([sys.executable, "-c", TRACE_FLOOR, str(trace)])["s"]))
        res = measure([sys.executable, "-m", "kernelscope", "join", str(trace), str(kernels),
                       "-f", "md", "-o", str(tmp / "join.md")])
        ratio = float(res["s"]) / floor
        miss = " (misses ≤ 1.0×)" if ratio > 1.0 else ""
        over = " (over 400 MB)" if float(res["mb"]) > 400 else ""
        print(f"| many_launches | 1000 + 1000 | join with its timeline (floor: both floors, "
              f"{floor:.2f} s) | {res['s']:.2f} s | {ratio:.2f}×{miss} | "
              f"{res['mb']:.0f} MB{over} |", flush=True)


if __name__ == "__main__":
    main()
