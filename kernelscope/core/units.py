"""Numbers and units as ``ncu --page details`` prints them, with the units written for people.

NCU prints an integral value without decimals (``65,536``, ``0``) and any other value with two
(``88.07``), and scales bytes, hertz and nanoseconds (``1.58 Tbyte/s``, ``1.98 Ghz``,
``327.71 us``). kernelscope writes those units for people (``1.58 TB/s``, ``1.98 GHz``,
``33,792 threads``, ``40 registers/thread``: ``people_unit``), and a small value with the digits
that show it is not zero (``0.004``, not ``0.00``). Counts and sizes as ``nsys stats`` prints
them (``fmt_int``, ``fmt_float``, ``fmt_mb``, ``fmt_bytes``) sit beside them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

NOT_AVAILABLE = "n/a"
"""The one spelling of a value that is unknown (a metric the report does not hold)."""
EMPTY_CELL = "—"
"""The one mark of a cell with nothing in it (no flag raised, no value recorded there): an
em dash, as the exports' tables have always written it; an en dash only joins a range
(``0–996``)."""

_DECIMAL_PREFIXES = ("", "K", "M", "G", "T", "P")
NCU_TIME_UNITS = ("ns", "us", "ms", "s")
"""NCU's time units, smallest first (micro is ``us``, as ``ncu`` prints it)."""


def fmt_number(value: float | int | str | None, decimals: int = 2) -> str:
    """``65,536`` for integral values, ``1,234.57`` otherwise; strings pass through."""
    if value is None:
        return NOT_AVAILABLE
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return f"{value:,}"
    if value != value:  # NaN
        return NOT_AVAILABLE
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{decimals}f}"


def scale_unit(value: float, unit: str) -> tuple[float, str]:
    """Scale ``value`` to ncu's display unit: byte→Kbyte…, hz→Ghz, ns→us/ms/s.

    Compound units keep their tail (``byte/s`` → ``Tbyte/s``, ``byte/block`` → ``Kbyte/block``).
    Other units are returned unchanged.
    """
    base, sep, tail = unit.partition("/")
    if base in ("byte", "hz"):
        value, prefix = _scaled(value, _DECIMAL_PREFIXES)
        return value, f"{prefix}{base}{sep}{tail}"
    if base in ("ns", "nsecond"):
        value, scaled_unit = _scaled(value, NCU_TIME_UNITS)
        return value, f"{scaled_unit}{sep}{tail}"
    return value, unit


def _scaled(value: float, steps: Sequence[str]) -> tuple[float, str]:
    """``value`` divided by 1000 until it is under 1000 or ``steps`` run out, and its step."""
    step = 0
    while abs(value) >= 1000 and step < len(steps) - 1:
        value /= 1000
        step += 1
    return value, steps[step]


# NCU's unit words (after scaling) as people write them; counted nouns get their plural.
_PEOPLE_PREFIXED = {"byte": "B", "Kbyte": "kB", "Mbyte": "MB", "Gbyte": "GB", "Tbyte": "TB",
                    "Pbyte": "PB", "hz": "Hz", "Khz": "kHz", "Mhz": "MHz", "Ghz": "GHz",
                    "Thz": "THz"}
_COUNTED = frozenset({"thread", "register", "block", "warp", "SM", "cycle", "sector", "request",
                      "wavefront", "instruction", "transaction", "wave", "launch", "CTA"})


def people_unit(value: float, unit: str) -> str:
    """NCU's (scaled) unit ``unit`` as people write it beside ``value``: ``Ghz`` → ``GHz``,
    ``Kbyte/block`` → ``kB/block``, ``thread`` → ``threads`` (``1 thread``), ``register/thread``
    → ``registers/thread``, ``SM`` → ``SMs``. Other units are returned unchanged."""
    base, sep, tail = unit.partition("/")
    if base in _PEOPLE_PREFIXED:
        base = _PEOPLE_PREFIXED[base]
    elif base in _COUNTED and value != 1:
        base += "s"
    return f"{base}{sep}{tail}"


_NONZERO_DIGIT = re.compile("[1-9]")


def fmt_nonzero(value: float) -> str:
    """``fmt_number``, but a value that is not zero never reads as zero: ``0.004``, not
    ``0.00``."""
    text = fmt_number(value)
    if value and value == value and _NONZERO_DIGIT.search(text) is None:
        digits = 1 - math.floor(math.log10(abs(value)))  # two significant digits
        text = f"{value:.{digits}f}".rstrip("0")
    return text


def fmt_value(value: float | int | str | None, unit: str = "") -> str:
    """A value with its (scaled) unit written for people, e.g. ``327.71 us``, ``1.98 GHz``,
    ``33,792 threads``, ``88.07 %``, ``65,536``; a small value keeps the digits that show it
    is not zero (``0.004``)."""
    if value is None or isinstance(value, str):
        return fmt_number(value)
    if not unit:
        return fmt_nonzero(float(value)) if isinstance(value, float) else fmt_number(value)
    scaled, shown = scale_unit(float(value), unit)
    return f"{fmt_nonzero(scaled)} {people_unit(scaled, shown)}"


def _missing(value: float | int | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def fmt_int(value: int | float | None) -> str:
    """``13,733,535`` (as ``nsys stats`` prints counts and integral nanoseconds)."""
    if value is None or _missing(value):
        return NOT_AVAILABLE
    return f"{round(value):,}"


def fmt_float(value: float | int | None, decimals: int = 1) -> str:
    """``383,080.7`` (as ``nsys stats`` prints averages, medians and deviations)."""
    if value is None or _missing(value):
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
