"""The one order of severities, shared by kernel flags, timeline findings and their renderings."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")

SEVERITIES = ("info", "warning", "critical")
"""Least to most severe."""
MOST_SEVERE_FIRST = tuple(reversed(SEVERITIES))


def severity_rank(severity: str) -> int:
    """0 for info up to 2 for critical; -1 for anything else."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else -1


def most_severe_first(items: Iterable[T], severity: Callable[[T], str]) -> list[T]:
    """``items`` ordered critical first (stable among equals; unknown severities last)."""
    return sorted(items, key=lambda item: -severity_rank(severity(item)))
