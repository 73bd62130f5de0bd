"""Read numbers out of a metrics mapping, treating absent, text and non-finite values alike."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from kernelscope.kinds.ncu.model.metrics import Metric

_isfinite = math.isfinite


def finite(value: Any) -> float | None:
    """``value`` as a finite float, or None."""
    if type(value) is float:  # the common case first: the checks read ~70 values a kernel
        return value if _isfinite(value) else None
    if type(value) is int:  # counts, sizes, limits: a float of an int is always finite
        return float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if _isfinite(number) else None


@dataclass
class Values:
    """The metrics of one kernel, as the checks see them."""

    metrics: Mapping[str, Metric]
    sections: Collection[str] = ()

    def num(self, name: str) -> float | None:
        """The metric's finite numeric value, or None when absent, textual or not finite."""
        m = self.metrics.get(name)
        if m is None:
            return None
        plain = m.value if type(m) is Metric else None
        if type(plain) is float:  # what Metric.number and finite answer, read directly
            return plain if _isfinite(plain) else None
        if type(plain) is int:
            return float(plain)
        try:
            return finite(m.number)
        except (AttributeError, TypeError, ValueError):
            return None

    def unit(self, name: str) -> str:
        m = self.metrics.get(name)
        unit = getattr(m, "unit", "") if m is not None else ""
        return unit if isinstance(unit, str) else ""

    def has(self, *names: str) -> bool:
        return all(self.num(n) is not None for n in names)


def share(part: float | None, whole: float | None) -> float | None:
    """``part / whole`` when both are known and ``whole`` is positive."""
    if part is None or whole is None or whole <= 0:
        return None
    return finite(part / whole)


def number(metrics: Mapping[str, Metric], name: str) -> float | None:
    """The metric's finite numeric value, None when absent, textual, NaN or infinite."""
    m = metrics.get(name)
    if m is None:
        return None
    value = m.value
    if type(value) is float:  # the common case, as in Values.num
        return value if _isfinite(value) else None
    if type(value) is int:
        return float(value)
    return finite(value)
