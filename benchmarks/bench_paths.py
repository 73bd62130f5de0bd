"""Every headless path over a kernel report against its two floors, end to end (issue 25).

Usage: python benchmarks/bench_paths.py [--repeat N] [--cpu] [REPORT ...]
(default: samples/ncu/many_launches (1,000 launches), samples/big/torch_many (a PyTorch
training loop, 1,300 launches), samples/big/many_launches_full_264 (--set full) and
samples/big/many_launches_huge (8,676 launches), then ``join``; ``--repeat`` times each case
N times instead of three, for a loaded machine; ``--cpu`` takes the ratios of CPU time,
user + system, children included, instead of wall time: on a loaded machine the wall time
measures the load; ``--join`` only the ``join`` row)

Each case is one fresh process timed from outside, interpreter start included, median of
three; its peak RSS is that of the largest process it ran (``RUSAGE_CHILDREN`` of a fresh
wrapper). The floors, each a fresh process too:
- (a) decoding every result message of the report with the protobuf runtime and
  kernelscope's schema, after the block walk, no per-metric Python work;
- (b) the old floor: ncu_report opening every kernel (``range.action_by_idx``, nothing read).
Reports are decompressed first, so every case reads the same plain file.

Targets: summary, every export, ``diff`` and ``join`` <= 2x (a) and <= 0.5x (b) (``diff`` and
``join`` against the sum of their inputs' floors); peak RSS <= 300 MB.
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
from fresh_process import WRAPPER

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = (
    ROOT / "samples" / "ncu" / "many_launches.ncu-rep.xz",
    ROOT / "samples" / "big" / "torch_many.ncu-rep.xz",
    ROOT / "samples" / "big" / "many_launches_full_264.ncu-rep.xz",
    ROOT / "samples" / "big" / "many_launches_huge.ncu-rep.xz",
)
DECODE_FLOOR = (
    "import sys\n"
    "from kernelscope.kinds.ncu.model.container import read_layout\n"
    "from kernelscope.kinds.ncu.model.file_format.result import MESSAGE_OF\n"
    "with open(sys.argv[1], 'rb') as fh:\n"
    "    layout = read_layout(fh, sys.argv[1])\n"
    "    for info in layout.results:\n"
    "        fh.seek(info.offset)\n"
    "        MESSAGE_OF[info.kind].FromString(fh.read(info.size))\n"
    "print(len(layout.results))\n"
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


REPEAT = [3]
BY_CPU = [False]


def measure(cmd: list[str]) -> dict[str, float | str]:
    runs = []
    for _ in range(REPEAT[0]):
        done = subprocess.run(
            [sys.executable, "-c", WRAPPER, *cmd], capture_output=True, text=True, check=False
        )
        if done.returncode:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
        runs.append(json.loads(done.stdout))
    return {
        "s": statistics.median(r["cpu" if BY_CPU[0] else "s"] for r in runs),
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


MB_TARGET = 300


def verdict(seconds: float, decode_floor: float, binding_floor: float | None, mb: float) -> str:
    """The row's ratios and whether it meets ``<= 2x (a)``, ``<= 0.5x (b)`` and the memory."""
    a = seconds / decode_floor
    parts = [f"{a:.2f}× (a)"]
    met = a <= 2.0 and mb <= MB_TARGET
    if binding_floor is not None:
        b = seconds / binding_floor
        parts.append(f"{b:.2f}× (b)")
        met = met and b <= 0.5
    return " · ".join(parts) + (" | met" if met else " | **missed**")


def floors(plain: Path) -> tuple[dict[str, float | str], dict[str, float | str] | None]:
    """(a) and (b) for one report; (b) is None where ncu_report is not installed."""
    decode = measure([sys.executable, "-c", DECODE_FLOOR, str(plain)])
    try:
        import ncu_report  # noqa: F401  (installed? the floor runs in its own process)
    except ImportError:
        return decode, None
    return decode, measure([sys.executable, "-c", FLOOR, str(plain)])


def plain_copy(report: Path, tmp: Path) -> Path:
    plain = tmp / report.name.removesuffix(".xz")
    if report.suffix == ".xz":
        with lzma.open(report) as src, open(plain, "wb") as dst:
            shutil.copyfileobj(src, dst)
    else:
        shutil.copyfile(report, plain)
    return plain


