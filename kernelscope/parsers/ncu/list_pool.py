"""Run a pass over many kernels in forked children and stream their results.

A single-threaded process that has the report open (the headless commands) forks the
children itself: they start with everything it has imported and loaded. Elsewhere (the TUI,
whose threads make forking unsafe) a pool process (``list_worker``) forks them; it can be
started ahead (``prestart``), as soon as the command knows it will read a large kernel
report, so that it imports what it needs while this process starts, and waits for its job.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import selectors
import subprocess
import sys
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kernelscope.parsers.errors import ReportError
from kernelscope.parsers.ncu.huge_pages import add_huge_pages
from kernelscope.parsers.ncu.list_worker import pop_frames

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])
CHUNK = 5000
"""The most kernels one child reads before a fresh one takes over (besides its memory
budget, which usually ends it first)."""

recent_children: deque[list[list[int]]] = deque(maxlen=32)
"""For each recent pass of this process: ``[first id, kernels read]`` of every child the pool
forked, in the order they started."""

_waiting: list[subprocess.Popen[bytes]] = []
"""Pool processes started ahead, waiting for a job."""


def _spawn() -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    add_huge_pages(env)  # its children fault in the kernels' memory in huge pages
    return subprocess.Popen(
        [sys.executable, "-m", "kernelscope.parsers.ncu.list_worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def prestart(count: int = 1) -> None:
    """Start ``count`` pool processes now for passes to come (each serves one pass; one not
    used exits when this process does)."""
    while len(_waiting) < count:
        _waiting.append(_spawn())


def _pool() -> subprocess.Popen[bytes]:
    while _waiting:
        proc = _waiting.pop(0)
        if proc.poll() is None:
            return proc
        _close(proc)
    return _spawn()


def _failure(proc: subprocess.Popen[bytes]) -> ReportError:
    from kernelscope.parsers.ncu.list_worker import ERROR_PREFIX

    err = (proc.stderr.read().decode(errors="replace") if proc.stderr else "").strip()
    lines = err.splitlines()
    for line in reversed(lines):
        if line.startswith(ERROR_PREFIX):
            return ReportError(line.removeprefix(ERROR_PREFIX))
    reason = lines[-1] if lines else f"exit code {proc.returncode}"
    return ReportError(f"Reading the kernels failed in a worker process ({reason}).")


def _close(proc: subprocess.Popen[bytes]) -> None:
    """End the pool: closing its stdin tells it to stop its children and leave."""
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stderr is not None:
        proc.stderr.close()


def can_fork_here() -> bool:
    """Whether this process may fork children that use ncu_report: it has fork and runs one
    thread only (Python's or native ones, such as a thread pool of polars)."""
    if not hasattr(os, "fork"):
        return False
    import threading

    if threading.active_count() != 1:
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


Local = tuple[Any, list[tuple[int, int]]]
"""This process's open report for forking the children itself: the ncu_report context and
its kernel handles."""


def iter_from_workers(
    job: dict[str, Any],
    processes: int,
    cancelled: Callable[[], bool] | None = None,
    meanwhile: Callable[[], object] | None = None,
    local: Local | None = None,
    head: Callable[[int], Any] | None = None,
) -> Iterator[list[Any]]:
    """Read the job's kernels (``job["ids"]``) in forked children, ``processes`` at a time;
    yield each batch as it arrives. A child stops at its memory budget
    (``list_worker.budget_mb()``, or ``job["rss_limit_mb"]``) or after CHUNK kernels, and a
    fresh one takes over the rest, so memory stays bounded whatever the report's size. With
    ``local`` and where :func:`can_fork_here`, the children are forked from this process;
    else from a pool process. ``meanwhile`` runs in this process once the pass has started
    (parent-side work that overlaps it instead of following it). ``recent_children`` records
    the children of the pass. ``head(id)`` reads one kernel's result in this process: when
    the pass goes to a pool process, the first kernel is read here, before the pool is sent
    the rest (which it reaches ~0.2 s later: it opens the report and its own first kernel),
    so a list shows its first row sooner."""
    job = {**job, "ids": list(job["ids"]), "processes": max(1, processes), "max_kernels": CHUNK}
    children: list[list[int]] = []
    try:
        if local is not None and can_fork_here():
            # (the check again inside: opening the first kernel must not have started a thread)
            yield from _forked_here(job, local, cancelled, meanwhile, children)
            return
        if head is not None and len(job["ids"]) > 1:
            yield [head(job["ids"][0])]
            job["ids"] = job["ids"][1:]
        yield from _from_pool(job, cancelled, meanwhile, children)
    finally:
        recent_children.append(children)


def _forked_here(
    job: dict[str, Any],
    local: Local,
    cancelled: Callable[[], bool] | None,
    meanwhile: Callable[[], object] | None,
    children: list[list[int]],
) -> Iterator[list[Any]]:
    from kernelscope.parsers.ncu.list_worker import ChildCrashed, fork_frames, warm_up
    from kernelscope.parsers.ncu.opener import native_stderr_quiet

    ctx, handles = local
    ids = job["ids"]
    if ids:
        with native_stderr_quiet():
            warm_up(ctx, handles[ids[0]])
    if not can_fork_here():
        yield from _from_pool(job, cancelled, meanwhile, children)
        return
    if meanwhile is not None:
        meanwhile()
    received = 0
    frames = fork_frames(
        ctx, job, ids, handles, processes=job["processes"], children=children
    )
    try:
        for frame in frames:
            if cancelled is not None and cancelled():
                return
            if frame is not None:
                items = pickle.loads(frame[1])
                received += len(items)
                yield items
    except ChildCrashed as crash:
        lines = crash.text.strip().splitlines()
        raise ReportError(
            f"Reading the kernels failed in a worker process ({lines[-1] if lines else ''})."
        ) from None
    finally:
        frames.close()
    _check_count(received, len(ids))


def _check_count(received: int, wanted: int) -> None:
    if received < wanted:
        raise ReportError(f"Reading the kernels stopped early: {received} of {wanted} were read.")


def _from_pool(
    job: dict[str, Any],
    cancelled: Callable[[], bool] | None,
    meanwhile: Callable[[], object] | None,
    children: list[list[int]],
) -> Iterator[list[Any]]:
    ids = job["ids"]
    proc = _pool()
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL))
        proc.stdin.flush()
    except BrokenPipeError:
        pass  # the pool is gone: its exit status and stderr say why, below
    if meanwhile is not None:
        meanwhile()
    buffer = bytearray()
    received = 0
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    fd = proc.stdout.fileno()
    try:
        while True:
            if cancelled is not None and cancelled():
                return
            if not sel.select(timeout=0.1):
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            buffer.extend(chunk)
            for _, payload in pop_frames(buffer):
                items = pickle.loads(payload)
                if items and isinstance(items[0], dict):
                    children.extend(items[0].get("children", []))
                elif items:
                    received += len(items)
                    yield items
        if proc.wait() != 0:
            raise _failure(proc)
        _check_count(received, len(ids))
    finally:
        sel.close()
        _close(proc)
