"""SASS text of a kernel's instructions, which a report does not store as text: the report
holds the module's cubin (SourceData) and per-PC metrics only. Each instruction's source line
comes from the cubin's line table (``line_table.py``), whichever gives the text.

Lazily, in a child process (so this process never loads the binding nor keeps its memory):
ncu_report where it is installed (the ``ncu`` extra; wheels for Linux x86-64, Windows x64 and
macOS arm64) disassembles it. ncu_report loads a whole report to answer for one kernel, so
each question gives it a temporary report holding only that kernel and its modules
(``one_kernel.py``: megabytes, whatever the report's size). One child per process starts at
the first question (starting the binding is most of a question's cost: ~0.5 s of CPU, against
~0.02 s for a later question), answers the later ones, also from the next reports this process
opens, and is ended when a report is closed while it holds more than ``KEEP_CHILD_MB`` (the
binding's memory grows with the reports it has read), or where its memory cannot be read, or
when this process ends. Where the binding is missing
or cannot disassemble the cubin (it prints ``???``), ``nvdisasm`` on PATH disassembles the
embedded cubin (``-g -c``); its offsets are laid on the kernel's PCs from the first one (a
kernel's entry instruction always runs, so the lowest PC with counters is its start). Without
either the Source page still shows the source files with their metrics and the per-PC metrics
with their source lines, and :data:`NO_DISASSEMBLER` says how to get SASS text."""

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

from kernelscope.kinds.ncu.model.line_table import Entries, LineTables, read_line_tables

NO_DISASSEMBLER = (
    "SASS text needs NVIDIA's ncu-report package (pip install '.[ncu]' in the clone, on Linux "
    "x86-64, Windows x64 or macOS arm64) or an nvdisasm on PATH that supports this GPU "
    "(CUDA 12 for sm_70 and older); the per-instruction metrics are shown by address."
)
UNKNOWN_TEXT = "???"
"""What ncu_report answers for an instruction it cannot disassemble."""
TIMEOUT_S = 300
KEEP_CHILD_MB = 300
"""A closed report leaves the binding's child for the next report while it holds less."""


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
            out[str(pc)] = (action.sass_by_pc(pc) or "").strip()
    del ctx
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""
"""The binding's child: answers one JSON line ``{"path": a one-result report, "pcs": [...]}``
per question with one JSON line, PC -> SASS text, until its input ends."""
WriteCopy = Callable[[int, IO[bytes]], None]
"""Writes a report holding only the given result of the report (``one_kernel.py``)."""


def binding_available() -> bool:
    """Whether the ncu_report binding is installed (looked up, not imported)."""
    try:
        return importlib.util.find_spec("ncu_report") is not None
    except (ImportError, ValueError):
        return False


class _BindingChild:
    """The process's one ncu_report child (:data:`_CHILD`): started at the first question,
    whichever report asks (each question names its own one-kernel copy), and kept for the
    next ones, also other reports', until :meth:`release` finds it large. Questions go one at
    a time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.child: subprocess.Popen[bytes] | None = None

    def exchange(self, question: str) -> bytes:
        """The child's answer line to ``question`` (b"" when it failed; the next question
        starts another)."""
        with self.lock:
            try:
                if self.child is None:
                    self.child = subprocess.Popen(
                        [sys.executable, "-c", _CHILD],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                    )
                child = self.child
                assert child.stdin is not None and child.stdout is not None
                child.stdin.write(question.encode() + b"\n")
                child.stdin.flush()
                watchdog = threading.Timer(TIMEOUT_S, child.kill)
                watchdog.start()
                try:
                    answer = child.stdout.readline()
                finally:
                    watchdog.cancel()
            except (OSError, ValueError):  # a broken pipe; a pipe closed by stop() meanwhile
                answer = b""
            if not answer:
                self.stop()
            return answer

    def release(self) -> None:
        """A report is done with the child: keep it for the next report while it holds under
        :data:`KEEP_CHILD_MB`, else end it."""
        child = self.child
        if child is not None and not _resident_mb(child.pid) < KEEP_CHILD_MB:
            self.stop()

    def stop(self) -> None:
        """Kill the child (it holds nothing to save), without waiting for a question in
        flight: its reader gets no answer."""
        child, self.child = self.child, None
        if child is None:
            return
        if child.poll() is None:
            child.kill()
        child.wait()
        for stream in (child.stdin, child.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()


_BINDING = _BindingChild()


def _resident_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB, from Linux's /proc (inf elsewhere, or
    when the process is gone)."""
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return float("inf")


