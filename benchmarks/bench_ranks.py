"""Benchmark the multi-rank analysis: 64 ranks of 300,000 kernels each.

    python benchmarks/bench_ranks.py [--ranks 64] [--kernels 300000] [--repeat 3] [--dask]

Inputs are built here, into a temporary directory, from the committed four-rank sample
(``samples/nsys/ranks``): each rank's export is decompressed and its steady state (the NVTX
steps) replicated with time offsets until it holds ``--kernels`` kernels — its kernels,
memcpys, memsets and NVTX ranges, its CUDA API launch calls (one per kernel) and the OS
runtime calls of its main thread; rows after the steps move behind the last copy. The four
replicated traces are then copied to ``--ranks`` files, each with its own ``RANK=`` in the
recorded environment (rank r is a copy of sample rank r % 4, so every fourth rank sleeps).

Cases, each in a fresh process (peak RSS = the sum over the process and its children,
sampled every 20 ms):

- floor: read every trace's whole kernel table (``SELECT *``, ADBC into polars) in one
  spawned worker process per core — the least any per-rank tool must read;
- floor (model columns): the same with only the nine kernel columns kernelscope's model reads;
- analysis: ``analyse_run`` on the directory (worker processes chosen as the CLI does),
  then the ``kernelscope/ranks/1`` document;
- analysis on Dask (``--dask``): the same with a ``LocalCluster`` of one worker per core.

Targets: analysis <= 2x the floor, <= 2 GB peak RSS including the worker processes. Each
row is the median of ``--repeat`` runs.
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

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "nsys" / "ranks"
REPLICATED = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
              "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME",
              "OSRT_API")
MODEL_COLUMNS = ("start, end, deviceId, contextId, streamId, correlationId, globalPid, "
                 "demangledName, shortName")


# -- inputs ---------------------------------------------------------------------------------
def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]


def step_window(path: Path) -> tuple[int, int]:
    """[first step start, last step end) of a sample rank (its NVTX push/pop ranges)."""
    with sqlite3.connect(path) as conn:
        w0, w1 = conn.execute("SELECT min(start), max(end) FROM NVTX_EVENTS WHERE "
                              "eventType = 59 AND end IS NOT NULL").fetchone()
    return int(w0), int(w1)


def replicate(source: Path, target: Path, want_kernels: int, period: int) -> int:
    """Copy ``source`` and repeat its NVTX-step window every ``period`` ns (the same for
    every rank, so that the copies of a collective stay together across ranks) until it
    holds ``want_kernels`` kernels."""
    shutil.copyfile(source, target)
    target.chmod(0o644)
    w0, w1 = step_window(source)
    conn = sqlite3.connect(target)
    total = conn.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    inside = conn.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start >= ? "
                          "AND start < ?", (w0, w1)).fetchone()[0]
    copies = max(0, -(-(want_kernels - total) // inside))
    corr = conn.execute("SELECT max(correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME"
                        ).fetchone()[0] + 1
    main_tid = conn.execute("SELECT globalTid FROM NVTX_EVENTS WHERE eventType = 59 "
                            "LIMIT 1").fetchone()[0]
    conn.execute("CREATE TEMP TABLE k(i INTEGER PRIMARY KEY)")
    conn.executemany("INSERT INTO k VALUES (?)", [(i,) for i in range(1, copies + 1)])
    launches = ("SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL UNION "
                "SELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION "
                "SELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMSET")
    only = {"CUPTI_ACTIVITY_KIND_RUNTIME": f" AND t.correlationId IN ({launches})",
            "OSRT_API": f" AND t.globalTid = {main_tid}"}
    shift = copies * period
    for table in REPLICATED:
        cols = _columns(conn, table)
        conn.execute(f'UPDATE "{table}" SET start = start + {shift}, "end" = "end" + {shift} '
                     f"WHERE start >= {w1}")
        select = ", ".join(
            f't."{c}" + k.i * {period}' if c in ("start", "end")
            else f't."{c}" + k.i * {corr}' if c == "correlationId" else f't."{c}"'
            for c in cols)
        names = ", ".join(f'"{c}"' for c in cols)
        conn.execute(f'INSERT INTO "{table}" ({names}) SELECT {select} FROM "{table}" t, k '
                     f"WHERE t.start >= {w0} AND t.start < {w1}{only.get(table, '')} "
                     "ORDER BY k.i, t.start")
    conn.execute(f"UPDATE ANALYSIS_DETAILS SET stopTime = stopTime + {shift}, "
                 f"duration = duration + {shift}")
    conn.commit()
    n = conn.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    conn.execute("VACUUM")
    conn.close()
    return int(n)


def build_inputs(directory: Path, ranks: int, kernels: int) -> dict[str, int]:
    """``directory/rank{r}.sqlite`` for r < ``ranks``; returns sizes and counts."""
    plains = []
    for r in range(4):
        plain = directory / f".base{r}.sqlite"
        with lzma.open(SAMPLE / f"rank{r}.sqlite.xz") as src, open(plain, "wb") as dst:
            shutil.copyfileobj(src, dst)
        plains.append(plain)
    # One period for all: the longest step window on the common clock, so that copy k of
    # every rank's steps lies in the same stretch of time.
    starts = []
    for plain in plains:
        with sqlite3.connect(plain) as conn:
            starts.append(conn.execute(
                "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0])
    windows = [step_window(p) for p in plains]
    lo = min(w0 + s for (w0, _), s in zip(windows, starts, strict=True))
    hi = max(w1 + s for (_, w1), s in zip(windows, starts, strict=True))
    period = hi - lo + 1_000_000
    bases = []
    for r, plain in enumerate(plains):
        big = directory / f".big{r}.sqlite"
        bases.append((big, replicate(plain, big, kernels, period)))
        plain.unlink()
    for r in range(ranks):
        base, _ = bases[r % 4]
        target = directory / f"rank{r}.sqlite"
        shutil.copyfile(base, target)
        with sqlite3.connect(target) as conn:
            conn.execute("UPDATE TARGET_INFO_SYSTEM_ENV SET value = "
                         "replace(value, ';RANK=' || ? || ';', ';RANK=' || ? || ';') "
                         "WHERE name = 'DeviceEnvironment'", (r % 4, r))
    for base, _ in bases:
        base.unlink()
    files = sorted(directory.glob("rank*.sqlite"))
    return {"files": len(files), "kernels_per_rank": bases[0][1],
            "bytes": sum(f.stat().st_size for f in files)}


# -- cases (in a child process) ---------------------------------------------------------------
def _read_kernels(args: tuple[str, str]) -> int:
    import adbc_driver_sqlite.dbapi as adbc
    import polars as pl

    from kernelscope.kinds.nsys.model.db import read_only_uri

    path, columns = args
    with adbc.connect(read_only_uri(Path(path))) as conn, conn.cursor() as cur:
        cur.execute(f"SELECT {columns} FROM CUPTI_ACTIVITY_KIND_KERNEL")
        df = pl.from_arrow(cur.fetch_arrow_table())
    return df.height  # type: ignore[union-attr]


def case_floor(directory: Path, columns: str) -> dict[str, object]:
    import multiprocessing

    paths = [str(p) for p in sorted(directory.glob("rank*.sqlite"))]
    workers = min(len(paths), os.cpu_count() or 1)
    t = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        rows = sum(pool.map(_read_kernels, [(p, columns) for p in paths], chunksize=1))
    return {"seconds": time.perf_counter() - t, "rows": rows, "workers": workers}


def case_analysis(directory: Path, dask: bool) -> dict[str, object]:
    from kernelscope.kinds.ranks.analysis.run import analyse_run
    from kernelscope.kinds.ranks.export.ranks_json import to_export_dict

    cluster = None
    scheduler = None
    if dask:
        from distributed import LocalCluster

        cluster = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1,
                               processes=True, dashboard_address=None)
        scheduler = cluster.scheduler_address
    t = time.perf_counter()
    run = analyse_run([directory], scheduler=scheduler)
    doc = to_export_dict(run)
    seconds = time.perf_counter() - t
    if cluster is not None:
        cluster.close()
    s = doc["straggler"]
    return {"seconds": seconds, "ranks": len(doc["ranks"]),
            "kernels": sum(r["kernels"] for r in doc["ranks"]),
            "executor": doc["run"]["executor"],
            "straggler": None if s is None else s["rank"], "json_bytes": len(json.dumps(doc))}


# -- driver ---------------------------------------------------------------------------------
def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                out.append(int(entry))
    return out


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_mb(pid: int) -> float:
    """RSS of ``pid`` and all its descendants, in MB."""
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        total += _rss_kb(p)
        todo.extend(_children(p))
    return total / 1024


def run_case(args: list[str]) -> dict[str, object]:
    proc = subprocess.Popen([sys.executable, __file__, "--child", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    peak = 0.0
    while proc.poll() is None:
        peak = max(peak, tree_rss_mb(proc.pid))
        time.sleep(0.02)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"case {args} failed:\n{err}")
    result = json.loads(out.strip().splitlines()[-1])
    result["peak_rss_mb"] = peak
    return result


def median_of(args: list[str], repeat: int) -> dict[str, object]:
    runs = [run_case(args) for _ in range(repeat)]
    best = sorted(runs, key=lambda r: float(r["seconds"]))[len(runs) // 2]  # type: ignore[arg-type]
    best["peak_rss_mb"] = statistics.median(float(r["peak_rss_mb"]) for r in runs)  # type: ignore[arg-type]
    best["all_seconds"] = [round(float(r["seconds"]), 2) for r in runs]  # type: ignore[arg-type]
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--kernels", type=int, default=300_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dask", action="store_true", help="also run the analysis on Dask")
    ap.add_argument("--child", nargs="+", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, directory = args.child[0], Path(args.child[1])
        if kind == "floor":
            result = case_floor(directory, "*")
        elif kind == "floor-model":
            result = case_floor(directory, MODEL_COLUMNS)
        else:
            result = case_analysis(directory, kind == "dask")
        print(json.dumps(result))
        return

    with tempfile.TemporaryDirectory(prefix="bench-ranks-") as tmp:
        directory = Path(tmp)
        t = time.perf_counter()
        info = build_inputs(directory, args.ranks, args.kernels)
        build_s = time.perf_counter() - t
        print(f"inputs: {info['files']} traces of {info['kernels_per_rank']:,} kernels "
              f"({info['bytes'] / 1e9:.2f} GB) built in {build_s:.0f} s", flush=True)
        floor = median_of(["floor", tmp], args.repeat)
        model = median_of(["floor-model", tmp], args.repeat)
        ours = median_of(["analysis", tmp], args.repeat)
        dask = median_of(["dask", tmp], args.repeat) if args.dask else None

    f_s = float(floor["seconds"])  # type: ignore[arg-type]
    rows = [
        ("floor: every kernel table (SELECT *), one process per core",
         f"{f_s:.2f} s", f"{f_s:.2f} s", "1.00x", "", floor),
        ("floor: the model's nine kernel columns", f"{f_s:.2f} s",
         f"{float(model['seconds']):.2f} s", f"{float(model['seconds']) / f_s:.2f}x", "",  # type: ignore[arg-type]
         model),
        (f"analysis ({ours['executor']}), straggler rank {ours['straggler']}", f"{f_s:.2f} s",
         f"{float(ours['seconds']):.2f} s", f"{float(ours['seconds']) / f_s:.2f}x",  # type: ignore[arg-type]
         "<= 2x floor", ours),
        ("analysis vs the model-columns floor", f"{float(model['seconds']):.2f} s",  # type: ignore[arg-type]
         f"{float(ours['seconds']):.2f} s",
         f"{float(ours['seconds']) / float(model['seconds']):.2f}x", "", ours),  # type: ignore[arg-type]
    ]
    if dask is not None:
        rows.append((f"analysis on Dask ({dask['executor'].split(' tcp')[0]}, LocalCluster)",  # type: ignore[union-attr]
                     f"{f_s:.2f} s", f"{float(dask['seconds']):.2f} s",  # type: ignore[arg-type]
                     f"{float(dask['seconds']) / f_s:.2f}x", "", dask))  # type: ignore[arg-type]
    print(f"\n{args.ranks} ranks x {info['kernels_per_rank']:,} kernels, "
          f"{os.cpu_count()} CPUs, median of {args.repeat}\n")
    print("| case | floor | value | ratio | target | peak RSS (with workers) |")
    print("| --- | ---: | ---: | ---: | --- | ---: |")
    for name, fl, value, ratio, target, result in rows:
        print(f"| {name} | {fl} | {value} | {ratio} | {target} | "
              f"{float(result['peak_rss_mb']):,.0f} MB |")  # type: ignore[arg-type]
    rss = float(ours["peak_rss_mb"])  # type: ignore[arg-type]
    print(f"| peak RSS of the analysis, all processes | 2,048 MB | {rss:,.0f} MB | "
          f"{rss / 2048:.2f}x | <= 2 GB | |")
    print("\nruns (s):", {"floor": floor["all_seconds"], "model": model["all_seconds"],
                          "analysis": ours["all_seconds"],
                          **({"dask": dask["all_seconds"]} if dask else {})})


if __name__ == "__main__":
    main()
