"""Benchmark reading and showing GPU metrics (``samples/nsys/gpu_metrics``: 1,206,788 rows).

    python benchmarks/bench_gpu_metrics.py [--copies 4] [--runs 3]

Cases (each in a fresh subprocess, so peak RSS is its own; the median of ``--runs``):

- floor: every ``GPU_METRICS`` row into polars through ADBC (the least a viewer reading all
  samples does);
- open without metrics: the same export with ``GPU_METRICS`` dropped, opened by kernelscope;
- open: the export opened by kernelscope (it reads the chosen metrics only);
- full: open and build everything the timeline screen shows, then the JSON document;
- the same on the export with its samples replicated ``--copies`` times (time-shifted);
- lanes: one redraw of the four default metric lanes at width 200, zooming in 1.5x a step.

Targets (the timeline's): full analysis <= 3 s and <= 1.5 GB; a redraw step <= 100 ms.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_nsys import peak_rss_mb

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "nsys" / "gpu_metrics.sqlite.xz"


def case_floor(path: Path) -> dict[str, object]:
    import adbc_driver_sqlite.dbapi as adbc
    import polars as pl

    from kernelscope.kinds.nsys.model.db import read_only_uri

    t = time.perf_counter()
    with adbc.connect(read_only_uri(path)) as conn, conn.cursor() as cur:
        cur.execute("SELECT timestamp, typeId, metricId, value FROM GPU_METRICS")
        df = pl.from_arrow(cur.fetch_arrow_table())
    return {"seconds": time.perf_counter() - t, "rows": df.height}


def case_open(path: Path) -> dict[str, object]:
    from kernelscope.kinds import nsys

    t = time.perf_counter()
    report = nsys.open_report(path)
    return {"seconds": time.perf_counter() - t, "rows": report.gpu_metrics.sample_count}


def case_full(path: Path) -> dict[str, object]:
    from kernelscope.kinds import nsys
    from kernelscope.timeline.analysis.timeline_data import build
    from kernelscope.timeline.export.timeline_json import to_export_dict

    t = time.perf_counter()
    report = nsys.open_report(path)
    data = build(path, report)
    json.dumps(to_export_dict(data))
    return {"seconds": time.perf_counter() - t, "rows": report.gpu_metrics.sample_count}


def case_lanes(path: Path) -> dict[str, object]:
    from kernelscope.kinds import nsys
    from kernelscope.timeline.analysis.timeline_data import TimelineData
    from kernelscope.timeline.model.gpu_metrics import DEFAULT_LANES

    data = TimelineData(nsys.open_report(path))
    t0, t1 = data.start_ns, data.end_ns
    steps = []
    for _ in range(30):
        t = time.perf_counter()
        for key in DEFAULT_LANES:
            data.metric_strip(0, key, t0, t1, 200)
        steps.append(time.perf_counter() - t)
        mid, span = (t0 + t1) // 2, t1 - t0
        t0, t1 = mid - int(span / 3), mid + int(span / 3)
    return {"seconds": statistics.median(steps), "worst": max(steps),
            "rows": data.report.gpu_metrics.sample_count}


CASES = {"floor": case_floor, "open": case_open, "full": case_full, "lanes": case_lanes}


def run_case(case: str, path: Path, runs: int) -> dict[str, object]:
    results = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, __file__, "--child", case, "--path", str(path)],
            capture_output=True, text=True, check=False, cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        if out.returncode != 0:
            raise SystemExit(f"case {case} failed:\n{out.stderr}")
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    results.sort(key=lambda r: r["seconds"])
    return results[len(results) // 2]


def without_metrics(source: Path, target: Path) -> None:
    shutil.copyfile(source, target)
    target.chmod(0o644)
    with sqlite3.connect(target) as conn:
        conn.execute("DROP TABLE GPU_METRICS")


def replicate_metrics(source: Path, target: Path, copies: int) -> int:
    """Append ``copies - 1`` time-shifted copies of every GPU_METRICS row."""
    shutil.copyfile(source, target)
    target.chmod(0o644)
    with sqlite3.connect(target) as conn:
        lo, hi = conn.execute("SELECT min(timestamp), max(timestamp) FROM GPU_METRICS").fetchone()
        period = hi - lo + 100_000
        conn.execute(
            "INSERT INTO GPU_METRICS (rawTimestamp, timestamp, typeId, metricId, value) "
            "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k "
            f"WHERE i < {copies - 1}) "
            f"SELECT rawTimestamp + k.i * {period}, timestamp + k.i * {period}, typeId, metricId, "
            "value FROM GPU_METRICS, k"
        )
        conn.execute(f"UPDATE ANALYSIS_DETAILS SET stopTime = stopTime + {(copies - 1) * period}")
        return int(conn.execute("SELECT count(*) FROM GPU_METRICS").fetchone()[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--path", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        result = CASES[args.child](args.path)
        result["peak_rss_mb"] = peak_rss_mb()
        print(json.dumps(result))
        return
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory(prefix="bench-gpu-metrics-") as tmp:
        sample = Path(tmp) / "gpu_metrics.sqlite"
        with lzma.open(SAMPLE) as src, open(sample, "wb") as dst:
            shutil.copyfileobj(src, dst)
        bare = Path(tmp) / "no_metrics.sqlite"
        without_metrics(sample, bare)
        big = Path(tmp) / "big.sqlite"
        n_big = replicate_metrics(sample, big, args.copies)

        def add(label: str, res: dict[str, object], note: str = "") -> None:
            rows.append((label, f"{res['rows']:,}", f"{res['seconds']:.3f}",
                         f"{res['peak_rss_mb']:.0f}", note))

        add("open without GPU_METRICS", run_case("open", bare, args.runs))
        for path, tag in ((sample, "1,206,788 rows"), (big, f"{n_big:,} rows")):
            add(f"floor: every GPU_METRICS row via ADBC [{tag}]",
                run_case("floor", path, args.runs))
            add(f"open (chosen metrics only) [{tag}]", run_case("open", path, args.runs))
            add(f"full analysis + JSON [{tag}]", run_case("full", path, args.runs))
        lanes = run_case("lanes", big, args.runs)
        rows.append((f"metric lanes redraw, 4 lanes x 200 columns [{n_big:,} rows]",
                     f"{lanes['rows']:,}", f"{lanes['seconds'] * 1000:.1f} ms",
                     f"{lanes['peak_rss_mb']:.0f}", f"worst {lanes['worst'] * 1000:.1f} ms"))
    header = ("case", "samples read", "time (s)", "peak RSS (MB)", "note")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(5)]
    print(f"({os.cpu_count()} CPUs, median of {args.runs} runs)")
    for r in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)))


if __name__ == "__main__":
    main()
