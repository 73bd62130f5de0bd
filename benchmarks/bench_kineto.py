"""Benchmark PyTorch profiler (Kineto) traces: an 8-rank folder against HTA, and one large
trace.

    python benchmarks/bench_kineto.py [--hta-python /work/htaenv/bin/python]
        [--ranks 8] [--copies 4] [--gzip] [--big-mb 1024] [--runs 1]

Inputs are built here, into a temporary directory, from the committed samples:

- the 8-rank folder: the four gloo ranks of ``samples/kineto/ranks``, each with its steady
  state replicated ``--copies`` times (later in time, correlation ids renumbered), written as
  ``--ranks`` files whose ``distributedInfo`` names ranks 0..N-1 of a world of N; with
  ``--gzip``, as ``.pt.trace.json.gz`` (as PyTorch's ``tensorboard_trace_handler`` writes
  them with ``use_gzip=True``; both tools read them so). ``--copies 4`` makes 8 x 640 kB of
  JSON; ``--copies 40 --gzip`` makes 8 x 620 kB of gzip (6.3 MB of JSON each);
- the large trace: ``samples/kineto/kineto_step`` replicated the same way until it holds
  ``--big-mb`` MB.

Cases, each a fresh process (wall time, CPU time and peak RSS of the process; with
``--runs N``, the median of N runs, kernelscope and HTA alternating; ``--big-mb 0`` leaves
the large trace out). kernelscope's modules are byte-compiled first, as installing it does
(HTA's installed package comes compiled): where ``PYTHONDONTWRITEBYTECODE`` is set, an
editable checkout would otherwise compile every module it imports on every run (~0.2 s of
CPU, a fixed cost of each kernelscope process):

- kernelscope: ``kernelscope export FOLDER --format json`` (the run: every rank's HTA
  numbers, the straggler) and ``kernelscope summary TRACE`` (every timeline analysis);
- HTA 0.5.0 (``--hta-python``, a Python with ``holistictraceanalysis`` installed; not a
  dependency): ``TraceAnalysis`` over the folder, ``get_temporal_breakdown`` and
  ``get_comm_comp_overlap``.

Targets: the folder in <= 0.25x HTA's time with less peak memory; the large trace within 20 s
and 1.5 GB.
"""

from __future__ import annotations

import argparse
import gzip
import json
import lzma
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "kineto"
HTA_SCRIPT = """
import logging, sys
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=sys.argv[1])
print(a.get_temporal_breakdown(visualize=False).to_string())
print(a.get_comm_comp_overlap(visualize=False).to_string())
"""


def _copies(doc: dict, copies: int):
    """The timed events of ``doc``, copy by copy (each after the last, ids renumbered), and
    first the events without a time."""
    events = doc["traceEvents"]
    timed = [e for e in events if isinstance(e.get("ts"), (int, float))]
    yield [e for e in events if not isinstance(e.get("ts"), (int, float))]
    first = min(e["ts"] for e in timed)
    span = max(e["ts"] + e.get("dur", 0) for e in timed) - first
    for copy in range(copies):
        out = []
        for event in timed:
            e = dict(event, ts=event["ts"] + copy * span)
            args = e.get("args")
            if isinstance(args, dict) and "correlation" in args:
                e["args"] = dict(args, correlation=args["correlation"] + copy * 10_000_000)
            if "id" in e and isinstance(e["id"], int):
                e["id"] = e["id"] + copy * 10_000_000
            out.append(e)
        yield out


def write_replicated(path: Path, doc: dict, copies: int) -> None:
    """``doc`` with its events repeated ``copies`` times, written a copy at a time."""
    members = {k: v for k, v in doc.items() if k != "traceEvents"}
    with open(path, "wb") as fh:
        # The members as Kineto writes them (``"rank": 0``, with a space): HTA finds each
        # file's rank with the regex ``"rank":\s+(\d+)`` and takes every file without a
        # match as rank 0 (orjson's ``"rank":0`` left it one rank of the eight).
        fh.write(json.dumps(members).encode()[:-1] + b', "traceEvents": [')
        first = True
        for events in _copies(doc, copies):
            if events:
                fh.write((b"" if first else b",\n") + orjson.dumps(events)[1:-1])
                first = False
        fh.write(b"]}")


