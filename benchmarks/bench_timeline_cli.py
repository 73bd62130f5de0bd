"""A timeline's headless commands end to end, interpreter start included (issue 18).

Usage: python benchmarks/bench_timeline_cli.py [TRACE.sqlite[.xz]]
(default: samples/nsys/many_tiny.sqlite.xz, 40,000 kernels)

Each case is a fresh process timed from outside, median of five. The floor is the least such
a command can cost here: starting Python and importing polars and the ADBC SQLite driver (no
reading). Target: ``export -f json`` and ``summary`` of a 40,000-kernel trace <= 0.5 s.
"""

from __future__ import annotations

import lzma
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bytecode import compile_package

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "samples" / "nsys" / "many_tiny.sqlite.xz"
RUNS = 5


def seconds(cmd: list[str]) -> float:
    times = []
    for _ in range(RUNS):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    compile_package()  # as an installed package has it
    trace = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    with tempfile.TemporaryDirectory(prefix="bench-timeline-cli-") as name:
        plain = Path(name) / trace.name.removesuffix(".xz")
        if trace.suffix == ".xz":
            with lzma.open(trace) as src, open(plain, "wb") as dst:
                shutil.copyfileobj(src, dst)
        else:
            shutil.copyfile(trace, plain)
        py = sys.executable
        floor = seconds([py, "-c", "import polars, adbc_driver_sqlite.dbapi"])
        ks = [py, "-m", "kernelscope"]
        rows = [
            ("export -f json", seconds([*ks, "export", str(plain), "-f", "json", "-o",
                                        str(Path(name) / "out.json")])),
            ("summary", seconds([*ks, "summary", str(plain)])),
        ]
    print(f"({trace.name}; each case a fresh process, median of {RUNS})")
    print("| case | floor (python + polars + ADBC imports) | value | ratio | target |")
    print("| --- | ---: | ---: | ---: | --- |")
    for label, value in rows:
        verdict = "met" if value <= 0.5 else "missed"
        print(f"| `kernelscope {label}` | {floor:.2f} s | {value:.2f} s | "
              f"{value / floor:.2f}× | ≤ 0.5 s: {verdict} |")


if __name__ == "__main__":
    main()
