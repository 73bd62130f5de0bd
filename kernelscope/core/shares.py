"""Shares and percentages, one way: ``61.1 %`` (a space before the sign), ``n/a`` when unknown.

A share is a fraction of a whole (0.611); a percentage is already scaled (61.1, as NCU's ``%``
metrics and ``nsys stats``' ``Time (%)`` are). Table cells under a header that says ``%`` drop
the sign (``fmt_pct``).
"""

from __future__ import annotations

import math

from kernelscope.core.units import NOT_AVAILABLE


def _missing(value: float | None) -> bool:
    return value is None or math.isnan(value)


def fmt_pct(value: float | None, decimals: int = 2, *, sign: bool = False) -> str:
    """A percentage: ``88.07`` (where a column header says %), or with ``sign`` ``98.8 %``."""
    if value is None or _missing(value):
        return NOT_AVAILABLE
    return f"{value:,.{decimals}f}" + (" %" if sign else "")


def fmt_percent(value: float | None, decimals: int = 1) -> str:
    """A percentage with its sign: ``61.1 %``; ``n/a`` when unknown."""
    return fmt_pct(value, decimals, sign=True)


def fmt_share(fraction: float | None, decimals: int = 1) -> str:
    """A fraction of a whole as a percentage: 0.611 → ``61.1 %``; ``n/a`` when unknown."""
    return fmt_percent(None if fraction is None else 100 * fraction, decimals)
