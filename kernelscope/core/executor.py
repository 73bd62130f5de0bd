"""Where the per-rank reductions run: this process, worker processes, or a Dask cluster.

- **In process** for one trace, or when the traces are small (together under
  :data:`IN_PROCESS_BYTES`): starting worker processes would cost more than it saves.
- **Worker processes** otherwise: ``spawn``-started (never ``fork``: polars and the UI run
  threads), one per core, each reducing one trace at a time with polars limited to its share
  of the cores, and replaced after :data:`TASKS_PER_WORKER` traces so that no allocator arena
  grows for the whole run. Only the small summaries come back.
- **Dask** (``--scheduler ADDRESS``, with the optional ``dask``/``distributed`` packages): the
  same function runs on the cluster's workers, which must see the trace files at the same
  paths (a shared file system); it is the engine ``nsys recipe`` uses too.

Every executor yields ``(index, result)`` pairs as they finish; a failed task's ReportError
comes back as the error it raised.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from kernelscope.core.errors import ReportError
from kernelscope.core.hooks import CancelHook, OpenCancelled, is_cancelled

IN_PROCESS_BYTES = 64 << 20
TASKS_PER_WORKER = 8
POLL_S = 0.1

Task = tuple[Callable[..., Any], tuple[Any, ...]]


def _call(item: tuple[int, Callable[..., Any], tuple[Any, ...]]) -> tuple[int, str, Any]:
    """Run one task in a worker; errors travel back as one sentence, never a traceback."""
    index, fn, args = item
    try:
        return index, "ok", fn(*args)
    except ReportError as exc:
        return index, "error", str(exc)
    except Exception as exc:  # one sentence for the user, whatever broke
        first = (str(exc).strip().splitlines() or [""])[0]
        return index, "error", f"a worker failed ({type(exc).__name__}: {first})."


def _unwrap(status: str, value: Any) -> Any:
    if status == "error":
        raise ReportError(str(value))
    return value


class Executor:
    """Runs tasks (a function and its arguments) and yields (index, result) as they end."""

    name = "in process"

    def run(self, tasks: Sequence[Task], cancel: CancelHook | None = None
            ) -> Iterator[tuple[int, Any]]:
        for index, (fn, args) in enumerate(tasks):
            if is_cancelled(cancel):
                raise OpenCancelled("Reading the ranks was cancelled.")
            _, status, value = _call((index, fn, args))
            yield index, _unwrap(status, value)

    def close(self) -> None:
        """Release the workers."""


@contextlib.contextmanager
def _real_stderr() -> Iterator[None]:
    """The process's own stderr while the pool starts: multiprocessing hands
    ``sys.stderr.fileno()`` to the resource tracker it launches, and a Textual app's captured
    stderr answers -1 ("bad value(s) in fds_to_keep")."""
    current = sys.stderr
    try:
        valid = current is not None and current.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        valid = False
    if valid or sys.__stderr__ is None:
        yield
        return
    sys.stderr = sys.__stderr__
    try:
        yield
    finally:
        sys.stderr = current


class ProcessExecutor(Executor):
    """A pool of spawned worker processes."""

    def __init__(self, processes: int) -> None:
        self.processes = max(1, processes)
        self.name = f"{self.processes} worker process{'es' if self.processes > 1 else ''}"
        threads = max(1, (os.cpu_count() or 1) // self.processes)
        import multiprocessing  # only where a pool is made: a run read in-process needs none

        ctx = multiprocessing.get_context("spawn")
        self._timeout = multiprocessing.TimeoutError
        saved = os.environ.get("POLARS_MAX_THREADS")
        os.environ["POLARS_MAX_THREADS"] = str(threads)  # inherited by the spawned workers
        try:
            with _real_stderr():
                self._pool = ctx.Pool(self.processes, maxtasksperchild=TASKS_PER_WORKER)
        finally:
            if saved is None:
                os.environ.pop("POLARS_MAX_THREADS", None)
            else:
                os.environ["POLARS_MAX_THREADS"] = saved

    def run(self, tasks: Sequence[Task], cancel: CancelHook | None = None
            ) -> Iterator[tuple[int, Any]]:
        items = [(i, fn, args) for i, (fn, args) in enumerate(tasks)]
        results = self._pool.imap_unordered(_call, items)
        for _ in items:
            while True:
                if is_cancelled(cancel):
                    self._pool.terminate()
                    raise OpenCancelled("Reading the ranks was cancelled.")
                try:
                    index, status, value = results.next(timeout=POLL_S)
                    break
                except self._timeout:
                    continue
            yield index, _unwrap(status, value)

    def close(self) -> None:
        self._pool.terminate()
        self._pool.join()


class DaskExecutor(Executor):
    """Tasks submitted to a Dask ``distributed`` scheduler."""

    def __init__(self, address: str, *, timeout_s: float = 5.0) -> None:
        try:
            from distributed import Client
        except ImportError as exc:
            raise ReportError(
                "--scheduler needs Dask: pip install '.[dask]' in kernelscope's clone (or pip "
                "install dask distributed).") from exc
        try:
            self._client = Client(address, timeout=f"{timeout_s}s")
        except ValueError as exc:
            raise ReportError(f"{address} is not a Dask scheduler address ({exc}).") from exc
        except (OSError, TimeoutError) as exc:
            raise ReportError(f"The Dask scheduler at {address} could not be reached within "
                              f"{timeout_s:g} s.") from exc
        self.name = f"Dask scheduler {address}"

    def run(self, tasks: Sequence[Task], cancel: CancelHook | None = None
            ) -> Iterator[tuple[int, Any]]:
        from distributed import wait

        futures = [self._client.submit(_call, (i, fn, args), pure=False)
                   for i, (fn, args) in enumerate(tasks)]
        pending = set(futures)
        try:
            while pending:
                if is_cancelled(cancel):
                    raise OpenCancelled("Reading the ranks was cancelled.")
                try:
                    done, pending = wait(pending, timeout=POLL_S, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    continue
                for future in done:
                    index, status, value = future.result()
                    yield index, _unwrap(status, value)
        finally:
            if pending:
                self._client.cancel(list(pending))

    def close(self) -> None:
        self._client.close()


def make_executor(paths: Sequence[Path], *, workers: int | None = None,
                  scheduler: str | None = None) -> Executor:
    """The executor for reducing ``paths``: ``scheduler`` (Dask) when given, else worker
    processes (``workers`` of them; 0 means in process; None chooses by size and cores)."""
    if scheduler:
        return DaskExecutor(scheduler)
    if workers is None:
        try:
            size = sum(p.stat().st_size for p in paths)
        except OSError:
            size = IN_PROCESS_BYTES
        small = size < IN_PROCESS_BYTES or len(paths) < 2
        workers = 0 if small else min(len(paths), os.cpu_count() or 1)
    return ProcessExecutor(workers) if workers > 0 else Executor()