def report_rows(report: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-paths-") as name:
        tmp = Path(name)
        plain = plain_copy(report, tmp)
        decode, binding = floors(plain)
        kernels = str(decode["out"]).strip()
        label = report.name.split(".")[0]
        a_s = float(decode["s"])
        b_s = float(binding["s"]) if binding is not None else None
        print(f"| {label} | {kernels} | floor (a): decode every result | {a_s:.2f} s | "
              f"| | {decode['mb']:.0f} MB |")
        if binding is not None:
            print(f"| {label} | {kernels} | floor (b): ncu_report opens every kernel | "
                  f"{b_s:.2f} s | | | {binding['mb']:.0f} MB |")
        for what, cmd in cases(plain, tmp):
            res = measure(cmd)
            print(f"| {label} | {kernels} | {what} | {res['s']:.2f} s | "
                  f"{verdict(float(res['s']), a_s, b_s, float(res['mb']))} | "
                  f"{res['mb']:.0f} MB |", flush=True)
        res = measure(diff_case(plain, tmp))
        print(f"| {label} | 2 × {kernels} | diff with a copy (floors: both inputs') | "
              f"{res['s']:.2f} s | "
              f"{verdict(float(res['s']), 2 * a_s, 2 * b_s if b_s else None, float(res['mb']))}"
              f" | {res['mb']:.0f} MB |", flush=True)


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--repeat"]:
        REPEAT[0], args = int(args[1]), args[2:]
    if args[:1] == ["--cpu"]:
        BY_CPU[0], args = True, args[1:]
    join_only = args == ["--join"]
    reports = [] if join_only else [Path(a) for a in args] or list(DEFAULTS)
    compile_package()  # as an installed package has it
    print(f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; each case a fresh "
          f"process, median of {REPEAT[0]}, end to end; times are "
          f"{'CPU (user + system)' if BY_CPU[0] else 'wall'} seconds)")
    print("| report | launches | path | time | ratios | target | peak RSS |")
    print("| --- | ---: | --- | ---: | --- | --- | ---: |")
    for report in reports:
        report_rows(report)
    if not args or join_only:
        join_row()


JOIN_PAIR = (
    ROOT / "samples" / "nsys" / "many_launches.sqlite.xz",
    ROOT / "samples" / "ncu" / "many_launches.ncu-rep.xz",
)
TRACE_FLOOR = (
    "import sys, polars as pl, adbc_driver_sqlite.dbapi as adbc\n"
    "with adbc.connect('file:' + sys.argv[1] + '?mode=ro') as conn, conn.cursor() as cur:\n"
    "    cur.execute('SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL')\n"
    "    print(pl.DataFrame(cur.fetch_arrow()).height)\n"
)


def join_row() -> None:
    """``kernelscope join`` of the 1,000-launch pair (a timeline and the kernel report of the
    same program): its floors are the kernel report's plus the trace's (a fresh process
    reading its kernel table through ADBC into polars, imports included: the driver's Arrow
    stream handed to polars as kernelscope's reader hands it, since ``fetch_arrow_table``
    needs pyarrow, no dependency)."""
    with tempfile.TemporaryDirectory(prefix="bench-join-") as name:
        tmp = Path(name)
        trace, kernels = (plain_copy(packed, tmp) for packed in JOIN_PAIR)
        trace_s = float(measure([sys.executable, "-c", TRACE_FLOOR, str(trace)])["s"])
        decode, binding = floors(kernels)
        a_s = float(decode["s"]) + trace_s
        b_s = float(binding["s"]) + trace_s if binding is not None else None
        res = measure([sys.executable, "-m", "kernelscope", "join", str(trace), str(kernels),
                       "-f", "md", "-o", str(tmp / "join.md")])
        print(f"| many_launches | 1000 + 1000 | join with its timeline (floors + the trace's "
              f"{trace_s:.2f} s) | {res['s']:.2f} s | "
              f"{verdict(float(res['s']), a_s, b_s, float(res['mb']))} | "
              f"{res['mb']:.0f} MB |", flush=True)


if __name__ == "__main__":
    main()
