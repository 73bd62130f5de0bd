"""SASS text and source lines of a kernel's instructions, which a report does not store as
text: the report holds the module's cubin (SourceData) and per-PC metrics only.

Lazily, in a child process (so this process never loads the binding nor keeps its memory):
ncu_report where it is installed (the ``ncu`` extra; wheels for Linux x86-64, Windows x64 and
macOS arm64) disassembles it and maps each PC to its source line. ncu_report loads a whole
report to answer for one kernel, so each question gives it a temporary report holding only
that kernel and its modules (``one_kernel.py``: megabytes, whatever the report's size). The
child starts at a report's first question (starting the binding is most of a question's
cost), answers its later ones, and is ended when the report is closed, when another report
of the process asks (one child per process), or when this process ends. Where the binding
is missing
or cannot disassemble the cubin (it prints ``???``), ``nvdisasm`` on PATH disassembles the
embedded cubin with line information (``-g -c``); its offsets are laid on the kernel's PCs from
the first one (a kernel's entry instruction always runs, so the lowest PC with counters is its
start). Without either the Source page still shows the source files with their metrics and the
per-PC metrics, and :data:`NO_DISASSEMBLER` says how to get SASS.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

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
for line in sys.stdin:
    job = json.loads(line)
    out = {}
    ctx = ncu_report.load_report(job["path"])
    if ctx.num_ranges() and ctx.range_by_idx(0).num_actions():
        action = ctx.range_by_idx(0).action_by_idx(0)
        for pc in job["pcs"]:
            text = (action.sass_by_pc(pc) or "").strip()
            info = action.source_info(pc)
            where = ("", 0) if info is None else (info.file_name() or "", int(info.line() or 0))
            out[str(pc)] = [text, where[0], where[1]]
    del ctx
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""
"""The binding's child: answers one JSON line ``{"path": a one-result report, "pcs": [...]}``
per question with one JSON line, PC -> [text, file, line], until its input ends."""
WriteCopy = Callable[[int, IO[bytes]], None]
"""Writes a report holding only the given result of the report (``one_kernel.py``)."""


def binding_available() -> bool:
    """Whether the ncu_report binding is installed (looked up, not imported)."""
    try:
        return importlib.util.find_spec("ncu_report") is not None
    except (ImportError, ValueError):
        return False


_ONE_AT_A_TIME = threading.Lock()
"""Questions to the binding, whichever report asks, go one at a time."""
_LIVE: list[BindingChild] = []
"""The one BindingChild whose child runs (a child holds ~150-400 MB: one per process)."""


class BindingChild:
    """ncu_report's answers for one report, from a child process (:data:`_CHILD`) started
    at the first question and kept for the next ones until :meth:`close`, or until another
    report's questions need the process's one child (it starts again when asked again).
    A child that fails (crashing on a damaged report, no answer within TIMEOUT_S) answers
    nothing from then on, and is not started again."""

    def __init__(self, write_copy: WriteCopy) -> None:
        self._write_copy = write_copy
        self._child: subprocess.Popen[bytes] | None = None
        self._failed = False

    def ask(self, kernel_index: int, pcs: Sequence[int]) -> dict[int, Instruction]:
        """The text and source line of each of ``pcs`` of kernel ``kernel_index`` (its place
        in the report's file order); empty when the binding cannot answer."""
        if not pcs:
            return {}
        with _ONE_AT_A_TIME:
            if self._failed or (self._child is None and not binding_available()):
                return {}
            if _LIVE and _LIVE[0] is not self:
                _LIVE[0]._stop()
            _LIVE[:] = [self]
            fd, path = tempfile.mkstemp(prefix="kernelscope-", suffix=".ncu-rep")
            try:
                with os.fdopen(fd, "wb") as copy:
                    self._write_copy(kernel_index, copy)
                answer = self._exchange(json.dumps({"path": path, "pcs": list(pcs)}))
            except OSError:  # no room for the copy
                answer = b""
            finally:
                os.unlink(path)
        try:
            found = json.loads(answer)
            return {int(pc): Instruction(str(t), str(f), int(n)) for pc, (t, f, n) in
                    found.items()}
        except (ValueError, TypeError, AttributeError):
            return {}

    def _spawn(self) -> subprocess.Popen[bytes]:
        if self._child is None:
            self._child = subprocess.Popen(
                [sys.executable, "-c", _CHILD],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )
        return self._child

    def _exchange(self, question: str) -> bytes:
        """One answer line of the child (started when needed); b"" once it has failed."""
        if self._failed:  # closed meanwhile
            return b""
        try:
            child = self._spawn()
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write(question.encode() + b"\n")
            child.stdin.flush()
            watchdog = threading.Timer(TIMEOUT_S, child.kill)
            watchdog.start()
            try:
                answer = child.stdout.readline()
            finally:
                watchdog.cancel()
        except (OSError, ValueError):  # a broken pipe; a pipe closed by close() meanwhile
            answer = b""
        if not answer:
            self._failed = True
            self._stop()
        return answer

    def close(self) -> None:
        """End the child and start no other (without waiting for a question in flight:
        its reader gets no answer)."""
        self._failed = True
        self._stop()
        if _LIVE and _LIVE[0] is self:
            _LIVE.clear()

    def _stop(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        if child.poll() is None:
            child.kill()  # it holds nothing to save
        child.wait()
        for stream in (child.stdin, child.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()

    def __del__(self) -> None:
        # A report dropped without close(): end the child's input, so it exits.
        child = getattr(self, "_child", None)
        if child is not None and child.stdin is not None:
            with contextlib.suppress(OSError):
                child.stdin.close()


def disassemble(
    binding: BindingChild, kernel_index: int, pcs: Sequence[int], cubin: bytes = b"",
    function: str = "",
) -> dict[int, Instruction]:
    """The text and source line of each PC of kernel ``kernel_index`` (its place in the
    report's file order): from ncu_report (``binding``), else from nvdisasm on the kernel's
    ``cubin`` (its mangled name ``function``); empty when neither can."""
    found = binding.ask(kernel_index, pcs)
    if any(i.text and i.text != UNKNOWN_TEXT for i in found.values()):
        return found
    listed = _with_nvdisasm(cubin, function, pcs) if cubin and function else {}
    if listed:
        return listed
    # The binding's source lines without its "???" texts.
    return {pc: Instruction("", i.file, i.line) for pc, i in found.items()}


class Disassembly:
    """:func:`disassemble` for one report, each answer remembered by (module, function,
    PCs): the launches of one kernel ask for the same hot PCs."""

    def __init__(self, write_copy: WriteCopy) -> None:
        self._binding = BindingChild(write_copy)
        self._known: dict[tuple[object, str, tuple[int, ...]], dict[int, Instruction]] = {}

    def __call__(
        self, kernel_index: int, pcs: Sequence[int], cubin: bytes, function: str, module: object
    ) -> dict[int, Instruction]:
        """The answer for kernel ``kernel_index``, a launch of ``function`` in ``module`` (its
        process and module references: the same code at the same PCs)."""
        key = (module, function, tuple(pcs))
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = disassemble(
                self._binding, kernel_index, pcs, cubin, function
            )
        return dict(found)

    def close(self) -> None:
        """End the binding's child, if one was started."""
        self._binding.close()


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
