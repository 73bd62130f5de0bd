"""Run a pass over many kernels in child processes and merge their streams of results."""

from __future__ import annotations

import os
import pickle
import selectors
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kernelscope.parsers.errors import ReportError

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])


def _spawn(job: dict[str, Any]) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kernelscope.parsers.ncu.list_worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None
    proc.stdin.write(pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL))
    proc.stdin.close()
    return proc


def _frames(buffer: bytearray) -> Iterator[list[Any]]:
    """Pop every complete frame off the front of ``buffer``."""
    while len(buffer) >= 8:
        size = int.from_bytes(buffer[:8], "big")
        if len(buffer) < 8 + size:
            return
        payload = bytes(buffer[8 : 8 + size])
        del buffer[: 8 + size]
        yield pickle.loads(payload)


def _failure(proc: subprocess.Popen[bytes]) -> ReportError:
    from kernelscope.parsers.ncu.list_worker import ERROR_PREFIX

    err = (proc.stderr.read().decode(errors="replace") if proc.stderr else "").strip()
    lines = err.splitlines()
    for line in reversed(lines):
        if line.startswith(ERROR_PREFIX):
            return ReportError(line.removeprefix(ERROR_PREFIX))
    reason = lines[-1] if lines else f"exit code {proc.returncode}"
    return ReportError(f"Reading the kernels failed in a worker process ({reason}).")


def iter_from_workers(
    job: dict[str, Any],
    processes: int,
    cancelled: Callable[[], bool] | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> Iterator[list[Any]]:
    """Split the job's kernels over ``processes`` children; yield each batch as it arrives.
    ``meanwhile`` runs in this process once the children are started (parent-side work that
    overlaps their start-up instead of following the pass)."""
    procs = [_spawn({**job, "shard": i, "shards": processes}) for i in range(processes)]
    if meanwhile is not None:
        meanwhile()
    sel = selectors.DefaultSelector()
    buffers: dict[int, bytearray] = {}
    for proc in procs:
        assert proc.stdout is not None
        buffers[proc.pid] = bytearray()
        sel.register(proc.stdout, selectors.EVENT_READ, proc)
    open_streams = len(procs)
    try:
        while open_streams:
            if cancelled is not None and cancelled():
                return
            for key, _ in sel.select(timeout=0.1):
                proc = key.data
                chunk = os.read(key.fileobj.fileno(), 1 << 20)  # type: ignore[union-attr]
                if chunk:
                    buffers[proc.pid].extend(chunk)
                    for items in _frames(buffers[proc.pid]):
                        if items:
                            yield items
                    continue
                sel.unregister(key.fileobj)
                open_streams -= 1
                if proc.wait() != 0:
                    raise _failure(proc)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
        sel.close()
