"""The diagnosis result: one bottleneck label, flags, the guard rails applied, and notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kernelscope.core.findings import Evidenced, Finding, written_evidence
from kernelscope.core.kept import fields_at_once
from kernelscope.core.severity import RANK_OF, Severity, severity_rank
from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG, FLAG_IDS
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import STEPS, Evidence
from kernelscope.kinds.ncu.analysis.roofline.model import Roofline

LABELS: tuple[str, ...] = (
    "launch-bound",
    "dram-bound",
    "l2-bound",
    "l1-bound",
    "shared-bank-conflict",
    "atomic-bound",
    "occupancy-bound",
    "latency-bound",
    "compute-bound",
    "instruction-bound",
    "divergence-bound",
    "balanced",
    "undetermined",
)
UNDETERMINED = "undetermined"
"""The label of a kernel the report cannot decide (no measurement at all): the bottleneck's
summary says why."""


@fields_at_once  # every diagnosed launch makes one
@dataclass(frozen=True)
class Bottleneck(Evidenced):
    """The one label that explains where the kernel's time goes, and what decided it."""

    label: str
    summary: str
    evidence: tuple[Evidence, ...] = ()
    decided_by: str = ""
    """The id of the flag whose finding is this label's reason (e.g. ``grid-too-small`` for
    ``launch-bound``), when there is one."""
    collect: tuple[str, ...] = ()
    """For ``undetermined``: the ncu sections that would let the report decide."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "summary": self.summary,
            "evidence": list(map(written_evidence, self.evidence)),
            "decided_by": self.decided_by or None,
            "collect": list(self.collect),
        }


Flag = Finding
"""A specific problem found in the kernel: the diagnosis calls its findings flags. The one
findings model (``kernelscope.core.findings.Finding``): ``advice`` is the remedy, ``rule`` and
``speedup`` the matching NCU rule and its estimated speedup (%), ``found_severity`` the
severity the check found before the kernel's share of the time weighed it."""


_SEVERITY_TEXT = {str(s): str(s) for s in Severity}
"""``str(severity)`` of each severity, by its name: a member (a ``str``) finds its name here
by the name's hash and equality, both ``str``'s, in C, where ``Severity.__str__`` and the
enum's ``value`` are a Python call each (the JSON export writes three a flag)."""


def severity_text(severity: str) -> str:
    """``str(severity)``: the severity's name, as the JSON exports write it."""
    return _SEVERITY_TEXT.get(severity) or str(severity)


def flag_dict(flag: Finding) -> dict[str, Any]:
    """A flag as the JSON exports write it (``remedy``, ``ncu_speedup``, ``ncu_rule``: the
    export's names for ``advice``, ``speedup`` and ``rule``)."""
    return {
        "id": flag.id,
        "severity": severity_text(flag.severity),
        "level": flag.level,
        "title": flag.title,
        "detail": flag.detail,
        "found_severity": severity_text(flag.found_severity or flag.severity),
        "evidence": list(map(written_evidence, flag.evidence)),
        "remedy": flag.advice,
        "ncu_speedup": flag.speedup,
        "ncu_rule": flag.rule,
        "guard": flag.guard or None,
    }


@fields_at_once  # a report's launches raise one or two each
@dataclass(frozen=True)
class GuardRail:
    """A common misjudgment the diagnosis avoided, with the numbers that show why."""

    id: str
    text: str
    evidence: tuple[Evidence, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text,
                "evidence": list(map(written_evidence, self.evidence))}


@dataclass(frozen=True)
class Diagnosis:
    """Everything the diagnosis says about one kernel."""

    bottleneck: Bottleneck
    flags: tuple[Flag, ...] = ()
    guard_rails: tuple[GuardRail, ...] = ()
    notes: tuple[str, ...] = ()
    """What could not be checked and why (sections not collected, zero duration, ...)."""
    roofline: Roofline | None = None
    skipped: tuple[str, ...] = field(default=())
    """Flag ids that could not be evaluated for lack of metrics."""

    @property
    def label(self) -> str:
        return self.bottleneck.label

    def flag(self, flag_id: str) -> Flag | None:
        return next((f for f in self.flags if f.id == flag_id), None)

    def has_flag(self, flag_id: str, *, min_severity: str = "info") -> bool:
        f = self.flag(flag_id)
        return f is not None and severity_rank(f.severity) >= severity_rank(min_severity)

    @property
    def worst_severity(self) -> Severity | None:
        if not self.flags:
            return None
        return max((f.severity for f in self.flags), key=severity_rank)

    def to_dict(self) -> dict[str, Any]:
        """The export contract: ``bottleneck``, ``flags``, the top flag and the rule that chose
        it (``top_choice``), plus guard rails, notes, roofline. Each evidence item's dict is
        the one kept for the item (``written_evidence``): to be written, not changed."""
        return {
            "bottleneck": self.bottleneck.to_dict(),
            "flags": [flag_dict(f) for f in self.flags],
            "top_flag": top_flag_dict(self),
            "guard_rails": [g.to_dict() for g in self.guard_rails],
            "notes": list(self.notes),
            "skipped_flags": list(self.skipped),
            "roofline": self.roofline.to_dict() if self.roofline is not None else {},
        }


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
        return {"id": self.flag.id, "severity": severity_text(self.flag.severity),
                "chosen_by": self.chosen_by, "why": self.why}


