"""Benchmark the Nsight Systems model: reading, full analysis and timeline redraws.

    python benchmarks/bench_nsys.py [--sample NAME] [--kernels 1000000] [--width 200]

Cases (each in a fresh subprocess, so peak RSS is its own):

- floor: only read the kernel table into polars (the least any viewer must do);
- read-adbc / read-sqlite3: the kernel table through the ADBC driver vs ``pl.read_database``;
- full: open the report and build the view data the timeline screen shows (summaries,
  utilisation, gaps and their causes, findings, NVTX, timeline index), then the JSON document
  from it (``TimelineData``, the one builder the screen and the exports share);
- the same on a >= 1M-kernel trace made by replicating the sample's CUDA rows (kernels, copies,
  memsets, API calls) with time offsets into a temporary SQLite file;
- redraw: zoom/pan steps on the timeline index of the big trace (mean and worst).

Targets: full analysis of 1M kernels <= 3 s and <= 1.5 GB; a redraw step <= 100 ms.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "nsys"
REPLICATED = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
              "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- cases (run inside a child process) ---------------------------------------------------
def case_floor(path: Path) -> dict[str, object]:
    import adbc_driver_sqlite.dbapi as adbc
    import polars as pl

    from kernelscope.kinds.nsys.model.db import read_only_uri

    t = time.perf_counter()
    with adbc.connect(read_only_uri(path)) as conn, conn.cursor() as cur:
        cur.execute("SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL")
        df = pl.from_arrow(cur.fetch_arrow_table())
    return {"seconds": time.perf_counter() - t, "rows": df.height}


def case_read_sqlite3(path: Path) -> dict[str, object]:
    import polars as pl

    from kernelscope.kinds.nsys.model.db import read_only_uri

    t = time.perf_counter()
    conn = sqlite3.connect(read_only_uri(path), uri=True)
    df = pl.read_database("SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL", conn,
                          infer_schema_length=None)
    return {"seconds": time.perf_counter() - t, "rows": df.height}


def case_full(path: Path) -> dict[str, object]:
    from kernelscope.kinds import nsys
    from kernelscope.timeline.analysis.timeline_data import build
    from kernelscope.timeline.export.timeline_json import to_export_dict

    t = time.perf_counter()
    report = nsys.open_report(path)
    t_open = time.perf_counter() - t
    data = build(path, report)  # what the timeline screen computes before it shows
    data.utilization_strips(200)
    json.dumps(to_export_dict(data))
    return {"seconds": time.perf_counter() - t, "open_seconds": t_open,
            "rows": report.kernels.height, "lanes": len(data.index.lanes)}


def case_redraw(path: Path, width: int) -> dict[str, object]:
    from kernelscope.kinds import nsys

    report = nsys.open_report(path)
    t = time.perf_counter()
    index = nsys.TimelineIndex(report)
    build = time.perf_counter() - t
    t0, t1 = report.start_ns, report.end_ns
    steps = []
    for i in range(40):  # zoom in 1.5x per step around the middle, panning every other step
        t = time.perf_counter()
        index.render(t0, t1, width)
        index.sparkline(t0, t1, width)
        index.next_gap((t0 + t1) // 2)
        steps.append(time.perf_counter() - t)
        span = t1 - t0
        if i % 2:
            t0, t1 = t0 + span // 4, t1 + span // 4
        else:
            mid = (t0 + t1) // 2
            t0, t1 = mid - int(span / 3), mid + int(span / 3)
    return {"seconds": sum(steps) / len(steps), "worst": max(steps), "build": build,
            "rows": report.kernels.height, "lanes": len(index.lanes)}


# -- driver -------------------------------------------------------------------------------
def run_case(case: str, path: Path, width: int) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", case, "--path", str(path), "--width", str(width)],
        capture_output=True, text=True, check=False, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    if out.returncode != 0:
        raise SystemExit(f"case {case} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def largest_sample(samples: Path) -> str:
    best, best_n = "zoo", -1
    for path in samples.glob("*.sqlite.xz"):
        name = path.name.removesuffix(".sqlite.xz")
        if path.stat().st_size > best_n:
            best, best_n = name, path.stat().st_size
    return best


def replicate(source: Path, target: Path, want_kernels: int,
              tables: tuple[str, ...] = REPLICATED) -> int:
    """Copy ``source`` and append time-shifted copies of the rows of ``tables`` until it
    holds at least ``want_kernels`` kernels; return the kernel count."""
    shutil.copyfile(source, target)
    target.chmod(0o644)
    conn = sqlite3.connect(target)
    n, lo, hi = conn.execute(
        "SELECT count(*), min(start), max(end) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
    copies = -(-want_kernels // n) - 1
    api_lo, api_hi = conn.execute(
        "SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone() or (lo, hi)
    period = max(hi, api_hi or hi) - min(lo, api_lo or lo) + 1_000_000
    for table in tables:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
            continue
        cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
        sel = ", ".join(
            f"{c} + k.i * {period}" if c in ("start", "end")
            else f"{c} + k.i * 10000000" if c == "correlationId" else c
            for c in cols
        )
        conn.execute(
            f"INSERT INTO {table} ({', '.join(cols)}) "
            f"WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < {copies}) "
            f"SELECT {sel} FROM {table}, k"
        )
    conn.execute(f"UPDATE ANALYSIS_DETAILS SET stopTime = stopTime + {copies * period}")
    conn.commit()
    total = conn.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    conn.close()
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", default=None, help="samples/nsys/NAME.sqlite.xz (default: largest)")
    ap.add_argument("--samples", type=Path, default=SAMPLES, help="directory of NAME.sqlite.xz")
    ap.add_argument("--kernels", type=int, default=1_000_000)
    ap.add_argument("--width", type=int, default=200)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--path", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        cases = {"floor": case_floor, "read-sqlite3": case_read_sqlite3, "full": case_full}
        result = (case_redraw(args.path, args.width) if args.child == "redraw"
                  else cases[args.child](args.path))
        result["peak_rss_mb"] = peak_rss_mb()
        print(json.dumps(result))
        return

    name = args.sample or largest_sample(args.samples)
    rows: list[tuple[str, object, str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-nsys-") as tmp:
        sample = Path(tmp) / f"{name}.sqlite"
        with lzma.open(args.samples / f"{name}.sqlite.xz") as src, open(sample, "wb") as dst:
            shutil.copyfileobj(src, dst)
        big = Path(tmp) / "big.sqlite"
        t = time.perf_counter()
        n_big = replicate(sample, big, args.kernels, ("CUPTI_ACTIVITY_KIND_KERNEL",))
        big_all = Path(tmp) / "big_all.sqlite"
        n_all = replicate(sample, big_all, args.kernels)
        build_s = time.perf_counter() - t
        n_sample = _count(sample)

        def add(label: str, res: dict[str, object], note: str = "") -> None:
            rows.append((label, res["rows"], f"{res['seconds']:.3f}",
                         f"{res['peak_rss_mb']:.0f}", note))

        cases = (
            (sample, name),
            (big, f"{name} kernel rows x{n_big // max(1, n_sample)}"),
            (big_all, f"{name} all CUDA rows x{n_all // max(1, n_sample)}"),
        )
        for path, tag in cases:
            add(f"floor: kernel table via ADBC [{tag}]", run_case("floor", path, args.width))
            add(f"kernel table via pl.read_database [{tag}]",
                run_case("read-sqlite3", path, args.width))
            full = run_case("full", path, args.width)
            add(f"full analysis [{tag}]", full, f"open {full['open_seconds']:.3f} s")
        redraw = run_case("redraw", big_all, args.width)
        rows.append((f"timeline redraw step, width {args.width} [{name} all CUDA rows]",
                     redraw["rows"],
                     f"{redraw['seconds'] * 1000:.1f} ms", f"{redraw['peak_rss_mb']:.0f}",
                     f"worst {redraw['worst'] * 1000:.1f} ms, index build "
                     f"{redraw['build']:.2f} s, {redraw['lanes']} lanes"))
    header = ("case", "kernels", "time (s)", "peak RSS (MB)", "note")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(5)]
    print(f"(big traces built in {build_s:.1f} s; {os.cpu_count()} CPUs)")
    for r in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)))


def _count(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]


if __name__ == "__main__":
    main()
