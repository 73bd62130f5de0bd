"""Waiting on processes the tests do not own (a fake nsys, an MCP worker) without polling."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys


def ended_within(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` has ended or ends within ``seconds`` (its pidfd turns readable
    when it does; the bound is for a process that is never stopped)."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([handle], [], [], seconds)[0])
    finally:
        os.close(handle)


_PROBE = ("import contextlib, io, json, sys\n"
          "from kernelscope.tui.cli import main\n"
          "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
          "    code = main(sys.argv[2:])\n"
          "print(json.dumps([code, out.getvalue(), sys.argv[1] in sys.modules]))\n")


def fresh_command(argv: list[str], module: str) -> tuple[int, str, bool]:
    """Run the command line ``argv`` in a fresh Python: its exit code, its standard output,
    and whether it imported ``module``."""
    done = subprocess.run([sys.executable, "-c", _PROBE, module, *argv],
                          capture_output=True, text=True, check=True)
    code, out, imported = json.loads(done.stdout.splitlines()[-1])
    return int(code), str(out), bool(imported)
