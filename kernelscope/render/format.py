"""Numbers as the ncu CLI prints them: thousands separators, two decimals, scaled units.

``ncu --page details`` prints an integral value without decimals (``65,536``, ``0``) and any
other value with two (``88.07``), and scales bytes, hertz and nanoseconds to a readable unit
(``1.58 Tbyte/s``, ``1.98 Ghz``, ``327.71 us``). The panes format every value through here so
the screen reads like ncu; tests compare against the model's values formatted the same way.
"""

from __future__ import annotations

from functools import lru_cache

from kernelscope.parsers.ncu import Metric

NOT_AVAILABLE = "n/a"

_DECIMAL_PREFIXES = ("", "K", "M", "G", "T", "P")
_TIME_UNITS = ("ns", "us", "ms", "s")


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
        step = 0
        while abs(value) >= 1000 and step < len(_DECIMAL_PREFIXES) - 1:
            value /= 1000
            step += 1
        return value, f"{_DECIMAL_PREFIXES[step]}{base}{sep}{tail}"
    if base in ("ns", "nsecond"):
        step = 0
        while abs(value) >= 1000 and step < len(_TIME_UNITS) - 1:
            value /= 1000
            step += 1
        return value, f"{_TIME_UNITS[step]}{sep}{tail}"
    return value, unit


def fmt_value(value: float | int | str | None, unit: str = "") -> str:
    """A value with its (scaled) unit, e.g. ``327.71 us``, ``88.07 %``, ``65,536``."""
    if value is None or isinstance(value, str) or not unit:
        return fmt_number(value)
    scaled, shown = scale_unit(float(value), unit)
    return f"{fmt_number(scaled)} {shown}"


def fmt_metric(metric: Metric | None) -> str:
    """A metric's value and unit as ncu's details page shows them."""
    if metric is None:
        return NOT_AVAILABLE
    return fmt_value(metric.value, metric.unit)


def split_metric(metric: Metric | None) -> tuple[str, str]:
    """(value text, unit text) as ncu's details tables print them in separate columns."""
    if metric is None:
        return NOT_AVAILABLE, ""
    if metric.number is None or not metric.unit:
        return fmt_number(metric.value), metric.unit
    scaled, unit = scale_unit(metric.number, metric.unit)
    return fmt_number(scaled), unit


def fmt_duration(ns: float | None) -> str:
    """A duration in nanoseconds the way ncu prints ``gpu__time_duration.sum``."""
    return NOT_AVAILABLE if ns is None else fmt_value(ns, "ns")


def fmt_pct(value: float | None) -> str:
    """A percentage without its sign (the column header says %): ``88.07``."""
    return NOT_AVAILABLE if value is None else f"{value:,.2f}"


def _param_list_start(name: str) -> int:
    """Index of the '(' opening the parameter list (the last one outside templates)."""
    depth = 0
    cut = -1
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0:
            cut = i
    return cut


def short_name(demangled: str, width: int = 48) -> str:
    """The kernel's name without return type and parameters, ellipsised to ``width``.

    ``void mm_tiled<(int)32>(const float *, float *, int)`` → ``mm_tiled<(int)32>``.
    """
    return ellipsis(_bare_name(demangled), width)


@lru_cache(maxsize=4096)
def _bare_name(demangled: str) -> str:
    """``demangled`` without return type and parameters (memoised: reports launch the same
    kernels many times)."""
    name = demangled.strip().removesuffix(" const")
    cut = _param_list_start(name)
    if cut > 0 and name.endswith(")"):
        name = name[:cut]
    # Drop a leading return type ("void ") found outside templates and parentheses.
    depth = 0
    last_space = -1
    for i, ch in enumerate(name):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth = max(0, depth - 1)
        elif ch == " " and depth == 0:
            last_space = i
    if last_space >= 0:
        name = name[last_space + 1 :]
    return name or demangled


def ellipsis(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters with a trailing ``…`` when it is longer."""
    if width <= 0 or len(text) <= width:
        return text
    return text[: max(0, width - 1)] + "…"


def metric_label(metric: Metric | None, name: str) -> str:
    """The metric's ncu label, or a readable form of its name when ncu gives none."""
    if metric is not None and metric.label:
        return metric.label
    base = name.split(".")[0]
    return base.replace("__", ": ").replace("_", " ")
