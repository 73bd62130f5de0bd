"""Passes over many kernels in a pool process: ``python -m kernelscope.parsers.ncu.list_worker``.

ncu_report keeps every kernel it has opened in memory until the process exits (about 0.8 MB a
kernel on a default-set report, ~7 MB with ``--set full``), so passes over all kernels (the
kernel list, exports) do not open them in the process that shows or writes the results. The
pool process imports what the pass needs before its job arrives (so the parent can start it
first thing and send the job once it has checked the report), opens the report and its first
kernel (ncu_report's set-up, ~0.14 s and ~120 MB, paid once), then forks children: each reads
a chunk of the kernels and streams plain model objects back through the pool, and stops once
its memory reaches its budget (``rss_limit_mb``), leaving the rest of its chunk to a fresh
child. Forked children start in about a millisecond sharing what the pool has loaded, so a
pass costs the kernels' opening split over the cores, and no process outgrows the budget
whatever the report's size.

Input (stdin): one pickled job dict: path, mode ("summary" or "detail"), ids (the kernels to
read), processes (children at a time), rss_limit_mb (default: ``budget_mb()``), max_kernels
(the most one child reads), metrics (summary mode), extra, source, curves, all_metrics,
diagnose (a picklable function of the KernelSummary, or in detail mode of the KernelDetail,
whose result is sent with it), rules, batch_seconds, origins. The pool watches stdin after
the job: its end (the parent closed it, or is gone) stops the pass.
Output (stdout): frames (``write_frame``: a 4-byte result count, an 8-byte length and a
pickled list of results: KernelSummary, KernelDetail or (either, diagnose result)), one
per kernel, batches in no fixed order, then a frame holding ``{"children": [[first id, kernels
read], ...]}``, one pair per child, and an empty list. The forked children send the pool the
same frames.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import resource
import sys
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

RSS_LIMIT_MB = 360
"""A child's memory budget: it stops before its resident size would pass this (the parent
then starts a fresh one for the rest), keeping every process under 400 MB. (ncu_report adds
~120 MB at the first kernel a process opens, then ~0.85 MB a kernel of a default-set report
and ~6.6 MB of a ``--set full`` one, measured on H200 reports.)"""


FRAME_HEAD = 12
"""A frame's head: the number of results it holds (4 bytes, big-endian), then the length of
its pickled payload (8 bytes)."""


def write_payload(out: Any, payload: bytes, count: int) -> None:
    """Write one frame of ``count`` results already pickled as ``payload``."""
    out.write(count.to_bytes(4, "big") + len(payload).to_bytes(8, "big"))
    out.write(payload)
    out.flush()


def write_frame(out: Any, items: list[Any]) -> None:
    write_payload(out, pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL), len(items))


def pop_frames(buffer: bytearray) -> Iterator[tuple[int, bytes]]:
    """Pop every complete frame off the front of ``buffer``: (result count, payload)."""
    while len(buffer) >= FRAME_HEAD:
        count = int.from_bytes(buffer[:4], "big")
        size = int.from_bytes(buffer[4:FRAME_HEAD], "big")
        if len(buffer) < FRAME_HEAD + size:
            return
        payload = bytes(buffer[FRAME_HEAD : FRAME_HEAD + size])
        del buffer[: FRAME_HEAD + size]
        yield count, payload


def _one(ctx: Any, job: dict[str, Any], kernel_id: int, handle: tuple[int, int]) -> Any:
    from kernelscope.parsers.ncu.detail import build_detail, read_source_hotspots
    from kernelscope.parsers.ncu.summary_reader import (
        action_names,
        read_summary,
        summary_from_detail,
    )

    action = ctx.range_by_idx(handle[0]).action_by_idx(handle[1])
    origins = job.get("origins")
    origin = origins[kernel_id] if origins else (None, "")
    diagnose = job.get("diagnose")
    if job["mode"] == "summary":
        summary = read_summary(action, kernel_id, handle, job["metrics"], job["rules"], origin)
        return summary if diagnose is None else (summary, diagnose(summary))
    if action is None:
        from kernelscope.parsers.errors import ReportError

        raise ReportError(f"Kernel {kernel_id} of the report cannot be read: it is damaged.")
    detail = build_detail(
        action,
        kernel_id,
        *handle,
        action_names(action, kernel_id),
        job["extra"],
        curves=job["curves"],
        breakdowns=job.get("breakdowns", True),
        tables=job.get("tables", True),
        origin=origin,
    )
    if job.get("source") and detail.has_section("SourceCounters"):
        detail.source = read_source_hotspots(action)
    if job.get("all_metrics"):
        from kernelscope.parsers.ncu.detail import read_all_metrics

        detail.all_metrics = read_all_metrics(action)
    if diagnose is None:
        return detail
    if job.get("slim"):
        # Only the list's view of the kernel travels back: its row and sections.
        return (summary_from_detail(detail, metrics=False), diagnose(detail))
    return (detail, diagnose(detail))


def _quiet_native_stderr() -> None:
    """Send what native code writes to file descriptor 2 (ncu_report's log lines about damaged
    records) to /dev/null, keeping Python's own ``sys.stderr`` for the parent to read."""
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    sys.stderr = os.fdopen(saved, "w", buffering=1, errors="backslashreplace")


