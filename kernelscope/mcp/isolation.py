"""Run one answer in a worker process of its own (``python -m kernelscope.mcp.worker``).

Why a process per call: ncu_report never frees a kernel it has opened, so a server that read
its answers in its own process would grow with every report; a worker exits after its answer
and takes that memory with it. The worker leads a process group of its own (it forks the
readers of a large report), so a cancelled call ends the whole group at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from kernelscope.core.errors import ReportError

OnProgress = Callable[[float, float | None, str], Awaitable[None]]
LONGEST_LINE = 64 * 1024 * 1024
"""The longest line a worker may write (an answer is far shorter: ``paging.py``)."""


def worker_command() -> list[str]:
    return [sys.executable, "-m", "kernelscope.mcp.worker"]


async def run_in_worker(request: dict[str, Any], on_progress: OnProgress) -> Any:
    """The worker's answer to ``request``; its progress goes to ``on_progress``. Raises
    ReportError with the worker's sentence for bad input. Cancelled, it kills the worker
    and every process the worker started."""
    process = await anyio.open_process(
        worker_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None,
        start_new_session=True,
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        await process.stdin.send((json.dumps(request) + "\n").encode())
        await process.stdin.aclose()
        return await _read_answer(process, BufferedByteReceiveStream(process.stdout),
                                  on_progress)
    finally:
        with anyio.CancelScope(shield=True):
            await _end(process)


async def _read_answer(process: Process, lines: BufferedByteReceiveStream,
                       on_progress: OnProgress) -> Any:
    while True:
        try:
            line = await lines.receive_until(b"\n", LONGEST_LINE)
        except (anyio.IncompleteRead, anyio.EndOfStream):
            code = await process.wait()
            raise ReportError(
                f"The worker process reading the report stopped without an answer (exit "
                f"code {code}); the report may be too large for this machine's memory."
            ) from None
        message = json.loads(line)
        if "progress" in message:
            await on_progress(*message["progress"])
        elif "error" in message:
            raise ReportError(message["error"])
        else:
            return message["result"]


async def _end(process: Process) -> None:
    """Kill the worker's process group unless it has ended, then reap the worker."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    await process.wait()
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            with contextlib.suppress(Exception):
                await stream.aclose()
