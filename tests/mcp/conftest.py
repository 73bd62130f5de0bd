"""The real ``kernelscope mcp`` server, started as a subprocess and driven with the SDK's own
client over stdio, and the CLI's JSON exports of the same inputs to compare with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, SAMPLES

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install '.[mcp]')")

from mcp import Client
from mcp.client.stdio import StdioServerParameters

ANSWER_BYTES = 20_000
"""What an answer about the bundled 1,000-launch sample may take (issue 28)."""


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@asynccontextmanager
async def served(*roots: Path) -> AsyncIterator[Client]:
    """A client of a fresh ``python -m kernelscope mcp --root ...`` (default root: the
    samples)."""
    args = ["-m", "kernelscope", "mcp"]
    for root in roots or (SAMPLES,):
        args += ["--root", str(root)]
    params = StdioServerParameters(command=sys.executable, args=args, env=environment(),
                                   cwd=str(ROOT))
    async with Client(params) as client:
        yield client


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kernelscope", *map(str, args)],
                          capture_output=True, text=True, env=environment(), cwd=ROOT,
                          timeout=600, check=False)


def exported(*args: str | Path) -> dict[str, Any]:
    """The CLI's JSON export (``kernelscope export ARGS -f json``)."""
    done = cli("export", *args, "-f", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def size(answer: Any) -> int:
    return len(json.dumps(answer))