ERROR_PREFIX = "kernelscope-report-error: "
"""How a child reports a ReportError to the parent: this prefix, then the sentence."""


def main() -> int:
    _quiet_native_stderr()
    _preload()
    try:
        job = pickle.load(sys.stdin.buffer)
    except EOFError:
        return 0  # started ahead of a pass that never came
    from kernelscope.parsers.errors import ReportError

    try:
        return _serve(job)
    except ReportError as exc:
        print(f"{ERROR_PREFIX}{exc}", file=sys.stderr)
        return 3


def _preload() -> None:
    """Import what every pass needs (ncu_report, the readers, the diagnosis that summaries
    and exports run in the children) while the parent is still checking the report."""
    import importlib

    for module in (
        "ncu_report",
        "kernelscope.parsers.kernel_analysis",
        "kernelscope.parsers.ncu.detail",
        "kernelscope.parsers.ncu.summary_reader",
    ):
        importlib.import_module(module)


def budget_mb() -> float:
    """The memory budget of a child: ``KERNELSCOPE_WORKER_MB`` when set, else RSS_LIMIT_MB."""
    try:
        return float(os.environ.get("KERNELSCOPE_WORKER_MB", "")) or RSS_LIMIT_MB
    except ValueError:
        return RSS_LIMIT_MB


class _Resident:
    """This process's resident size (MB), read from ``/proc/self/statm`` (~10 µs), falling
    back to the peak from ``getrusage`` where there is no /proc. (getrusage costs ~0.4 ms
    right after ncu_report opens a kernel, a fifth of the opening itself; ncu_report frees
    nothing, so the resident size only grows and equals the peak.)"""

    def __init__(self) -> None:
        try:
            self._fd: int | None = os.open("/proc/self/statm", os.O_RDONLY)
        except OSError:
            self._fd = None
        self._page_mb = (os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096) / 2**20

    def mb(self) -> float:
        if self._fd is not None:
            try:
                return int(os.pread(self._fd, 128, 0).split()[1]) * self._page_mb
            except (OSError, ValueError, IndexError):
                self._fd = None
        return peak_rss_mb()


def peak_rss_mb() -> float:
    """This process's peak resident size so far (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def kernel_handles(ctx: Any) -> list[tuple[int, int]]:
    """Every kernel's (range index, action index), in the order ncu_report lists them."""
    handles: list[tuple[int, int]] = []
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        handles.extend((r, a) for a in range(rng.num_actions() if rng is not None else 0))
    return handles


def _serve(job: dict[str, Any]) -> int:
    import ncu_report

    ctx = ncu_report.load_report(job["path"])
    handles = kernel_handles(ctx)
    ids = job.get("ids")
    ids = list(range(len(handles))) if ids is None else list(ids)
    out = sys.stdout.buffer
    children: list[list[int]] = []
    if ids and hasattr(os, "fork"):
        warm_up(ctx, handles[ids[0]])
        frames = fork_frames(
            ctx, job, ids, handles, processes=int(job.get("processes") or 1),
            stop_fd=sys.stdin.fileno(), children=children,
        )
        try:
            for frame in frames:
                if frame is STOPPED:
                    return 0  # the parent closed our stdin: the pass is over
                if frame is not None:
                    write_payload(out, frame[1], frame[0])
        except ChildCrashed as crash:
            print(crash.text, file=sys.stderr)
            return 1
    elif ids:  # no fork (Windows): read everything here, unbounded
        read = _read(ctx, job, ids, handles, lambda b: write_frame(out, b), float("inf"))
        children.append([ids[0], read])
    write_frame(out, [{"children": children}])
    write_frame(out, [])
    return 0