def with_binding(
    write_copy: WriteCopy, kernel_index: int, pcs: Sequence[int]
) -> dict[int, str] | None:
    """ncu_report's SASS text of each of ``pcs`` of kernel ``kernel_index``, asked of the child
    with a temporary copy of the report holding only that kernel (written by ``write_copy``);
    empty when the binding is missing, None when the child failed."""
    if not pcs or not binding_available():
        return {}
    fd, path = tempfile.mkstemp(prefix="kernelscope-", suffix=".ncu-rep")
    try:
        with os.fdopen(fd, "wb") as copy:
            write_copy(kernel_index, copy)
        answer = _BINDING.exchange(json.dumps({"path": path, "pcs": list(pcs)}))
    except OSError:  # no room for the copy
        return {}
    finally:
        os.unlink(path)
    try:
        found = json.loads(answer)
        return {int(pc): str(text) for pc, text in found.items()}
    except (ValueError, TypeError, AttributeError):
        return None


def disassemble(
    texts: dict[int, str], pcs: Sequence[int], cubin: bytes = b"", function: str = "",
    entries: Entries | None = None, tables: LineTables | None = None,
) -> dict[int, Instruction]:
    """Each of ``pcs`` with its SASS text (the binding's ``texts`` when it has any, else
    nvdisasm's on the kernel's ``cubin``, its mangled name ``function``, laid from where the
    launch begins: ``entries``) and its source line (the cubin's line ``tables``; nvdisasm's
    where they have none); without an entry when neither text nor line is known."""
    tables = read_line_tables(cubin) if tables is None else tables
    start = tables.start(function, pcs, entries or Entries())
    listed: dict[int, Instruction] = {}
    if not any(t and t != UNKNOWN_TEXT for t in texts.values()) and cubin and function:
        listed = _with_nvdisasm(cubin, function, pcs, start)
    text_of = {pc: i.text for pc, i in listed.items()} if listed else {
        pc: t for pc, t in texts.items() if t != UNKNOWN_TEXT}
    places = tables.places(function, pcs, start)
    mapped = function in tables.functions
    out = {}
    for pc in pcs:
        text = text_of.get(pc, "")
        where = places.get(pc) or (
            (listed[pc].file, listed[pc].line) if pc in listed and not mapped else ("", 0))
        if text or where[0]:
            out[pc] = Instruction(text, *where)
    return out


class Disassembly:
    """:func:`disassemble` for one report, each answer remembered by (module, function,
    PCs): the launches of one kernel ask for the same hot PCs. Once the binding's child
    fails on the report (a damaged one), its later kernels are not asked of it again."""

    def __init__(self, write_copy: WriteCopy) -> None:
        self._write_copy = write_copy
        self._binding_failed = False
        self._known: dict[tuple[object, ...], dict[int, Instruction]] = {}
        self._line_tables: dict[object, LineTables] = {}

    def __call__(
        self, kernel_index: int, pcs: Sequence[int], cubin: bytes, function: str,
        module: object, starts: tuple[int, ...], entries: Callable[[], Entries],
    ) -> dict[int, Instruction]:
        """The answer for kernel ``kernel_index``, a launch of ``function`` in ``module`` (its
        process and module references: the same code at the same PCs) whose function PCs are
        ``starts``; ``entries`` tell where it begins, asked for only when the answer is not
        known yet (they read the launch's executed instructions by PC)."""
        key = (module, function, tuple(pcs), starts)
        found = self._known.get(key)
        if found is None:
            answer = None if self._binding_failed else with_binding(
                self._write_copy, kernel_index, pcs)
            self._binding_failed = answer is None
            if module not in self._line_tables:
                self._line_tables[module] = read_line_tables(cubin)
            found = self._known[key] = disassemble(
                answer or {}, pcs, cubin, function, entries(), self._line_tables[module])
        return dict(found)

    def close(self) -> None:
        """No more questions from this report: the binding's child is kept for the next
        report while it is small (:meth:`_BindingChild.release`)."""
        self._binding_failed = True
        _BINDING.release()


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


def _with_nvdisasm(
    cubin: bytes, function: str, pcs: Sequence[int], start: int | None
) -> dict[int, Instruction]:
    tool = shutil.which("nvdisasm")
    if tool is None or not pcs or start is None:
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
    return {start + offset: ins for offset, ins in by_offset.items()}
