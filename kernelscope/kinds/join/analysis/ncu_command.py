"""The ``ncu`` command that profiles a representative launch of a timeline family.

The launch chosen is the family's median-duration instance in the NVTX range most of its
time ran in (its first instance is left out when there are others: a first launch often
loads the module). The kernel filter is the exact mangled name where the trace has it
(``--kernel-name-base mangled``), else the function name when no other family shares it, else
the demangled name. With the NVTX filter (``--nvtx --nvtx-include 'RANGE/'``), ``--launch-skip``
counts only the launches that pass both filters, as ncu does; the skip is counted over every
timeline kernel those filters select, in time order.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from kernelscope.kinds.join.analysis.names import match_name
from kernelscope.kinds.join.analysis.nvtx_of import PATH_SEPARATOR
from kernelscope.kinds.join.analysis.timeline_families import TimelineFamily

APP_ARGS = "APP_ARGS"
"""Stands for the program's own arguments, which a trace does not record."""


@dataclass(frozen=True)
class NcuCommand:
    text: str
    instance: int
    """Index of the chosen instance in its family."""
    skip: int
    nvtx: str | None


def _in_range(path: str | None, nvtx: str | None) -> bool:
    return nvtx is None or (path is not None and nvtx in path.split(PATH_SEPARATOR))


def representative(family: TimelineFamily, nvtx: str | None) -> int:
    """The instance to profile (see the module docstring)."""
    pool = [i for i, p in enumerate(family.nvtx_paths) if _in_range(p, nvtx)]
    if len(pool) > 1:
        pool = pool[1:]
    ranked = sorted(pool, key=lambda i: (family.durations[i], i))
    return ranked[(len(ranked) - 1) // 2]


def _filter(family: TimelineFamily, families: Sequence[TimelineFamily]
            ) -> tuple[list[str], list[TimelineFamily]]:
    """The kernel-name options and the families they select."""
    if family.mangled:
        same = [f for f in families if f.mangled == family.mangled]
        return ["--kernel-name-base", "mangled",
                "-k", f"regex:^{re.escape(family.mangled)}$"], same
    key = match_name(family.name)
    short = [f for f in families if f.short_name == family.short_name]
    if all(match_name(f.name) == key for f in short):
        return ["-k", f"regex:^{re.escape(family.short_name)}$"], short
    same = [f for f in families if match_name(f.name) == key]
    return ["--kernel-name-base", "demangled", "-k", f"regex:^{re.escape(key)}$"], same


def ncu_command(family: TimelineFamily, families: Sequence[TimelineFamily], program: str,
                output: str) -> NcuCommand:
    """The command for ``family`` (``program``: the traced executable, ``output``: the new
    report's name)."""
    nvtx = family.main_range
    chosen = representative(family, nvtx)
    kernel_opts, selected = _filter(family, families)
    t = family.starts[chosen]
    skip = sum(
        1 for f in selected for s, p in zip(f.starts, f.nvtx_paths, strict=True)
        if s < t and _in_range(p, nvtx)
    )
    parts = ["ncu", "--set", "full", "--import-source", "yes", *kernel_opts]
    if nvtx is not None:
        parts += ["--nvtx", "--nvtx-include", f"{nvtx}/"]
    parts += ["--launch-skip", str(skip), "--launch-count", "1", "-o", output]
    text = " ".join(shlex.quote(p) for p in parts)
    return NcuCommand(f"{text} {shlex.quote(program or 'PROGRAM')} {APP_ARGS}", chosen, skip,
                      nvtx)
