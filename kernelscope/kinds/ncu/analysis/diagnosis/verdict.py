"""Which flag leads: the one with the largest expected gain.

The top flag is taken among the flags at the highest severity raised (the severity already
weighs the kernel's share of the time, ``weigh.py``), those no guard rail called "not a
problem here" first. Among them the flag with the largest NCU estimated speedup leads, where
the report carries estimates; without one (or to break a tie) the flag whose finding decided
the label (``Bottleneck.decided_by``), else the one nearest the start of the method's chain —
time share → launch → Speed Of Light → occupancy → memory → compute → scheduler → source —
then by checklist level. ``top_choice`` says which of these rules decided, for the pane, the
Markdown and the JSON (the ranking lives beside ``Diagnosis`` in ``result.py``, whose
``to_dict`` writes it). The words (``top_flag_text``, ``top_choice_text``) are
``kinds/ncu/render/flag_cells.py``'s.
"""

from __future__ import annotations

from kernelscope.core.severity import severity_rank
from kernelscope.kinds.ncu.analysis.diagnosis.result import (
    METHOD_ORDER,
    NCU_ESTIMATE,
    ONLY_FLAG,
    VERDICT,
    Diagnosis,
    Flag,
    TopChoice,
    chain_position,
    chosen_flag,
    top_choice,
)

__all__ = [
    "METHOD_ORDER",
    "NCU_ESTIMATE",
    "ONLY_FLAG",
    "VERDICT",
    "TopChoice",
    "chain_position",
    "flag_to_act_on",
    "next_step",
    "top_choice",
    "top_flag",
    "verdict_order",
]


def top_flag(diagnosis: Diagnosis) -> Flag | None:
    """The flag the verdict leads with, None when no flag was raised."""
    chosen = chosen_flag(diagnosis)
    return None if chosen is None else chosen[0]


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
        return flag.advice
    guarded = top_flag(diagnosis)
    if guarded is None:
        return None
    return (f"No flag to act on: {guarded.id} is not a problem here. {guarded.guard} "
            f"The kernel is {diagnosis.label}: {diagnosis.bottleneck.summary}")
