"""Memory of a ``kernelscope mcp`` server that answers many calls on different reports.

    python benchmarks/bench_mcp_memory.py [--calls 100]

Starts the real server (root: ``samples/``) as a subprocess, drives it with the MCP SDK's
stdio client, and calls ``metrics`` and ``summary`` round-robin over every bundled kernel
report and timeline. Prints the server's resident memory (VmRSS, from /proc) after chosen
calls and the answers' largest size. Every answer is read in a worker process that exits
after it (ncu_report never frees a kernel it opened), so the server should not grow with
the reports it has answered about.

Target: the server's RSS after the last call within 10 MB of its RSS after the first.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"


def server_pid() -> int:
    """The ``kernelscope mcp`` process this benchmark started."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"mcp" in command:
                return int(entry.name)
    raise SystemExit("the server process was not found")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def calls(count: int) -> list[tuple[str, dict[str, object]]]:
    kernels = sorted(p.relative_to(SAMPLES) for p in (SAMPLES / "ncu").glob("*.ncu-rep.xz"))
    traces = sorted(p.relative_to(SAMPLES) for p in (SAMPLES / "nsys").glob("*.sqlite.xz"))
    asked: list[tuple[str, dict[str, object]]] = []
    for i in range(count):
        if i % 4 == 3:
            asked.append(("summary", {"path": str(traces[i // 4 % len(traces)])}))
        else:
            path = kernels[i % len(kernels)]
            asked.append(("metrics", {"path": str(path), "kernel_id": 0, "pattern": "^sm__"}))
    return asked


async def run(count: int) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "kernelscope", "mcp", "--root", str(SAMPLES)],
        env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=str(REPO))
    marks = {1, 10, 25, 50, 75, count}
    rows = []
    largest = 0
    started = time.perf_counter()
    async with Client(params) as client:
        pid = server_pid()
        rows.append((0, "(started)", rss_mb(pid)))
        for i, (tool, args) in enumerate(calls(count), 1):
            got = await client.call_tool(tool, args)
            if got.is_error:
                raise SystemExit(f"{tool} {args}: {got.content[0].text}")
            largest = max(largest, len(json.dumps(got.structured_content)))
            if i in marks:
                rows.append((i, f"{tool} {args['path']}", rss_mb(pid)))
    seconds = time.perf_counter() - started
    print(f"{'calls':>5}  {'server RSS MB':>13}  last call")
    for i, what, mb in rows:
        print(f"{i:>5}  {mb:>13.1f}  {what}")
    growth = rows[-1][2] - rows[1][2]
    print(f"growth after the first call: {growth:+.1f} MB (target: within 10 MB); "
          f"largest answer {largest:,} bytes; {seconds:.0f} s in all")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    anyio.run(run, parser.parse_args().calls)


if __name__ == "__main__":
    main()
