"""A kernel's flags as the kernel list's cells: ``Flags`` (how many critical and warning
flags) and ``Top flag`` (the flag the verdict leads with, behind its severity's icon). The
analysis gives the numbers and the flag (``analysis/diagnosis/cache.py``); the text is here."""

from __future__ import annotations

from kernelscope.core.severity import severity_icon
from kernelscope.core.units import EMPTY_CELL
from kernelscope.kinds.ncu.analysis.diagnosis.cache import top_flag_of
from kernelscope.kinds.ncu.analysis.diagnosis.result import Diagnosis


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
    flag = top_flag_of(d)
    return EMPTY_CELL if flag is None else f"{severity_icon(flag.severity)} {flag.id}"