def build_folder(folder: Path, ranks: int, copies: int, gzipped: bool = False) -> None:
    sources = sorted((SAMPLES / "ranks").glob("*.xz"))
    for rank in range(ranks):
        doc = orjson.loads(lzma.decompress(sources[rank % len(sources)].read_bytes()))
        doc["distributedInfo"] = dict(doc["distributedInfo"], rank=rank, world_size=ranks)
        path = folder / f"rank{rank}.pt.trace.json"
        write_replicated(path, doc, copies)
        if gzipped:
            path.with_name(path.name + ".gz").write_bytes(gzip.compress(path.read_bytes(), 6))
            path.unlink()


def build_big(path: Path, megabytes: int) -> None:
    doc = orjson.loads(lzma.decompress((SAMPLES / "kineto_step.pt.trace.json.xz").read_bytes()))
    one = len(orjson.dumps(doc))
    write_replicated(path, doc, max(1, megabytes * 1_000_000 // one))


def measure(argv: list[str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds (user + system, its threads and children included), peak
    RSS MB) of ``argv`` run to completion. On a shared machine the CPU time says what the
    wall time would be alone on one core."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{argv} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def median_of(runs: int, argvs: list[list[str]]) -> list[tuple[float, float, float]]:
    """For each of ``argvs``, the median wall and CPU time and the largest peak RSS of
    ``runs`` runs, the commands taking turns (so a change in the machine's load falls on
    each alike)."""
    got: list[list[tuple[float, float, float]]] = [[] for _ in argvs]
    for _ in range(runs):
        for i, argv in enumerate(argvs):
            got[i].append(measure(argv))
    return [(statistics.median(w for w, _, _ in g), statistics.median(c for _, c, _ in g),
             max(r for _, _, r in g)) for g in got]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hta-python", default=None)
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--gzip", action="store_true")
    parser.add_argument("--big-mb", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    rows = []
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "kernelscope")],
                   check=True, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        folder.mkdir()
        build_folder(folder, args.ranks, args.copies, args.gzip)
        size = sum(p.stat().st_size for p in folder.iterdir()) / 1e6
        argvs = [[sys.executable, "-m", "kernelscope", "export", str(folder), "--format",
                  "json"]]
        if args.hta_python:
            argvs.append([args.hta_python, "-c", HTA_SCRIPT, str(folder)])
        label = f"{args.ranks}-rank folder ({size:.1f} MB{' of gzip' if args.gzip else ''})"
        for tool, res in zip(("kernelscope", "HTA 0.5.0"), median_of(args.runs, argvs),
                             strict=False):
            rows.append((label, tool, *res))
        if args.big_mb > 0:
            big = Path(tmp) / "big.pt.trace.json"
            build_big(big, args.big_mb)
            rows.append((f"one trace ({big.stat().st_size / 1e6:.0f} MB)", "kernelscope",
                         *median_of(args.runs, [[sys.executable, "-m", "kernelscope",
                                                 "summary", str(big)]])[0]))
    print(f"load average over the last minute at the end: {os.getloadavg()[0]:.1f} "
          f"({os.cpu_count()} cores)")
    print("| input | tool | wall (s) | CPU (s) | peak RSS (MB) |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name, tool, wall, cpu, rss in rows:
        print(f"| {name} | {tool} | {wall:.2f} | {cpu:.2f} | {rss:.0f} |")
    if len(rows) >= 2 and rows[1][1].startswith("HTA"):
        ks, hta = rows[0], rows[1]
        print(f"kernelscope / HTA: wall {ks[2] / hta[2]:.2f}×, CPU {ks[3] / hta[3]:.2f}× "
              "(target ≤ 0.25×)")


if __name__ == "__main__":
    main()