def warm_up(ctx: Any, handle: tuple[int, int]) -> None:
    """Before forking: open the pass's first kernel (ncu_report's set-up, ~0.14 s and
    ~120 MB), so that every child starts with it done. (Not the SASS disassembler, ~0.6 s a
    process: setting it up starts a thread, and a child forked after that hangs in it.)"""
    ctx.range_by_idx(handle[0]).action_by_idx(handle[1])


def chunk_size(count: int, processes: int, most: int, source: bool = False) -> int:
    """How many kernels one child is given: a quarter of each core's share (so the cores end
    together when kernels differ in cost), at least 16 (fewer forks), at most ``most``. A
    pass reading source hot spots gives each core one chunk: every child sets up the SASS
    disassembler anew (~0.6 s), so the fewer children the better (their budget still ends
    them)."""
    share = -(-count // max(1, processes))
    return max(1, min(most, share if source else max(16, -(-share // 4))))


def _read(
    ctx: Any,
    job: dict[str, Any],
    ids: list[int],
    handles: list[tuple[int, int]],
    send: Callable[[list[Any]], None],
    limit: float,
) -> int:
    """Read ``ids`` in order, passing batches of results to ``send`` (a batch every
    ``batch_seconds``), until the resident size would pass ``limit`` (MB); returns how many
    were read (at least one). The summaries among the results share their equal values
    (``ValueSharer``), so a batch pickles each such value once."""
    from kernelscope.parsers.ncu.shared_values import ValueSharer

    share = ValueSharer().result
    batch: list[Any] = []
    last = time.perf_counter()
    resident = _Resident()
    rss = resident.mb()
    step = 0.0  # the most one kernel has added so far, past the first
    done = 0
    for kernel_id in ids:
        if done and rss + 2 * step > limit:
            break  # the budget is reached: a fresh child reads the rest
        batch.append(share(_one(ctx, job, kernel_id, handles[kernel_id])))
        done += 1
        now_rss = resident.mb()
        if done > 1:
            step = max(step, now_rss - rss)
        rss = now_rss
        now = time.perf_counter()
        if done == 1 or now - last >= job.get("batch_seconds", 0.1):
            send(batch)  # the first kernel at once: a list shows its first rows sooner
            batch, last = [], now
    if batch:
        send(batch)
    return done


_FAILED = 0xFFFFFFFF
"""The result count that marks a child's last frame as its failure: ``(is_report_error,
text)`` pickled."""
STOPPED = (0, b"")
"""What :func:`fork_frames` yields when its ``stop_fd`` closed."""


class ChildCrashed(Exception):
    """A child failed other than with a ReportError: its traceback, or how it died."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class _Child:
    """A forked child reading one chunk, and what it has sent so far."""

    def __init__(self, pid: int, fd: int, ids: list[int]) -> None:
        self.pid = pid
        self.fd = fd
        self.ids = ids
        self.done = 0
        self.buffer = bytearray()
        self.failure: tuple[bool, str] | None = None
        self.record = [ids[0], 0]
        """``[first id, kernels read]``, kept up to date."""


def _child_main(
    ctx: Any, job: dict[str, Any], ids: list[int], handles: list[tuple[int, int]], fd: int
) -> None:
    """The body of a forked child: read ``ids`` within the budget, sending frames of a result
    count, a length and the pickled results; then leave at once (``os._exit``: none of the
    parent's clean-up runs here)."""
    code = 0
    pipe = os.fdopen(fd, "wb")
    try:
        import signal

        # Ctrl-C is the parent's to handle (it stops the pass and kills the children).
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)  # ncu_report's native log lines: not onto the user's terminal
        os.close(devnull)
        limit = job.get("rss_limit_mb") or budget_mb()
        _read(ctx, job, ids, handles, lambda batch: write_frame(pipe, batch), limit)
    except BaseException as exc:
        from kernelscope.parsers.errors import ReportError

        code = 1
        if not isinstance(exc, (BrokenPipeError, KeyboardInterrupt)):
            import traceback

            failure = (
                (True, str(exc)) if isinstance(exc, ReportError) else
                (False, traceback.format_exc())
            )
            with contextlib.suppress(OSError):
                write_payload(pipe, pickle.dumps(failure), _FAILED)
    finally:
        try:
            pipe.close()
        finally:
            os._exit(code)


def fork_frames(
    ctx: Any,
    job: dict[str, Any],
    ids: list[int],
    handles: list[tuple[int, int]],
    *,
    processes: int,
    stop_fd: int | None = None,
    children: list[list[int]] | None = None,
) -> Generator[tuple[int, bytes] | None, None, None]:
    """Read ``ids`` in children forked from this process (which has ``ctx`` loaded and its
    first kernel opened), ``processes`` at a time, each given a chunk (``chunk_size``; at most
    ``job["max_kernels"]``); a child that stopped at its budget is followed by a fresh one
    for the rest of its chunk. Yields each frame's (result count, pickled list of results)
    as it arrives, None every 0.1 s without one (a chance to stop), and STOPPED when
    ``stop_fd`` reaches its end. Appends ``[first id, kernels read]`` of each child to
    ``children`` (kept up to date). Raises the ReportError a child raised, or ChildCrashed.
    Closing the generator stops the children."""
    import selectors
    from collections import deque

    processes = max(1, processes)
    source = job["mode"] == "detail" and bool(job.get("source"))
    size = chunk_size(len(ids), processes, int(job.get("max_kernels") or len(ids)), source)
    queue = deque(ids[i : i + size] for i in range(0, len(ids), size))
    running: dict[int, _Child] = {}
    sel = selectors.DefaultSelector()
    if stop_fd is not None:
        sel.register(stop_fd, selectors.EVENT_READ, None)
    try:
        while queue or running:
            while queue and len(running) < processes:
                child = _fork(ctx, job, queue.popleft(), handles)
                running[child.fd] = child
                if children is not None:
                    children.append(child.record)
                sel.register(child.fd, selectors.EVENT_READ, child)
            events = sel.select(timeout=0.1)
            if not events:
                yield None
            for key, _ in events:
                if key.data is None:
                    if not os.read(key.fd, 1 << 16):
                        yield STOPPED
                        return
                    continue
                child = key.data
                data = os.read(child.fd, 1 << 20)
                if data:
                    child.buffer.extend(data)
                    yield from _complete_frames(child)
                    continue
                sel.unregister(child.fd)
                os.close(child.fd)
                del running[child.fd]
                _finish(child)
                if child.done < len(child.ids):
                    queue.appendleft(child.ids[child.done :])
    finally:
        for child in running.values():
            _stop(child)
        sel.close()
        gc.unfreeze()  # (what this process made meanwhile is collected again)


def _finish(child: _Child) -> None:
    """Wait for a child whose pipe ended; raise what went wrong in it."""
    from kernelscope.parsers.errors import ReportError

    status = os.waitpid(child.pid, 0)[1]
    if child.failure is not None:
        is_report_error, text = child.failure
        if is_report_error:
            raise ReportError(text)
        raise ChildCrashed(text)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        raise ChildCrashed(f"a worker process ended ({how}) after {child.done} kernels")
    if child.done == 0:
        raise ReportError("A worker process read none of its kernels.")


def _fork(ctx: Any, job: dict[str, Any], ids: list[int], handles: list[tuple[int, int]]) -> _Child:
    read_fd, write_fd = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    # The child's garbage collections must not walk the objects it shares with this process:
    # touching their headers would copy their pages into it (copy-on-write), several MB a
    # child. (12 % off a 1,000-kernel summary, measured.)
    gc.freeze()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child_main(ctx, job, ids, handles, write_fd)
    os.close(write_fd)
    return _Child(pid, read_fd, ids)


def _complete_frames(child: _Child) -> Iterator[tuple[int, bytes]]:
    """Pop the child's complete frames, counting their results; yield them, keeping a
    failure frame for :func:`_finish`."""
    for count, payload in pop_frames(child.buffer):
        if count == _FAILED:
            child.failure = pickle.loads(payload)
            continue
        child.done += count
        child.record[1] = child.done
        yield count, payload


def _stop(child: _Child) -> None:
    import signal

    with contextlib.suppress(OSError):
        os.kill(child.pid, signal.SIGKILL)
        os.waitpid(child.pid, 0)
    with contextlib.suppress(OSError):
        os.close(child.fd)


if __name__ == "__main__":
    raise SystemExit(main())
