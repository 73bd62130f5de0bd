"""SASS text and source lines of a kernel's instructions, which a report does not store as
text: the report holds the module's cubin (SourceData) and per-PC metrics only.

For one kernel, lazily, in a child process that exits (so this process never loads the
binding nor keeps its memory): ncu_report where it is installed (the ``ncu`` extra; wheels
for Linux x86-64, Windows x64 and macOS arm64) disassembles it and maps each PC to its
source line. Without it the Source page still shows the source files with their metrics
and the per-PC metrics, and :data:`NO_DISASSEMBLER` says how to get SASS.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass

NO_DISASSEMBLER = (
    "SASS text needs NVIDIA's ncu-report package (pip install 'kernelscope[ncu]' on Linux "
    "x86-64, Windows x64 or macOS arm64); the per-instruction metrics are shown by address."
)
TIMEOUT_S = 300


@dataclass(frozen=True)
class Instruction:
    """One instruction's text and the source line it came from ("" and 0 when unknown)."""

    text: str
    file: str = ""
    line: int = 0


_CHILD = r"""
import json, sys
import ncu_report
path, wanted = sys.argv[1], int(sys.argv[2])
job = json.load(sys.stdin)
ctx = ncu_report.load_report(path)
index, action = 0, None
for r in range(ctx.num_ranges()):
    rng = ctx.range_by_idx(r)
    for a in range(rng.num_actions()):
        if index == wanted:
            action = rng.action_by_idx(a)
        index += 1
out = {}
if action is not None:
    for pc in job["pcs"]:
        text = (action.sass_by_pc(pc) or "").strip()
        info = action.source_info(pc)
        where = ("", 0) if info is None else (info.file_name() or "", int(info.line() or 0))
        out[str(pc)] = [text, where[0], where[1]]
json.dump(out, sys.stdout)
"""


def binding_available() -> bool:
    """Whether the ncu_report binding is installed (looked up, not imported)."""
    return importlib.util.find_spec("ncu_report") is not None


def disassemble(report_path: str, kernel_index: int, pcs: Sequence[int]) -> dict[int, Instruction]:
    """The text and source line of each PC of kernel ``kernel_index`` (its place in the
    report's file order) of the plain report at ``report_path``; empty when no disassembler
    is available or it fails."""
    if not pcs or not binding_available():
        return {}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, report_path, str(kernel_index)],
            input=json.dumps({"pcs": list(pcs)}).encode(),
            capture_output=True, timeout=TIMEOUT_S, check=False,
        )
        found = json.loads(done.stdout or b"{}") if done.returncode == 0 else {}
    except (OSError, subprocess.SubprocessError, ValueError):
        return {}
    return {int(pc): Instruction(str(t), str(f), int(ln)) for pc, (t, f, ln) in found.items()}
