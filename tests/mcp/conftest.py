"""The real ``kernelscope mcp`` server and the CLI's JSON exports of the same inputs to compare
with.

Most tests drive the server in this process through the SDK's in-memory transport
(``served``): the same ``build_server`` the command serves, whose answers still come from
worker processes as in use; the stdio server a client starts (``served_over_stdio``) is kept
for what only a real process shows (the command serving its tools, a cancelled call killing
its worker). The CLI runs in this process too (``cli``), as ``kernelscope`` would run it;
``cli_process`` starts it as a program, for the command's own exit codes."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from kernelscope.tui.cli import main
from tests.conftest import ROOT, SAMPLES

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install '.[mcp]')")

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from kernelscope.mcp.roots import Roots
from kernelscope.mcp.server import build_server

ANSWER_BYTES = 20_000
"""What an answer about the bundled 1,000-launch sample may take (issue 28)."""


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@asynccontextmanager
async def served(*roots: Path) -> AsyncIterator[Client]:
    """A client of the server ``kernelscope mcp --root ...`` serves (default root: the
    samples), built in this process; each answer comes from a worker process."""
    async with Client(build_server(Roots.of(roots or (SAMPLES,)))) as client:
        yield client


@asynccontextmanager
async def served_over_stdio(*roots: Path) -> AsyncIterator[Client]:
    """A client of a fresh ``python -m kernelscope mcp --root ...`` (default root: the
    samples), over its standard input and output."""
    args = ["-m", "kernelscope", "mcp"]
    for root in roots or (SAMPLES,):
        args += ["--root", str(root)]
    params = StdioServerParameters(command=sys.executable, args=args, env=environment(),
                                   cwd=str(ROOT))
    async with Client(params) as client:
        yield client


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``kernelscope ARGS`` run in this process: its exit code, standard output and error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def cli_process(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``python -m kernelscope ARGS`` as a program of its own."""
    return subprocess.run([sys.executable, "-m", "kernelscope", *map(str, args)],
                          capture_output=True, text=True, env=environment(), cwd=ROOT,
                          timeout=600, check=False)


@cache
def printed(*args: str) -> subprocess.CompletedProcess[str]:
    """``cli(*args)`` for a command that only prints (a JSON export to standard output), run
    once per test process for the tests that compare with the same one."""
    return cli(*args)


def exported(*args: str | Path) -> dict[str, Any]:
    """The CLI's JSON export (``kernelscope export ARGS -f json``)."""
    done = printed("export", *map(str, args), "-f", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def size(answer: Any) -> int:
    return len(json.dumps(answer))
