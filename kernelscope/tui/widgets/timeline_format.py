"""Times, sizes and counts as the timeline screens print them.

Durations get a readable unit (``122.4 ms``, ``800 ns``); table cells follow ``nsys stats``
(``13,733,535`` ns, averages with one decimal); positions on the timeline are given from the
start of the report (nsys's own origin), e.g. ``at 687.5 ms``.
"""

from __future__ import annotations

import math
import re

NOT_AVAILABLE = "n/a"

# (nanoseconds per unit, unit), largest first.
TIME_UNITS: tuple[tuple[int, str], ...] = (
    (1_000_000_000, "s"),
    (1_000_000, "ms"),
    (1_000, "us"),
    (1, "ns"),
)

_API_VERSION = re.compile(r"_v\d+$")


def fmt_ns(ns: float | int | None, *, compact: bool = False) -> str:
    """A duration with about four significant digits: ``1.505 s``, ``122.4 ms``, ``800 ns``;
    ``compact`` drops trailing zeros (``100 us`` rather than ``100.0 us``)."""
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
    size, precise to about a thousandth of the window: ``687.3850 ms``, ``0.000 s``."""
    span = max(t1_rel - t0_rel, 1)
    scale, unit = unit_for(max(abs(t0_rel), abs(t1_rel)))
    decimals = precision_for(span / 1000, scale)
    return fmt_at(t0_rel, scale, unit, decimals), fmt_at(t1_rel, scale, unit, decimals)


def fmt_pct(value: float | None, decimals: int = 1) -> str:
    """``98.8 %``."""
    if value is None or math.isnan(value):
        return NOT_AVAILABLE
    return f"{value:.{decimals}f} %"


def fmt_int(value: int | float | None) -> str:
    """``13,733,535`` (as ``nsys stats`` prints counts and integral nanoseconds)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NOT_AVAILABLE
    return f"{round(value):,}"


def fmt_float(value: float | int | None, decimals: int = 1) -> str:
    """``383,080.7`` (as ``nsys stats`` prints averages, medians and deviations)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NOT_AVAILABLE
    return f"{float(value):,.{decimals}f}"


def fmt_mb(value: float | None) -> str:
    """Megabytes (10^6 B) with three decimals, as ``cuda_gpu_mem_size_sum`` prints them."""
    return fmt_float(value, 3)


def fmt_bytes(n: int | float | None) -> str:
    """``268.4 MB``, ``4.1 kB``, ``16 B`` (decimal units)."""
    if n is None:
        return NOT_AVAILABLE
    value = float(n)
    for scale, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if abs(value) >= scale:
            return f"{value / scale:.1f} {unit}"
    return f"{int(value)} B"


def api_name(name: str) -> str:
    """``cudaMemcpy_v3020`` → ``cudaMemcpy`` (the name ``nsys stats`` prints)."""
    return _API_VERSION.sub("", name)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 gap``, ``5 gaps``."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"
