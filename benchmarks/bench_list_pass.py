"""The kernel list's reading pass, per kernel: what the TUI's reading worker does for each
launch (read its summary, diagnose it), timed inside one process.

Usage: python benchmarks/bench_list_pass.py [--passes N] [REPORT ...]
(default: samples/ncu/many_launches, 1,000 launches whose metrics all differ)

The report is opened as the TUI opens it (the diagnosis's metrics read in the list pass:
``open_for_analysis``, which reads what the list's default columns need too), and each
launch's summary is read (``NcuReport.summary``), then each is diagnosed
(``diagnose_summary``), with the garbage collector held back as the TUI's worker holds it.
Prints the CPU time (this process's, ``time.process_time``) of reading and of diagnosing, in
ms a kernel:
the first pass (what a fresh TUI pays: nothing of the report read before) and the least of
``--passes`` passes over the report opened again (the process's memos of units and metric
objects warm).
"""

from __future__ import annotations

import argparse
import lzma
import shutil
import tempfile
import time
from pathlib import Path

from kernelscope.kinds.ncu.analysis.kernel_analysis import diagnose_summary, open_for_analysis
from kernelscope.ui.collection import fewer_collections

ROOT = Path(__file__).resolve().parent.parent

DEFAULT = ROOT / "samples" / "ncu" / "many_launches.ncu-rep.xz"


def one_pass(path: Path) -> tuple[float, float, int]:
    """(seconds reading, seconds diagnosing, launches) of one pass over the report: every
    summary read, then every one diagnosed (both kept, as the TUI keeps them), so that the
    clock is read four times a pass, not at every launch."""
    clock = time.process_time
    with open_for_analysis(path) as report, fewer_collections():
        _ = report.device, report.notes  # the TUI reads these before the list
        start = clock()
        summaries = [report.summary(kernel_id) for kernel_id in range(report.kernel_count)]
        read = clock()
        diagnoses = [diagnose_summary(summary) for summary in summaries]
        done = clock()
        assert len(diagnoses) == len(summaries)
        return read - start, done - read, report.kernel_count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="*", type=Path, default=[DEFAULT])
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    print("| report | launches | first pass: read + diagnose (ms a kernel) | least of "
          f"{args.passes} |")
    print("| --- | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for report in args.reports:
            plain = Path(tmp) / report.name.removesuffix(".xz")
            with lzma.open(report) if report.suffix == ".xz" else open(report, "rb") as src, \
                    open(plain, "wb") as out:
                shutil.copyfileobj(src, out)
            passes = [one_pass(plain) for _ in range(max(1, args.passes))]
            count = passes[0][2]
            first = passes[0]
            least = min(passes[1:] or passes, key=lambda p: p[0] + p[1])
            cells = [f"{r / count * 1e3:.3f} + {d / count * 1e3:.3f} = "
                     f"{(r + d) / count * 1e3:.3f}" for r, d, _ in (first, least)]
            print(f"| {report.name} | {count:,} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
