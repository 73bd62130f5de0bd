"""What a flag check returns: what it found, "can't tell" (the sections that would tell), or None.

A check knows what it found in this kernel (``Found``: severity, evidence, the specifics); the
engine adds what its rule's registration says (``catalog.FlagSpec``: id, title, level, remedy,
the NCU rule that mirrors it) and makes the one findings model's ``Finding`` of them."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import NamedTuple

from kernelscope.kinds.ncu.analysis.diagnosis.evidence import Evidence
from kernelscope.kinds.ncu.analysis.diagnosis.facts import Facts
from kernelscope.kinds.ncu.analysis.diagnosis.result import GuardRail
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import Thresholds


class Found(NamedTuple):
    """The check's part of a finding (see the module docstring)."""

    severity: str
    evidence: tuple[Evidence, ...]
    detail: str = ""
    guard: str = ""
    remedy: str = ""
    """The remedy built from this kernel's facts, when the catalog's general one would not
    fit it (e.g. a grid with a block on every SM); "" for the catalog's."""


class Missing(NamedTuple):
    """The check could not run: these ncu sections would have provided its metrics."""

    sections: tuple[str, ...]


@cache
def missing(*sections: str) -> Missing:
    """The one ``Missing`` of ``sections``: immutable, so every kernel's check shares it (a
    report without a section makes the same few for each of its kernels)."""
    return Missing(sections)


Outcome = Found | Missing | None
Guards = dict[str, GuardRail]
Check = Callable[[Facts, Thresholds, Guards], Outcome]


def grade(value: float, warn: float, critical: float, *, below: bool) -> str | None:
    """'critical', 'warning' or None for ``value`` against a warn/critical pair."""
    if below:
        return "critical" if value < critical else "warning" if value < warn else None
    return "critical" if value >= critical else "warning" if value >= warn else None
