"""Nothing slower after a refactoring (issue 26): every headless path, this tree against a base.

Usage: python benchmarks/bench_refactor.py [--base REV] [--repeat N] [--only WORD]
(default base: a870872, the last commit before issue 26's work; default repeat: 3)

The base commit is checked out into a temporary git worktree and both trees run each case as
a fresh process (``python -m kernelscope ...`` with the tree first on ``PYTHONPATH``), the two
alternating run by run so that a change in the machine's load falls on both alike. Each row is
the median of the runs: CPU time (user + system of the process and its children, which load
stretches far less than wall time), wall time and peak RSS. Inputs are decompressed once into a
temporary folder that both trees read, and every output goes there too.

The floor of a row is the base's CPU time; the value is this tree's; "not slower" allows 10 %
for the noise of a shared machine (the ratio is printed, so a reader can hold it tighter).
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
from collections.abc import Iterator
from pathlib import Path

from fresh_process import WRAPPER

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
BASE = "a870872"
SLOWER_ALLOWED = 1.10


def plain(source: Path, folder: Path) -> Path:
    """``source`` decompressed into ``folder`` (a folder of traces: each of its files)."""
    if source.is_dir():
        target = folder / source.name
        target.mkdir(exist_ok=True)
        for member in sorted(source.glob("*.xz")):
            if "nsys-rep" not in member.name:  # its SQLite export beside it: no nsys needed
                plain(member, target)
        return target
    target = folder / source.name.removesuffix(".xz")
    if not target.exists():
        with lzma.open(source) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return target


def cases(tmp: Path) -> Iterator[tuple[str, list[str]]]:
    """Each headless path of every kind, as (label, arguments after ``-m kernelscope``)."""
    inputs = tmp / "in"
    inputs.mkdir()
    ncu = plain(SAMPLES / "ncu" / "many_launches.ncu-rep.xz", inputs)
    torch = plain(SAMPLES / "big" / "torch_many.ncu-rep.xz", inputs)
    twin = inputs / "twin.ncu-rep"
    shutil.copyfile(ncu, twin)
    trace = plain(SAMPLES / "nsys" / "many_launches.sqlite.xz", inputs)
    torch_trace = plain(SAMPLES / "nsys" / "timeline_torch.sqlite.xz", inputs)
    kineto = plain(SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz", inputs)
    kineto_ranks = plain(SAMPLES / "kineto" / "ranks", inputs)
    nsys_ranks = plain(SAMPLES / "nsys" / "ranks", inputs)
    out = tmp / "out"
    out.mkdir()
    yield "ncu summary (1,000 launches)", ["summary", str(ncu)]
    yield "ncu summary (torch_many, 1,300)", ["summary", str(torch)]
    for fmt in ("json", "md", "csv"):
        yield f"ncu export -f {fmt}", ["export", str(ncu), "-f", fmt, "-o", str(out / f"n.{fmt}")]
    yield "ncu diff with a copy", ["diff", str(ncu), str(twin), "-f", "json", "-o",
                                   str(out / "d.json")]
    yield "nsys summary (many_launches)", ["summary", str(trace)]
    yield "nsys summary (timeline_torch)", ["summary", str(torch_trace)]
    for fmt in ("json", "md"):
        yield f"nsys export -f {fmt}", ["export", str(torch_trace), "-f", fmt, "-o",
                                        str(out / f"t.{fmt}")]
    yield "nsys diff of two traces", ["diff", str(trace), str(torch_trace), "-f", "json", "-o",
                                      str(out / "td.json")]
    yield "kineto summary", ["summary", str(kineto)]
    yield "kineto export -f json", ["export", str(kineto), "-f", "json", "-o",
                                    str(out / "k.json")]
    yield "kineto run of 4 ranks, JSON", ["export", str(kineto_ranks), "-f", "json", "-o",
                                          str(out / "kr.json")]
    yield "nsys ranks of 4 traces, JSON", ["export", str(nsys_ranks), "-f", "json", "-o",
                                           str(out / "nr.json"), "--workers", "0"]
    yield "join trace + kernels, JSON", ["join", str(trace), str(ncu), "-f", "json", "-o",
                                         str(out / "j.json")]


def run_once(tree: Path, args: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, sys.executable, "-m", "kernelscope", *args],
        capture_output=True, text=True, env=env, check=False, cwd=tree,
    )
    if done.returncode:
        raise SystemExit(f"{tree}: kernelscope {' '.join(args)} failed:\n{done.stderr}")
    result = json.loads(done.stdout)
    return {key: float(value) for key, value in result.items() if key != "out"}


def median_of(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def compare(base: Path, head: Path, args: list[str], repeat: int) -> tuple[list[dict[str, float]],
                                                                          list[dict[str, float]]]:
    before: list[dict[str, float]] = []
    after: list[dict[str, float]] = []
    for _ in range(repeat):
        before.append(run_once(base, args))
        after.append(run_once(head, args))
    return before, after


def row(label: str, before: list[dict[str, float]], after: list[dict[str, float]]) -> str:
    floor, value = median_of(before, "cpu"), median_of(after, "cpu")
    ratio = value / floor
    verdict = "not slower" if ratio <= SLOWER_ALLOWED else "**slower**"
    return (f"| {label} | {floor:.2f} s | {value:.2f} s | {ratio:.2f} | "
            f"{median_of(before, 's'):.2f} / {median_of(after, 's'):.2f} s | "
            f"{max(r['mb'] for r in before):.0f} / {max(r['mb'] for r in after):.0f} MB | "
            f"{verdict} |")


def main() -> None:
    args = sys.argv[1:]
    base_rev, repeat, only = BASE, 3, ""
    while args:
        flag, value, args = args[0], args[1], args[2:]
        if flag == "--base":
            base_rev = value
        elif flag == "--repeat":
            repeat = int(value)
        elif flag == "--only":
            only = value
        else:
            raise SystemExit(__doc__)
    with tempfile.TemporaryDirectory(prefix="bench-refactor-") as name:
        tmp = Path(name)
        base = tmp / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base),
                        base_rev], check=True, capture_output=True)
        try:
            for tree in (base, ROOT):
                subprocess.run([sys.executable, "-m", "compileall", "-q",
                                str(tree / "kernelscope")], check=True)
            print(f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; base {base_rev};"
                  f" each case a fresh process, median of {repeat}, the trees alternating)")
            print("| path | CPU, base (floor) | CPU, this tree | ratio | wall base / this | "
                  "peak RSS base / this | target |")
            print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
            for label, case in cases(tmp):
                if only in label:
                    print(row(label, *compare(base, ROOT, case, repeat)), flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                           check=False, capture_output=True)


if __name__ == "__main__":
    main()
