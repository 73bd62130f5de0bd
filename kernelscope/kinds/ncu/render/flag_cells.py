"""A kernel's flags as the kernel list's cells and sort keys: ``Flags`` (how many critical
and warning flags) and ``Top flag`` (the flag the verdict leads with, behind its severity's
icon). The diagnosis gives the flags (``verdict.top_flag``); the cells and their order are
here."""

from __future__ import annotations

from kernelscope.core.severity import severity_icon, severity_rank
from kernelscope.core.units import EMPTY_CELL
from kernelscope.kinds.ncu.analysis.diagnosis.result import Diagnosis
from kernelscope.kinds.ncu.analysis.diagnosis.verdict import chain_position, top_flag


def flag_counts(d: Diagnosis) -> tuple[int, int]:
    """(critical, warning) flag counts."""
    critical = sum(f.severity == "critical" for f in d.flags)
    warning = sum(f.severity == "warning" for f in d.flags)
    return critical, warning


def flag_score(d: Diagnosis) -> int:
    """A sort key that puts kernels with more critical flags first, then more warnings."""
    critical, warning = flag_counts(d)
    return critical * 1000 + warning


def top_flag_rank(d: Diagnosis) -> int:
    """A sort key for the top flag: most severe first, then the earliest step of the chain."""
    flag = top_flag(d)
    if flag is None:
        return -1
    step, level, _ = chain_position(flag)
    return severity_rank(flag.severity) * 100_000 - step * 100 - min(level, 99)


def flag_score_text(score: object) -> str:
    """``2✖ 1⚠`` for a ``flag_score``; ``EMPTY_CELL`` when there is none."""
    if not isinstance(score, (int, float)):
        return ""
    critical, warning = divmod(int(score), 1000)
    parts = [f"{critical}✖" if critical else "", f"{warning}⚠" if warning else ""]
    return " ".join(p for p in parts if p) or EMPTY_CELL


def top_flag_cell(d: Diagnosis) -> str:
    """``✖ low-occupancy`` (the top flag with its severity's icon); ``EMPTY_CELL`` when
    none. The exports write it as words instead (``verdict.top_flag_text``:
    ``low-occupancy (critical)``)."""
    flag = top_flag(d)
    return EMPTY_CELL if flag is None else f"{severity_icon(flag.severity)} {flag.id}"
