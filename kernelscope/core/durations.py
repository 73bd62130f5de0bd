"""Durations, one formatter per convention, and positions on a timeline.

Two tools, two conventions, and a kind names the one its users know (``Convention``):

- ``ncu``: ``fmt_duration`` prints ``gpu__time_duration.sum`` as ``ncu --page details`` does,
  two decimals in a scaled unit (``327.71 us``, ``1.20 ms``, ``800 ns``);
- ``nsys``: ``fmt_ns`` prints about four significant digits (``122.4 ms``, ``12.35 us``,
  ``800 ns``), and positions from the start of the report (``fmt_at``, ``fmt_window``).

Micro is ``us`` in both, as both tools print it.
"""

from __future__ import annotations

import math
from enum import Enum

from kernelscope.core.units import NOT_AVAILABLE, fmt_value

TIME_UNITS: tuple[tuple[int, str], ...] = (
    (1_000_000_000, "s"),
    (1_000_000, "ms"),
    (1_000, "us"),
    (1, "ns"),
)
"""(nanoseconds per unit, unit), largest first."""


def fmt_duration(ns: float | None) -> str:
    """A duration in nanoseconds the way ncu prints ``gpu__time_duration.sum``: ``327.71 us``."""
    return NOT_AVAILABLE if ns is None else fmt_value(ns, "ns")


def fmt_ns(ns: float | int | None, *, compact: bool = False) -> str:
    """A duration the way the Nsight Systems views read, about four significant digits:
    ``1.505 s``, ``122.4 ms``, ``800 ns``; ``compact`` drops trailing zeros (``100 us`` rather
    than ``100.0 us``)."""
    if ns is None or (isinstance(ns, float) and math.isnan(ns)):
        return NOT_AVAILABLE
    value = float(ns)
    scale, unit = unit_for(abs(value))
    scaled = value / scale
    if scale == 1:
        return f"{round(scaled):,} ns"
    decimals = 1 if abs(scaled) >= 100 else 2 if abs(scaled) >= 10 else 3
    text = f"{scaled:,.{decimals}f}"
    if compact:
        text = text.rstrip("0").rstrip(".")
    return f"{text} {unit}"


class Convention(Enum):
    """Whose way of printing a duration a kind follows."""

    NCU = "ncu"
    NSYS = "nsys"

    def duration(self, ns: float | int | None) -> str:
        """``ns`` in this convention: ``327.71 us`` (ncu), ``327.7 us`` (nsys)."""
        return fmt_duration(ns) if self is Convention.NCU else fmt_ns(ns)


def unit_for(magnitude_ns: float) -> tuple[int, str]:
    """The largest unit that ``magnitude_ns`` is at least one of (ns below 1 us)."""
    for scale, unit in TIME_UNITS:
        if magnitude_ns >= scale:
            return scale, unit
    return TIME_UNITS[-1]


def decimals_for(step_ns: float, scale: int) -> int:
    """Decimals that print multiples of a tick step exactly (2.5 ms -> 1) in a unit of
    ``scale`` ns."""
    step = step_ns / scale
    for decimals in range(7):
        shifted = step * 10**decimals
        if abs(shifted - round(shifted)) <= 1e-6 * max(1.0, shifted):
            return decimals
    return 6


def precision_for(resolution_ns: float, scale: int) -> int:
    """Decimals needed to show ``resolution_ns`` in a unit of ``scale`` ns."""
    step = resolution_ns / scale
    if step <= 0 or step >= 1:
        return 0
    return min(6, max(0, -math.floor(math.log10(step) + 1e-9)))


def fmt_at(t_ns: float, scale: int, unit: str, decimals: int) -> str:
    """A position in a fixed unit: ``694.5 ms``, ``1,200 us``."""
    return f"{t_ns / scale:,.{decimals}f} {unit}"


def fmt_window(t0_rel: int, t1_rel: int) -> tuple[str, str]:
    """The two ends of a window [t0, t1) (from the report start) in one unit fitting their
    size, precise to about a hundredth of the window (what a column of the lanes shows):
    ``687.39 ms`` for a 87 ms window, ``0.00 s``."""
    span = max(t1_rel - t0_rel, 1)
    scale, unit = unit_for(max(abs(t0_rel), abs(t1_rel)))
    decimals = precision_for(span / 100, scale)
    return fmt_at(t0_rel, scale, unit, decimals), fmt_at(t1_rel, scale, unit, decimals)


def fmt_seconds(t_rel_ns: float) -> str:
    """An instant in seconds from the start of the report, to 0.1 ms: ``10.0116``."""
    return f"{t_rel_ns / 1e9:,.4f}"
