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
CHUNK = 5000
"""The most kernels one child reads before a fresh one takes over (besides its memory
budget, which usually ends it first)."""


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


class _Shard:
    """One core's share of the kernels and the child now reading it."""

    def __init__(self, job: dict[str, Any], ids: list[int]) -> None:
        self.job = job
        self.ids = ids
        self.done = 0
        self.buffer = bytearray()
        self.proc = _spawn({**job, "ids": ids, "max_kernels": CHUNK})
        self.children = 1

    def replace(self) -> None:
        """Start a fresh child for the kernels the last one left (it stopped at its budget)."""
        _close(self.proc)
        self.ids = self.ids[self.done :]
        self.done = 0
        self.buffer = bytearray()
        self.proc = _spawn({**self.job, "ids": self.ids, "max_kernels": CHUNK})
        self.children += 1


def _close(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def iter_from_workers(
    job: dict[str, Any],
    processes: int,
    cancelled: Callable[[], bool] | None = None,
    meanwhile: Callable[[], object] | None = None,
    stats: dict[str, int] | None = None,
) -> Iterator[list[Any]]:
    """Split the job's kernels (``job["ids"]``) over ``processes`` children; yield each batch
    as it arrives. A child stops at its memory budget (``list_worker.budget_mb()``, or
    ``job["rss_limit_mb"]``) or after CHUNK kernels, and a fresh one takes over the rest of
    its share, so memory
    stays bounded whatever the report's size. ``meanwhile`` runs in this process once the
    children are started (parent-side work that overlaps their start-up instead of following
    the pass); ``stats["children"]`` counts the children started."""
    ids = list(job["ids"])
    processes = max(1, min(processes, len(ids)))
    shards = [_Shard(job, ids[i::processes]) for i in range(processes)]
    if meanwhile is not None:
        meanwhile()
    sel = selectors.DefaultSelector()

    def watch(shard: _Shard) -> None:
        assert shard.proc.stdout is not None
        sel.register(shard.proc.stdout, selectors.EVENT_READ, shard)

    for shard in shards:
        watch(shard)
    open_streams = len(shards)
    try:
        while open_streams:
            if cancelled is not None and cancelled():
                return
            for key, _ in sel.select(timeout=0.1):
                shard = key.data
                chunk = os.read(key.fileobj.fileno(), 1 << 20)  # type: ignore[union-attr]
                if chunk:
                    shard.buffer.extend(chunk)
                    for items in _frames(shard.buffer):
                        if items:
                            shard.done += len(items)
                            yield items
                    continue
                sel.unregister(key.fileobj)
                if shard.proc.wait() != 0:
                    raise _failure(shard.proc)
                if shard.done == 0:
                    raise ReportError("A worker process read none of its kernels.")
                if shard.done < len(shard.ids):
                    shard.replace()
                    watch(shard)
                else:
                    open_streams -= 1
    finally:
        if stats is not None:
            stats["children"] = sum(s.children for s in shards)
        for shard in shards:
            _close(shard.proc)
        sel.close()
