"""Transparent huge pages for the processes that open many kernels.

ncu_report allocates ~1 MB for each kernel it opens and frees none of it, so half of opening
a kernel is the kernel faulting in fresh 4 KB pages (~240 of them a default-set kernel, on
the 1,000-launch sample). glibc's tunable ``glibc.malloc.hugetlb=1`` (glibc 2.35 and newer;
older ones ignore it) asks for transparent huge pages on the memory malloc takes from the
kernel, where the system leaves them to ``madvise``: 8× fewer page faults, and up to half
less system time in the forked children that read the kernels.

glibc reads tunables when a program starts, so they cannot be turned on in a running
process: a headless command over a large kernel report starts itself again with the
tunable set, once, before it has imported anything heavy (~40 ms), and the pool process
the TUI starts for its kernel list gets it in its environment. Setting
``GLIBC_TUNABLES`` yourself (with or without ``glibc.malloc.hugetlb``) leaves your choice
as it is when it names ``hugetlb``; ``KERNELSCOPE_HUGE_PAGES=0`` turns this off.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, MutableMapping
from pathlib import Path

TUNABLE = "glibc.malloc.hugetlb=1"
SWITCH_ENV = "KERNELSCOPE_HUGE_PAGES"
"""Set to ``0`` to keep malloc's default pages."""
THP_MODE = Path("/sys/kernel/mm/transparent_hugepage/enabled")
NCU_MAGIC = b"NVR\0"
"""(``detect.NCU_MAGIC``; this module is imported before a command re-executes itself, so
it imports nothing of the package)"""
LARGE_BYTES = 4 << 20
"""A plain kernel report at least this large (compressed: an eighth of it) has more kernels
than one process reads itself (on a default-set report), so its kernels are read in forked
children, the processes this is for."""


def _available() -> bool:
    """Linux with transparent huge pages on ``madvise`` or ``always`` (not ``never``)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mode = THP_MODE.read_text()
    except OSError:
        return False
    return "[never]" not in mode


def with_huge_pages(env: Mapping[str, str]) -> dict[str, str] | None:
    """``env`` with the tunable added, or None where it should not be (turned off, chosen
    already, or no transparent huge pages here)."""
    if env.get(SWITCH_ENV, "1") == "0" or not _available():
        return None
    tunables = env.get("GLIBC_TUNABLES", "")
    if "glibc.malloc.hugetlb" in tunables:
        return None
    out = dict(env)
    out["GLIBC_TUNABLES"] = f"{tunables}:{TUNABLE}" if tunables else TUNABLE
    return out


def add_huge_pages(env: MutableMapping[str, str]) -> None:
    """Add the tunable to ``env`` (a child process's environment) where it belongs."""
    changed = with_huge_pages(env)
    if changed is not None:
        env.update(changed)


def is_large_kernel_report(text: str) -> bool:
    """Whether ``text`` names a kernel report whose kernels are read in forked children."""
    if text.startswith("-"):
        return False
    path = Path(text)
    try:
        if not path.is_file():  # (a FIFO must not be opened here: it would block)
            return False
        with open(path, "rb") as f:
            plain = f.read(4) == NCU_MAGIC
        size = path.stat().st_size
    except (OSError, ValueError):
        return False
    compressed = ".ncu-rep" in path.name and not plain
    return (plain and size >= LARGE_BYTES) or (compressed and size >= LARGE_BYTES // 8)


def reexec_for(args: Iterable[str]) -> None:
    """Start this command again with huge pages when ``args`` (its arguments) name a large
    kernel report and the tunable is not yet set; returns only where it does not."""
    env = with_huge_pages(os.environ)  # (None in the command started again: it has them)
    orig = getattr(sys, "orig_argv", None)
    if env is None or not orig or not sys.executable:
        return
    if not any(is_large_kernel_report(a) for a in args):
        return
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(sys.executable, orig, env)
    except OSError:
        return  # (it stays as it is: slower, no less correct)
