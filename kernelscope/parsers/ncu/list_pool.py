"""Run the list pass in child processes and merge their streams of summaries."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kernelscope.parsers.errors import ReportError
from kernelscope.parsers.ncu.model import KernelSummary
from kernelscope.parsers.ncu.summary_reader import summary_from_wire

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])


def _spawn(job: dict[str, Any]) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kernelscope.parsers.ncu.list_worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(job) + "\n")
    proc.stdin.close()
    return proc


def iter_from_workers(
    job: dict[str, Any], processes: int, cancelled: Callable[[], bool] | None = None
) -> Iterator[list[KernelSummary]]:
    """Split the kernels over ``processes`` children; yield each batch as it arrives."""
    procs = [_spawn({**job, "shard": i, "shards": processes}) for i in range(processes)]
    sel = selectors.DefaultSelector()
    for proc in procs:
        assert proc.stdout is not None
        sel.register(proc.stdout, selectors.EVENT_READ, proc)
    finished = 0
    try:
        while finished < len(procs):
            if cancelled is not None and cancelled():
                return
            for key, _ in sel.select(timeout=0.1):
                line = key.fileobj.readline()  # type: ignore[union-attr]
                if not line:
                    sel.unregister(key.fileobj)
                    proc = key.data
                    if proc.wait() != 0:
                        err = (proc.stderr.read() if proc.stderr else "").strip().splitlines()
                        reason = err[-1] if err else f"exit code {proc.returncode}"
                        raise ReportError(f"Reading the kernel list failed ({reason}).")
                    finished += 1
                    continue
                payload = json.loads(line)
                if isinstance(payload, list):
                    yield [summary_from_wire(d) for d in payload]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
        sel.close()
