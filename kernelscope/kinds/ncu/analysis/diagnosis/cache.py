"""One diagnosis per kernel summary object, shared by every view that needs it, and the sort
keys of its flags (their cells are ``kinds/ncu/render/flag_cells.py``'s)."""

from __future__ import annotations

import weakref

from kernelscope.core.severity import severity_rank
from kernelscope.kinds.ncu.analysis.diagnosis.engine import diagnose
from kernelscope.kinds.ncu.analysis.diagnosis.result import Diagnosis, Flag
from kernelscope.kinds.ncu.analysis.diagnosis.verdict import chain_position, top_flag
from kernelscope.kinds.ncu.model.model import KernelSummary

_CACHE: dict[int, tuple[weakref.ref[KernelSummary], Diagnosis]] = {}
_LIMIT = 50_000


def summary_diagnosis(summary: KernelSummary) -> Diagnosis:
    """The diagnosis of a list summary, computed once per summary object (thread-safe enough:
    a race computes the same pure result twice)."""
    key = id(summary)
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is summary:
        return hit[1]
    return remember_diagnosis(summary, list_diagnosis(summary))


def list_diagnosis(summary: KernelSummary) -> Diagnosis:
    """What :func:`summary_diagnosis` computes for a summary (a pass runs it as it reads
    the summaries: ``iter_summaries(analyse=...)``)."""
    return diagnose(summary.metrics, summary.rules, summary.sections)


def remember_diagnosis(summary: KernelSummary, diagnosis: Diagnosis) -> Diagnosis:
    """Keep ``diagnosis`` (``list_diagnosis`` of ``summary``, computed elsewhere) as the
    summary's."""
    if len(_CACHE) >= _LIMIT:
        _CACHE.clear()
    _CACHE[id(summary)] = (weakref.ref(summary), diagnosis)
    return diagnosis


def flag_counts(d: Diagnosis) -> tuple[int, int]:
    """(critical, warning) flag counts."""
    critical = sum(f.severity == "critical" for f in d.flags)
    warning = sum(f.severity == "warning" for f in d.flags)
    return critical, warning


def flag_score(d: Diagnosis) -> int:
    """A sort key that puts kernels with more critical flags first, then more warnings."""
    critical, warning = flag_counts(d)
    return critical * 1000 + warning


def top_flag_of(d: Diagnosis) -> Flag | None:
    """The flag the verdict leads with (``verdict.top_flag``: the most severe, then the one
    that decided the label or is nearest the start of the method's chain), if any."""
    return top_flag(d)


def top_flag_rank(d: Diagnosis) -> int:
    """A sort key for the top flag: most severe first, then the earliest step of the chain."""
    flag = top_flag_of(d)
    if flag is None:
        return -1
    step, level, _ = chain_position(flag)
    return severity_rank(flag.severity) * 100_000 - step * 100 - min(level, 99)
