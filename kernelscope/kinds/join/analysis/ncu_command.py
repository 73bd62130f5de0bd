"""The ``ncu`` command that profiles a representative launch of a timeline family.

The launch chosen is the family's median-duration instance in the NVTX range most of its
time ran in (its first instance is left out when there are others: a first launch often
loads the module). The kernel filter is the exact mangled name where the trace has it
(``--kernel-name-base mangled``), else the function name when no other family shares it, else
the demangled name; a PyTorch profiler trace, whose demangled names are spelled as GNU's
demangler spells them and not as Nsight Compute does, always filters by the function's own
name (and counts the skip over every family of that name). A PyTorch profiler trace's ranges
are no NVTX ranges under ncu, so its command filters by kernel name only. With the NVTX filter
(``--nvtx --nvtx-include 'RANGE/'``), ``--launch-skip`` counts only the launches that pass
both filters, as ncu does; the skip is counted over every timeline kernel those filters
select, in time order.

A range name must match the next run too: the ids a run gives each call (PyTorch's
``op_id = 998583``, ``seq = 12``, hex addresses ``0x7f3a…``) never recur, so where a name holds
one the filter is a regular expression (ncu's ``regex:`` prefix) in which each id matches any
id of its kind and every other character stands for itself; ranges that differ only in those
ids count as one range (the one with the most of the family's time is chosen), and the
representative and the skip are counted over all of them. A name without ids stays literal,
its NVTX quantifiers (``@ , [ ] / * +``) escaped with a backslash as ncu asks.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from kernelscope.kinds.join.analysis.names import function_name, match_name
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


PER_RUN_IDS = re.compile(r"(?<=\bop_id = )\d+|(?<=\bseq = )\d+|\b0x[0-9A-Fa-f]+\b")
"""The parts of a range name that a run numbers afresh (a call's id, an address)."""
_ID_PATTERNS = {True: "0x[0-9A-Fa-f]+", False: "[0-9]+"}
_LITERAL = re.compile(r"[A-Za-z0-9_:= -]")
"""Characters that mean themselves both in a regular expression and in an ncu NVTX filter;
any other character of a name is matched by ``.`` in a regex filter."""
_QUANTIFIERS = re.compile(r"([@,\[\]/*+])")


@dataclass(frozen=True)
class RangeFilter:
    """What ``--nvtx-include`` is given for one push/pop range (``RANGE/``), and which range
    names it selects."""

    name: str
    """The range name as the trace has it (one of those the filter selects)."""
    pattern: str | None
    """The regular expression, where the name holds per-run ids; None: the name itself."""

    @property
    def config(self) -> str:
        if self.pattern is not None:
            return f"regex:{self.pattern}/"
        return _QUANTIFIERS.sub(r"\\\1", self.name) + "/"

    def selects(self, name: str) -> bool:
        if self.pattern is None:
            return name == self.name
        return re.search(self.pattern, name) is not None


def range_filter(name: str) -> RangeFilter:
    """The filter for the range ``name``: a regex where it holds per-run ids, else literal."""
    if not PER_RUN_IDS.search(name):
        return RangeFilter(name, None)
    parts, at = [], 0
    for found in PER_RUN_IDS.finditer(name):
        parts.append(_literal_pattern(name[at:found.start()]))
        parts.append(_ID_PATTERNS[found.group().startswith("0x")])
        at = found.end()
    parts.append(_literal_pattern(name[at:]))
    return RangeFilter(name, "".join(parts))


def _literal_pattern(text: str) -> str:
    return "".join(c if _LITERAL.fullmatch(c) else "." for c in text)


def _in_range(path: str | None, nvtx: RangeFilter | None) -> bool:
    return nvtx is None or (path is not None and any(
        nvtx.selects(part) for part in path.split(PATH_SEPARATOR)))


def _matched(path: str | None, nvtx: RangeFilter | None) -> str | None:
    """The range of ``path`` that ``nvtx`` selects (the innermost such), if any."""
    if nvtx is None or path is None:
        return None
    return next((p for p in reversed(path.split(PATH_SEPARATOR)) if nvtx.selects(p)), None)


def main_filter(family: TimelineFamily) -> RangeFilter | None:
    """The filter of the range (ranges differing only in per-run ids count as one) that most
    of the family's time ran in; None when most of it ran in none."""
    totals: dict[str | None, int] = {}
    filters: dict[str, RangeFilter] = {}
    for name, duration in zip(family.nvtx, family.durations, strict=True):
        key = None
        if name is not None:
            chosen = range_filter(name)
            key = chosen.config
            filters.setdefault(key, chosen)
        totals[key] = totals.get(key, 0) + duration
    best = max(totals, key=lambda k: totals[k], default=None)
    return filters[best] if best is not None else None


def representative(family: TimelineFamily, nvtx: RangeFilter | None) -> int:
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
    base = _function(family)
    short = [f for f in families if _function(f) == base]
    if not _names_function(family) or all(match_name(f.name) == key for f in short):
        return ["-k", f"regex:^{re.escape(base)}$"], short
    same = [f for f in families if match_name(f.name) == key]
    return ["--kernel-name-base", "demangled", "-k", f"regex:^{re.escape(key)}$"], same


def _names_function(family: TimelineFamily) -> bool:
    """Whether the trace names the kernel's function apart from its demangled name (nsys's
    short name); a PyTorch profiler trace records only the demangled name, in GNU's
    spelling, which Nsight Compute's ``--kernel-name-base demangled`` does not share."""
    return family.short_name != family.name


def _function(family: TimelineFamily) -> str:
    """The name ``-k`` matches by default: the trace's short name, or the function's own
    name read from the demangled one."""
    return family.short_name if _names_function(family) else function_name(family.name)


def ncu_command(family: TimelineFamily, families: Sequence[TimelineFamily], program: str,
                output: str, *, nvtx_ranges: bool = True) -> NcuCommand:
    """The command for ``family`` (``program``: the traced executable, ``output``: the new
    report's name). ``nvtx_ranges``: whether the trace's ranges are NVTX ranges that ncu
    sees; a PyTorch profiler trace's (``record_function``, ``ProfilerStep#N``) are not, so its
    command has no NVTX filter (ncu would profile nothing)."""
    nvtx = main_filter(family) if nvtx_ranges else None
    chosen = representative(family, nvtx)
    kernel_opts, selected = _filter(family, families)
    t = family.starts[chosen]
    skip = sum(
        1 for f in selected for s, p in zip(f.starts, f.nvtx_paths, strict=True)
        if s < t and _in_range(p, nvtx)
    )
    parts = ["ncu", "--set", "full", "--import-source", "yes", *kernel_opts]
    if nvtx is not None:
        parts += ["--nvtx", "--nvtx-include", nvtx.config]
    parts += ["--launch-skip", str(skip), "--launch-count", "1", "-o", output]
    text = " ".join(shlex.quote(p) for p in parts)
    return NcuCommand(f"{text} {shlex.quote(program or 'PROGRAM')} {APP_ARGS}", chosen, skip,
                      _matched(family.nvtx_paths[chosen], nvtx))
