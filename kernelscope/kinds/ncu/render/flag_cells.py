"""A kernel's flags in words, the one home of that text: the kernel list's cells ``Flags`` (how
many critical and warning flags) and ``Top flag`` (the flag the verdict leads with, behind its
severity's icon), and the top flag as the exports, ``summary`` and the MCP answers write it
(``grid-too-small (warning)``). The analysis gives the numbers and the flag
(``analysis/diagnosis/verdict.py``: ``top_flag``, ``top_choice``); the text, and the list's sort
keys by flags, are here."""

from __future__ import annotations

from kernelscope.core.severity import severity_icon, severity_rank
from kernelscope.core.units import EMPTY_CELL
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel
from kernelscope.kinds.ncu.analysis.diagnosis.result import Diagnosis, Flag
from kernelscope.kinds.ncu.analysis.diagnosis.verdict import chain_position, top_choice, top_flag
from kernelscope.kinds.ncu.model.measured import short_reason


def flag_counts(d: Diagnosis) -> tuple[int, int]:
    """(critical, warning) flag counts (in one pass: the kernel list counts every kernel's
    while it loads)."""
    critical = warning = 0
    for flag in d.flags:
        if flag.severity == "critical":
            critical += 1
        elif flag.severity == "warning":
            warning += 1
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
    none. The exports write it as words instead (``top_flag_text``)."""
    flag = top_flag(d)
    return EMPTY_CELL if flag is None else f"{severity_icon(flag.severity)} {flag.id}"


def top_flag_text(diagnosis: Diagnosis) -> str:
    """``grid-too-small (warning)``, or ``EMPTY_CELL`` when no flag was raised: the top flag
    as the exports, ``summary``, the family table and the MCP answers write it."""
    flag = top_flag(diagnosis)
    return EMPTY_CELL if flag is None else f"{flag.id} ({flag.severity})"


def flag_words(flag: Flag) -> str:
    """``low-occupancy (info)``; ``low-occupancy (info, not a problem here)`` where a guard
    rail lowered it: a flag in a list of a kernel's flags (a join's rows)."""
    return f"{flag.id} ({flag.severity}{', not a problem here' if flag.guard else ''})"


def top_choice_text(diagnosis: Diagnosis) -> str | None:
    """``shared-bank-conflicts (warning) — largest NCU estimated speedup (66.9%) among the
    warning flags``: the top flag and the rule that chose it; None when no flag was raised."""
    choice = top_choice(diagnosis)
    if choice is None:
        return None
    return f"{choice.flag.id} ({choice.flag.severity}) — {choice.why}"


def flag_cell(k: AnalyzedKernel, diagnosis: Diagnosis | None = None) -> str:
    """A kernel's top flag (``top_flag_text`` of ``diagnosis``, else of its own), or in short
    why it has no measurement (a table's flag cell)."""
    if not k.summary.measured:
        return short_reason(k.summary.unmeasured)
    return top_flag_text(k.diagnosis if diagnosis is None else diagnosis)
