"""The one severity scale of kernel flags, timeline findings and their renderings.

``Severity`` is a ``str`` enum: a member equals its name as the model and the JSON exports
spell it (``Severity.CRITICAL == "critical"``), so a plain string read back from a cache or a
JSON document ranks the same. How each severity is styled lives on the render side
(``kernelscope.render.severity``); its icon is text, so it lives here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from typing import TypeVar

T = TypeVar("T")


class Severity(str, Enum):
    """Least to most severe, in declaration order."""

    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return self.value.__format__(spec)

    @property
    def rank(self) -> int:
        """0 for info up to 2 for critical."""
        return SEVERITIES.index(self.value)

    @property
    def icon(self) -> str:
        """``✖`` critical, ``⚠`` warning, ``ℹ`` info (a flag's mark in one-line text)."""
        return _ICONS[self]


_ICONS = {Severity.CRITICAL: "✖", Severity.WARNING: "⚠", Severity.INFO: "ℹ"}
UNKNOWN_ICON = "·"
"""The mark of a severity outside the scale."""

SEVERITIES = tuple(s.value for s in Severity)
"""Least to most severe."""
MOST_SEVERE_FIRST = tuple(reversed(SEVERITIES))


RANK_OF = {name: rank for rank, name in enumerate(SEVERITIES)}
"""Each severity's rank by its name (a member finds its name: a ``str`` enum): 0 for info up
to 2 for critical; ``RANK_OF.get(severity, -1)`` is ``severity_rank`` read inline."""


def severity_rank(severity: str) -> int:
    """0 for info up to 2 for critical; -1 for anything else."""
    return RANK_OF.get(severity, -1)


def severity_icon(severity: str) -> str:
    """The icon of ``severity`` (a member or its name); ``·`` for anything else."""
    return Severity(severity).icon if severity in SEVERITIES else UNKNOWN_ICON


def most_severe_first(items: Iterable[T], severity: Callable[[T], str]) -> list[T]:
    """``items`` ordered critical first (stable among equals; unknown severities last)."""
    return sorted(items, key=lambda item: -severity_rank(severity(item)))
