"""Runs kernelscope's command line on many inputs, each in a process of its own, paying the
interpreter's start and the imports once.

``python -m tests.corpus.driver PLAN RESULTS``: PLAN holds a JSON object a line, one a run
(``argv``: the arguments after ``kernelscope``; ``out``, ``err``: the files that get the run's
stdout and stderr; ``fresh``). The driver imports the headless part of kernelscope once, then
forks a child a run, at most ``WORKERS`` at a time. The child sets the limits, points
descriptors 0, 1 and 2 at /dev/null and the two files, and runs ``kernelscope/__main__.py``
as ``python -m kernelscope`` does (``runpy``), so the program's ``SystemExit`` ends the child
through the interpreter's own exit (stream flushes, exit handlers, the exit status); a
``fresh`` run execs a new ``python -m kernelscope`` instead. The driver kills a child that
runs past ``TIME_LIMIT_S`` and writes, a run a line in PLAN's order, the exit status (minus
the signal for a killed child), the seconds, the CPU seconds, the peak resident memory and
whether it ran out of time.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import pkgutil
import resource
import runpy
import selectors
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import kernelscope

TIME_LIMIT_S = 90.0  # per input, on a busy 2-core CI machine (most take under 2 s)
ADDRESS_LIMIT = 16 << 30  # a runaway guard for the machine, far above any real run
FILE_LIMIT = 2 << 30  # no single file written may grow past this (temporary copies)
WORKERS = 2
INTERACTIVE = ("screens", "ui", "tui", "mcp", "__main__")
"""Packages of kernelscope the driver does not import up front: Textual's screens and shells
and the MCP server, which an export or a summary never loads (``tui.cli`` is imported)."""
POOL_THREADS = ("polars-0", "tokio-")
"""Names of threads of polars' worker pool: a child forked after they start hangs in polars."""


@dataclass
class Run:
    argv: list[str]
    out: str
    err: str
    fresh: bool
    pid: int = 0
    pidfd: int = -1
    started: float = 0.0
    result: dict[str, object] = field(default_factory=dict)


def preload() -> None:
    """Import every headless module of kernelscope and the command line, once for all runs."""
    names = [
        info.name for info in pkgutil.walk_packages(kernelscope.__path__, "kernelscope.")
        if not set(info.name.split(".")) & set(INTERACTIVE)
    ]
    for name in [*names, "kernelscope.tui.cli"]:
        importlib.import_module(name)
    threads = [Path(f"/proc/self/task/{tid}/comm").read_text().strip()
               for tid in os.listdir("/proc/self/task")]
    started = [name for name in threads if name.startswith(POOL_THREADS)]
    if started:
        sys.exit(f"importing kernelscope started polars' thread pool ({', '.join(started)}): "
                 "a module builds a frame at import, and forked runs would hang")


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _child(run: Run) -> None:
    """In the forked child: the run's limits and descriptors, then kernelscope, which ends the
    process with its ``SystemExit`` (it propagates out of the driver to the interpreter)."""
    _limits()
    for fd, path, flags in ((0, os.devnull, os.O_RDONLY),
                            (1, run.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                            (2, run.err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
        opened = os.open(path, flags, 0o644)
        os.dup2(opened, fd)
        os.close(opened)
    if run.fresh:
        os.execv(sys.executable, [sys.executable, "-m", "kernelscope", *run.argv])
    sys.argv = ["kernelscope", *run.argv]
    runpy.run_module("kernelscope", run_name="__main__", alter_sys=True)
    raise AssertionError("kernelscope/__main__.py returned instead of exiting")


def _start(run: Run, selector: selectors.BaseSelector) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    run.started = time.monotonic()
    run.pid = os.fork()
    if run.pid == 0:
        _child(run)
    run.pidfd = os.pidfd_open(run.pid)
    selector.register(run.pidfd, selectors.EVENT_READ, run)


def _finish(run: Run, selector: selectors.BaseSelector, timed_out: bool) -> None:
    _, status, usage = os.wait4(run.pid, 0)
    selector.unregister(run.pidfd)
    os.close(run.pidfd)
    run.result = {"code": os.waitstatus_to_exitcode(status),
                  "seconds": time.monotonic() - run.started,
                  "cpu": usage.ru_utime + usage.ru_stime,
                  "rss": usage.ru_maxrss * 1024, "timed_out": timed_out}


def run_all(runs: list[Run]) -> None:
    selector = selectors.DefaultSelector()
    waiting = list(reversed(runs))
    running: list[Run] = []
    killed: set[int] = set()
    while waiting or running:
        while waiting and len(running) < WORKERS:
            running.append(waiting.pop())
            _start(running[-1], selector)
        now = time.monotonic()
        for run in running:
            if run.pid not in killed and now - run.started >= TIME_LIMIT_S:
                os.kill(run.pid, signal.SIGKILL)
                killed.add(run.pid)
        deadlines = [run.started + TIME_LIMIT_S for run in running if run.pid not in killed]
        wait = max(min(deadlines) - now, 0.0) if deadlines else None
        for key, _ in selector.select(wait):
            run = key.data
            _finish(run, selector, run.pid in killed)
            running.remove(run)


def main(plan: str, results: str) -> int:
    runs = [Run(**json.loads(line)) for line in Path(plan).read_text().splitlines()]
    preload()
    gc.freeze()  # the collector of a child would touch, so copy, every page the imports filled
    run_all(runs)
    Path(results).write_text("".join(json.dumps(run.result) + "\n" for run in runs))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
