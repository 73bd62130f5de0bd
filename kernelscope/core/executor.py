"""Where the per-rank reductions run: this process, worker processes, or a Dask cluster.

- **In process** for one trace, or when the traces are small (together under
  :data:`IN_PROCESS_BYTES`): starting worker processes would cost more than it saves. Up to
  :data:`IN_PROCESS_THREADS` traces are reduced at once, on threads: one trace's parsing and
  polars queries, which release the GIL, run while another's Python runs.
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
from typing import TYPE_CHECKING, Any, TypeVar

from kernelscope.core.errors import ReportError
from kernelscope.core.hooks import CancelHook, OpenCancelled, is_cancelled

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

IN_PROCESS_BYTES = 64 << 20
IN_PROCESS_THREADS = 4
"""Traces reduced at once in this process. Each reduction waits now and then (on its pieces'
parsing, on reading the file) and holds the GIL only for its Python, so more than the cores
keep them busy: an 8-rank Kineto folder of 8 × 620 kB of gzip took 1.25 s with one at a time,
0.99 s with two and 0.92 s with four on 2 cores (median of 5; CPU time fell too). The traces
are small (together under :data:`IN_PROCESS_BYTES`) and the run keeps each one anyway, so
four at once add only their passing buffers (~50 MB there)."""
TASKS_PER_WORKER = 8
POLL_S = 0.1

Task = tuple[Callable[..., Any], tuple[Any, ...]]
_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


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


def _cancelled() -> OpenCancelled:
    return OpenCancelled("Reading the ranks was cancelled.")


class Executor:
    """Runs tasks (a function and its arguments) in this process, up to ``threads`` at once,
    and yields (index, result) in the tasks' order: the first task that fails, in that order,
    is the error raised, however the threads' work interleaves."""

    name = "in process"

    def __init__(self, threads: int = 1) -> None:
        self.threads = max(1, threads)

    def run(self, tasks: Sequence[Task], cancel: CancelHook | None = None
            ) -> Iterator[tuple[int, Any]]:
        if self.threads > 1 and len(tasks) > 1:
            yield from self._threaded(tasks, cancel)
            return
        for index, (fn, args) in enumerate(tasks):
            if is_cancelled(cancel):
                raise _cancelled()
            _, status, value = _call((index, fn, args))
            yield index, _unwrap(status, value)

    def _threaded(self, tasks: Sequence[Task], cancel: CancelHook | None
                  ) -> Iterator[tuple[int, Any]]:
        from concurrent.futures import wait

        if is_cancelled(cancel):
            raise _cancelled()
        with _thread_pool(min(self.threads, len(tasks))) as pool:
            futures = [pool.submit(_call, (i, fn, args)) for i, (fn, args) in enumerate(tasks)]
            for future in futures:
                while True:  # cancelling is checked before each result is handed out
                    if is_cancelled(cancel):
                        raise _cancelled()
                    if wait((future,), timeout=POLL_S).done:
                        break
                index, status, value = future.result()
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
                    raise _cancelled()
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
                    raise _cancelled()
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
    return ProcessExecutor(workers) if workers > 0 else Executor(in_process_threads(len(paths)))


def in_process_threads(tasks: int) -> int:
    """Threads for ``tasks`` run in this process: :data:`IN_PROCESS_THREADS`, no more than
    the tasks."""
    return max(1, min(IN_PROCESS_THREADS, tasks))


def in_threads(fn: Callable[[_Item], _Result], items: Sequence[_Item]) -> list[_Result]:
    """``fn`` of each of ``items``, up to :func:`in_process_threads` at once in this process,
    in the items' order; the first item's error, in that order, is raised as it was."""
    threads = in_process_threads(len(items))
    if threads == 1:
        return [fn(item) for item in items]
    with _thread_pool(threads) as pool:
        return list(pool.map(fn, items))


@contextlib.contextmanager
def _thread_pool(threads: int) -> Iterator[ThreadPoolExecutor]:
    """A pool of ``threads`` threads in this process; on leaving it (an error, a reader that
    stopped reading), the tasks not started are dropped and the running ones end first."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(threads, thread_name_prefix="kernelscope-trace")
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
