"""Which flag leads: the one with the largest expected gain.

The top flag is taken among the flags at the highest severity raised (the severity already
weighs the kernel's share of the time, ``weigh.py``), those no guard rail called "not a
problem here" first. Among them the flag with the largest NCU estimated speedup leads, where
the report carries estimates; without one (or to break a tie) the flag whose finding decided
the label (``Bottleneck.decided_by``), else the one nearest the start of the method's chain —
time share → launch → Speed Of Light → occupancy → memory → compute → scheduler → source —
then by checklist level. ``top_choice`` says which of these rules decided, for the pane, the
Markdown and the JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kernelscope.core.severity import severity_rank
from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG, FLAG_IDS
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import STEPS
from kernelscope.kinds.ncu.analysis.diagnosis.result import Diagnosis, Flag


def chain_position(flag: Flag) -> tuple[int, int, int]:
    """Where the flag's step sits in the method's chain (then its level, then catalog order)."""
    spec = CATALOG.get(flag.id)
    step = STEPS.index(spec.step) if spec is not None and spec.step in STEPS else len(STEPS)
    order = FLAG_IDS.index(flag.id) if flag.id in FLAG_IDS else len(FLAG_IDS)
    return step, flag.level, order


NCU_ESTIMATE = "ncu-estimate"
VERDICT = "verdict"
METHOD_ORDER = "method-order"
ONLY_FLAG = "only-flag"


@dataclass(frozen=True)
class TopChoice:
    """The top flag and the rule that chose it (``ncu-estimate``, ``verdict``,
    ``method-order`` or ``only-flag``), with that rule in one sentence."""

    flag: Flag
    chosen_by: str
    why: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.flag.id, "severity": self.flag.severity,
                "chosen_by": self.chosen_by, "why": self.why}


def _candidates(diagnosis: Diagnosis) -> list[Flag]:
    worst = max(severity_rank(f.severity) for f in diagnosis.flags)
    found = [f for f in diagnosis.flags if severity_rank(f.severity) == worst]
    unguarded = [f for f in found if not f.guard]
    return unguarded or found


def _method_rank(flag: Flag, decided: str) -> tuple[int, tuple[int, int, int]]:
    return (0 if flag.id == decided else 1), chain_position(flag)


def top_choice(diagnosis: Diagnosis) -> TopChoice | None:
    """The flag the verdict leads with and why it was chosen; None when no flag was raised."""
    if not diagnosis.flags:
        return None
    candidates = _candidates(diagnosis)
    decided = diagnosis.bottleneck.decided_by
    severity = candidates[0].severity
    estimated = [f for f in candidates if f.ncu_speedup is not None]
    if estimated:
        best = max(f.ncu_speedup or 0.0 for f in estimated)
        tied = [f for f in estimated if f.ncu_speedup == best]
        flag = min(tied, key=lambda f: _method_rank(f, decided))
        return TopChoice(flag, NCU_ESTIMATE, f"largest NCU estimated speedup ({best:,.1f}%) "
                         f"among the {severity} flags")
    flag = min(candidates, key=lambda f: _method_rank(f, decided))
    if len(diagnosis.flags) == 1:
        return TopChoice(flag, ONLY_FLAG, "the only flag raised")
    if flag.id == decided:
        return TopChoice(flag, VERDICT, f"its finding decided the label; no NCU estimate "
                         f"among the {severity} flags")
    return TopChoice(flag, METHOD_ORDER, f"first in the method's order; no NCU estimate "
                     f"among the {severity} flags")


def top_flag(diagnosis: Diagnosis) -> Flag | None:
    """The flag the verdict leads with, None when no flag was raised."""
    choice = top_choice(diagnosis)
    return None if choice is None else choice.flag


def top_choice_text(diagnosis: Diagnosis) -> str | None:
    """``shared-bank-conflicts (warning) — largest NCU estimated speedup (66.9%) among the
    warning flags``: the top flag and the rule that chose it; None when no flag was raised."""
    choice = top_choice(diagnosis)
    if choice is None:
        return None
    return f"{choice.flag.id} ({choice.flag.severity}) — {choice.why}"


def top_flag_text(diagnosis: Diagnosis) -> str:
    """``grid-too-small (warning)``, or an em dash when no flag was raised."""
    flag = top_flag(diagnosis)
    return "—" if flag is None else f"{flag.id} ({flag.severity})"


def verdict_order(diagnosis: Diagnosis) -> list[Flag]:
    """The raised flags as the verdict names them: the top flag, then the rest by severity
    (most severe first) and checklist level."""
    first = top_flag(diagnosis)
    rest = sorted((f for f in diagnosis.flags if f is not first),
                  key=lambda f: (-severity_rank(f.severity), f.level))
    return ([first] if first else []) + rest


def flag_to_act_on(diagnosis: Diagnosis) -> Flag | None:
    """The first flag in :func:`verdict_order` that no guard rail called "not a problem
    here"; None when every raised flag was (or none was raised)."""
    return next((f for f in verdict_order(diagnosis) if not f.guard), None)


def next_step(diagnosis: Diagnosis) -> str | None:
    """What to do first, as the diagnosis shows it (so a "next" line cannot contradict the
    Diagnosis pane): the remedy of :func:`flag_to_act_on`; when every raised flag is not a
    problem here, the top one's guard and the label instead; None when no flag was raised."""
    flag = flag_to_act_on(diagnosis)
    if flag is not None:
        return flag.remedy
    guarded = top_flag(diagnosis)
    if guarded is None:
        return None
    return (f"No flag to act on: {guarded.id} is not a problem here. {guarded.guard} "
            f"The kernel is {diagnosis.label}: {diagnosis.bottleneck.summary}")
