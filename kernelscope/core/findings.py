"""The one findings model: a problem found in a report, with the readings it rests on.

Every kind says what it found the same way, with this one class: the kernel diagnosis' flags,
the timeline's findings, the ranks' findings. A ``Finding`` has an ``id``, a ``Severity``, a
one-line ``title``, its ``evidence`` (structured readings: a name, a value, its unit and the
threshold it was compared with, never a sentence), the ``advice`` (the next step) and the
``subject`` it is about (a kernel, a gap cause, a rank). Findings over many rows of a report (the
timeline's rules) carry those ``rows`` and the ``columns`` that head them.

Nothing here makes text: each kind's render layer turns a finding and its evidence into lines
(``kernelscope.render.findings`` for one evidence item).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kernelscope.core.memo import Memo
from kernelscope.core.severity import Severity

_OPS: dict[str, Callable[[Any, Any], Any]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<": operator.lt,
    "<=": operator.le,
}
"""The comparisons an evidence item can make, in C: the JSON exports ask every item whether
it holds (86,760 items in a report of 8,676 launches), and a lambda each took a Python call."""


def _compared(value: float | None, op: str, threshold: float | None) -> bool | None:
    """Whether ``value op threshold`` is true; None when there is nothing to compare."""
    compare = _OPS.get(op)
    if value is None or threshold is None or compare is None:
        return None
    return bool(compare(value, threshold))


@dataclass(frozen=True)
class Evidence:
    """``metric`` (a name, e.g. an ncu metric or an expression of them) read as ``value``
    and compared with ``threshold`` by ``op``; ``step`` is the part of the method that read
    it (ncu's method steps, ``gaps`` for a timeline's), ``note`` what the number means."""

    step: str
    metric: str
    value: float | None
    op: str = ""
    threshold: float | None = None
    unit: str = ""
    note: str = ""

    @property
    def holds(self) -> bool | None:
        """Whether ``value op threshold`` is true; None when there is nothing to compare."""
        return _compared(self.value, self.op, self.threshold)

    def to_dict(self) -> dict[str, Any]:
        # the fields read from the instance's dict, where each attribute read looks for a
        # descriptor on the class first (a JSON export's ~15 items a launch)
        fields = self.__dict__
        value, op, threshold = fields["value"], fields["op"], fields["threshold"]
        return {
            "step": fields["step"],
            "metric": fields["metric"],
            "value": value,
            "op": op or None,
            "threshold": threshold,
            "unit": fields["unit"],
            "holds": _compared(value, op, threshold),
            "note": fields["note"],
        }


_WRITTEN: Memo[int, tuple[Evidence, dict[str, Any]]] = Memo(8192)
"""``Evidence.to_dict`` of the items :func:`written_evidence` was asked for, by identity, each
held with its item (so no other object takes its identity while it is here)."""


def written_evidence(evidence: Evidence) -> dict[str, Any]:
    """``evidence.to_dict()`` for a document that is written and never changed (a kernel
    diagnosis' JSON): one dict for every time the same item is written, kept by its identity
    (a report's launches share many of their items: a kernel's JSON export writes ~10 items a
    launch, of ~4 distinct objects)."""
    kept = _WRITTEN.get(id(evidence))
    if kept is not None and kept[0] is evidence:
        return kept[1]
    return _WRITTEN.keep(id(evidence), (evidence, evidence.to_dict()))[1]


def split_evidence(
    evidence: tuple[Evidence, ...],
) -> tuple[tuple[Evidence, ...], tuple[Evidence, ...]]:
    """(what held or is a plain reading, what was checked and did not hold), each in order:
    a check that failed is part of the reasoning but never a fact about the subject."""
    held = tuple(e for e in evidence if e.holds is not False)
    not_held = tuple(e for e in evidence if e.holds is False)
    return held, not_held


class Evidenced:
    """What holds ``evidence`` (a finding, a diagnosis' flag or bottleneck): the evidence split
    into what held and what did not."""

    evidence: tuple[Evidence, ...]

    @property
    def held(self) -> tuple[Evidence, ...]:
        """The evidence that held (and plain readings): what the finding rests on."""
        return split_evidence(self.evidence)[0]

    @property
    def not_held(self) -> tuple[Evidence, ...]:
        """The checks made on the way that did not hold."""
        return split_evidence(self.evidence)[1]


@dataclass(frozen=True)
class Finding(Evidenced):
    """One problem found in a report (see the module docstring)."""

    id: str
    severity: Severity
    title: str
    evidence: tuple[Evidence, ...] = ()
    advice: str = ""
    """The next step: what to change, or what to measure next."""
    subject: str = ""
    """What it is about: a kernel's name, a gap cause, ``rank 2``; empty for the whole report."""
    detail: str = ""
    """The specifics in one sentence (e.g. which resource limits occupancy)."""
    rule: str | None = None
    """The tool's own rule it mirrors (an ncu rule, an ``nsys analyze`` rule), if any."""
    level: int = 0
    """How deep in its kind's method it was found (ncu's flag levels; 0 elsewhere)."""
    speedup: float | None = None
    """The profiler's own estimate of the gain (%), when it gives one."""
    guard: str = ""
    """Set when a guard rail lowered the severity: why this is not a real problem here."""
    guard_rail: str = ""
    """The id of the report-wide guard rail that set ``guard`` (ncu's ``minor-time-share``);
    empty when the check itself guarded the finding, or nothing did."""
    found_severity: Severity | None = None
    """The severity the check found, before the subject's share of the time weighed it
    (ncu's ``weigh.py``); None when it was not weighed."""
    rows: tuple[Mapping[str, object], ...] = ()
    """The offending rows of the report (one mapping per row), for findings over many rows."""
    columns: Mapping[str, str] = field(default_factory=dict)
    """Row key -> the header a table of ``rows`` shows."""