def _candidates(diagnosis: Diagnosis) -> list[Flag]:
    """The flags of the worst severity raised, those no guard rail lowered when there are
    any (a lone flag is its own candidate)."""
    flags = diagnosis.flags
    if len(flags) == 1:
        return list(flags)
    ranks = [RANK_OF.get(f.severity, -1) for f in flags]
    worst = max(ranks)
    found = [f for f, rank in zip(flags, ranks, strict=True) if rank == worst]
    unguarded = [f for f in found if not f.guard]
    return unguarded or found


def _method_rank(flag: Flag, decided: str) -> tuple[int, tuple[int, int, int]]:
    return (0 if flag.id == decided else 1), chain_position(flag)


def _first_in_method(flags: list[Flag], decided: str) -> Flag:
    """The flag the label's decider or, else, the method's order puts first."""
    if len(flags) == 1:
        return flags[0]
    return min(flags, key=lambda f: _method_rank(f, decided))


def chosen_flag(diagnosis: Diagnosis) -> tuple[Flag, str, float] | None:
    """The flag the verdict leads with, the rule that chose it and the largest NCU
    estimated speedup among the candidates (0 when none has one); None when no flag was
    raised. ``top_choice`` adds the rule's sentence (the kernel list asks only for the flag,
    once a kernel)."""
    if not diagnosis.flags:
        return None
    return _chosen_among(diagnosis, _candidates(diagnosis))


def _chosen_among(diagnosis: Diagnosis, candidates: list[Flag]) -> tuple[Flag, str, float]:
    """:func:`chosen_flag` of a diagnosis with flags, from its ``_candidates``."""
    decided = diagnosis.bottleneck.decided_by
    estimated = [f for f in candidates if f.speedup is not None]
    if estimated:
        best = max(f.speedup or 0.0 for f in estimated)
        tied = [f for f in estimated if f.speedup == best]
        return _first_in_method(tied, decided), NCU_ESTIMATE, best
    flag = _first_in_method(candidates, decided)
    if len(diagnosis.flags) == 1:
        return flag, ONLY_FLAG, 0.0
    return flag, VERDICT if flag.id == decided else METHOD_ORDER, 0.0


def top_choice(diagnosis: Diagnosis) -> TopChoice | None:
    """The flag the verdict leads with and why it was chosen; None when no flag was raised."""
    found = _top(diagnosis)
    return TopChoice(*found) if found is not None else None


def top_flag_dict(diagnosis: Diagnosis) -> dict[str, Any] | None:
    """``top_choice(diagnosis).to_dict()`` (None without flags), made without the
    ``TopChoice`` (every launch's JSON writes one)."""
    found = _top(diagnosis)
    if found is None:
        return None
    flag, rule, why = found
    return {"id": flag.id, "severity": severity_text(flag.severity), "chosen_by": rule,
            "why": why}


def _top(diagnosis: Diagnosis) -> tuple[Flag, str, str] | None:
    """The top flag, the rule that chose it and that rule's sentence; None without flags."""
    if not diagnosis.flags:
        return None
    candidates = _candidates(diagnosis)  # once: the rule's sentence names their severity
    flag, rule, best = _chosen_among(diagnosis, candidates)
    severity = candidates[0].severity
    if rule == NCU_ESTIMATE:
        return flag, rule, (f"largest NCU estimated speedup ({best:,.1f}%) "
                            f"among the {severity} flags")
    if rule == ONLY_FLAG:
        return flag, rule, "the only flag raised"
    if rule == VERDICT:
        return flag, rule, (f"its finding decided the label; no NCU estimate "
                            f"among the {severity} flags")
    return flag, rule, (f"first in the method's order; no NCU estimate "
                        f"among the {severity} flags")
