"""SASS text and source lines of a kernel's instructions, which a report does not store as
text: the report holds the module's cubin (SourceData) and per-PC metrics only.

For one kernel, lazily, in a child process that exits (so this process never loads the
binding nor keeps its memory): ncu_report where it is installed (the ``ncu`` extra; wheels
for Linux x86-64, Windows x64 and macOS arm64) disassembles it and maps each PC to its
source line. Where it is missing or cannot disassemble the cubin (it prints ``???``),
``nvdisasm`` on PATH disassembles the embedded cubin with line information (``-g -c``); its
offsets are laid on the kernel's PCs from the first one (a kernel's entry instruction always
runs, so the lowest PC with counters is its start). Without either the Source page still
shows the source files with their metrics and the per-PC metrics, and
:data:`NO_DISASSEMBLER` says how to get SASS.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

NO_DISASSEMBLER = (
    "SASS text needs NVIDIA's ncu-report package (pip install 'kernelscope[ncu]' on Linux "
    "x86-64, Windows x64 or macOS arm64) or an nvdisasm on PATH that supports this GPU "
    "(CUDA 12 for sm_70 and older); the per-instruction metrics are shown by address."
)
UNKNOWN_TEXT = "???"
"""What ncu_report answers for an instruction it cannot disassemble."""
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
    try:
        return importlib.util.find_spec("ncu_report") is not None
    except (ImportError, ValueError):
        return False


def disassemble(
    report_path: str, kernel_index: int, pcs: Sequence[int], cubin: bytes = b"", function: str = ""
) -> dict[int, Instruction]:
    """The text and source line of each PC of kernel ``kernel_index`` (its place in the
    report's file order) of the plain report at ``report_path``: from ncu_report, else from
    nvdisasm on the kernel's ``cubin`` (its mangled name ``function``); empty when neither
    can."""
    found = _with_binding(report_path, kernel_index, pcs)
    if any(i.text and i.text != UNKNOWN_TEXT for i in found.values()):
        return found
    listed = _with_nvdisasm(cubin, function, pcs) if cubin and function else {}
    if listed:
        return listed
    # The binding's source lines without its "???" texts.
    return {pc: Instruction("", i.file, i.line) for pc, i in found.items()}


class Disassembly:
    """:func:`disassemble` for one report, each answer remembered by (module, function,
    PCs): the launches of one kernel ask for the same hot PCs, and each question starts a
    child process that loads the whole report (seconds and a gigabyte for a large one)."""

    def __init__(self, report_path: str) -> None:
        self._path = report_path
        self._known: dict[tuple[object, str, tuple[int, ...]], dict[int, Instruction]] = {}

    def __call__(
        self, kernel_index: int, pcs: Sequence[int], cubin: bytes, function: str, module: object
    ) -> dict[int, Instruction]:
        """The answer for kernel ``kernel_index``, a launch of ``function`` in ``module`` (its
        process and module references: the same code at the same PCs)."""
        key = (module, function, tuple(pcs))
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = disassemble(self._path, kernel_index, pcs, cubin, function)
        return dict(found)


def _with_binding(
    report_path: str, kernel_index: int, pcs: Sequence[int]
) -> dict[int, Instruction]:
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


_LINE_INFO = re.compile(r'//## File "(?P<file>[^"]*)", line (?P<line>\d+)')
_INSTRUCTION = re.compile(r"/\*(?P<offset>[0-9a-f]{4,})\*/\s+(?P<text>[^;]*?)\s*;")


def parse_nvdisasm(text: str, function: str) -> dict[int, Instruction]:
    """The instructions of ``function`` in nvdisasm's ``-g -c`` output, by offset."""
    out: dict[int, Instruction] = {}
    inside, where = False, ("", 0)
    for line in text.splitlines():
        if line.startswith("//----"):
            inside = line.split()[1:2] == [f".text.{function}"]
            where = ("", 0)
            continue
        if not inside:
            continue
        info = _LINE_INFO.search(line)
        if info is not None:
            where = (info["file"], int(info["line"]))
            continue
        ins = _INSTRUCTION.search(line)
        if ins is not None:
            out[int(ins["offset"], 16)] = Instruction(ins["text"].strip(), *where)
    return out


def _with_nvdisasm(cubin: bytes, function: str, pcs: Sequence[int]) -> dict[int, Instruction]:
    tool = shutil.which("nvdisasm")
    if tool is None or not pcs:
        return {}
    with tempfile.TemporaryDirectory(prefix="kernelscope-") as folder:
        path = Path(folder) / "module.cubin"
        path.write_bytes(cubin)
        try:
            done = subprocess.run(
                [tool, "-g", "-c", str(path)], capture_output=True, text=True,
                timeout=TIMEOUT_S, check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return {}
    if done.returncode != 0:
        return {}
    by_offset = parse_nvdisasm(done.stdout, function)
    start = min(pcs)
    return {start + offset: ins for offset, ins in by_offset.items()}
