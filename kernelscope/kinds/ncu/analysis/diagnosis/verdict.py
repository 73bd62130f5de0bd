"""Which flag leads: the verdict follows the method's chain, not severity alone.

The top flag is taken among the flags at the highest severity raised: the one whose finding
decided the label (``Bottleneck.decided_by``, e.g. ``grid-too-small`` for ``launch-bound``)
if it is among them, else the one nearest the start of the chain — time share → launch →
Speed Of Light → occupancy → memory → compute → scheduler → source — then by checklist level.
So a small grid is reported before the low occupancy it causes, and the flag named first is
the one to fix first.
"""

from __future__ import annotations

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


def top_flag(diagnosis: Diagnosis) -> Flag | None:
    """The flag the verdict leads with, None when no flag was raised."""
    if not diagnosis.flags:
        return None
    worst = max(severity_rank(f.severity) for f in diagnosis.flags)
    candidates = [f for f in diagnosis.flags if severity_rank(f.severity) == worst]
    decided = diagnosis.bottleneck.decided_by
    for f in candidates:
        if f.id == decided:
            return f
    return min(candidates, key=chain_position)


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
