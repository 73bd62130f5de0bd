"""Numbers as the ncu CLI prints them: thousands separators, two decimals, scaled units.

``ncu --page details`` prints an integral value without decimals (``65,536``, ``0``) and any
other value with two (``88.07``), and scales bytes, hertz and nanoseconds (``1.58 Tbyte/s``,
``1.98 Ghz``, ``327.71 us``). The panes, the Markdown and ``summary`` print those numbers with
the units written for people (``1.58 TB/s``, ``1.98 GHz``, ``33,792 threads``,
``40 registers/thread``: ``people_unit``), and a small value with the digits that show it is
not zero (``0.004``, not ``0.00``). The Raw page, JSON and CSV keep NCU's values and unit
strings as they are.

Timelines follow ``nsys`` instead (``fmt_ns`` and below): durations with about four significant
digits (``122.4 ms``, ``800 ns``), table cells as ``nsys stats`` prints them (``13,733,535`` ns,
averages with one decimal), positions from the start of the report (``at 687.5 ms``).
"""

from __future__ import annotations

import math
import re

from kernelscope.parsers.kernel_names import compact_name, fit_name
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


def fmt_nonzero(value: float) -> str:
    """``fmt_number``, but a value that is not zero never reads as zero: ``0.004``, not
    ``0.00``."""
    text = fmt_number(value)
    if value and value == value and not any(c in "123456789" for c in text):
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


def fmt_metric(metric: Metric | None) -> str:
    """A metric's value and unit as ncu's details page shows them."""
    if metric is None:
        return NOT_AVAILABLE
    return fmt_value(metric.value, metric.unit)


def fmt_counted(metric: Metric | None, what: str) -> str:
    """``33,792 threads``: the metric with its unit, or with ``what`` where NCU gives none
    (``15.52 waves/SM``); a missing metric reads ``threads n/a``."""
    if metric is None or metric.number is None:
        return f"{what} {fmt_metric(metric)}"
    if metric.unit:
        return fmt_metric(metric)
    return f"{fmt_metric(metric)} {what}"


def split_metric(metric: Metric | None) -> tuple[str, str]:
    """(value text, unit text) in separate columns, like ncu's details tables, with the unit
    written for people (``1.98``, ``GHz``)."""
    if metric is None:
        return NOT_AVAILABLE, ""
    if metric.number is None:
        return fmt_number(metric.value), metric.unit
    scaled, unit = scale_unit(metric.number, metric.unit)
    return fmt_nonzero(scaled), people_unit(scaled, unit)


def fmt_duration(ns: float | None) -> str:
    """A duration in nanoseconds the way ncu prints ``gpu__time_duration.sum``."""
    return NOT_AVAILABLE if ns is None else fmt_value(ns, "ns")


def fmt_pct(value: float | None, decimals: int = 2, *, sign: bool = False) -> str:
    """A percentage: ``88.07`` (where a column header says %), or with ``sign`` ``98.8 %``
    (timelines use one decimal)."""
    if value is None or math.isnan(value):
        return NOT_AVAILABLE
    return f"{value:,.{decimals}f}" + (" %" if sign else "")


def short_name(demangled: str, width: int | None = None) -> str:
    """One kernel's compact name by meaning (``kernel_names.compact_name``: no return type,
    parameters, namespaces or template plumbing), fitted to ``width`` columns when given.

    ``void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>,
    std::array<char *, 3>>(int, T2, T3)`` → ``vectorized_elementwise<CUDAFunctor_add>``.
    Where the other kernels of the report are known, name kernels through
    ``kernel_names.ShortNames`` instead: its names are unique within the report.
    """
    name = compact_name(demangled)
    return name if width is None else fit_name(name, width)


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


# -- timelines (nsys conventions) ---------------------------------------------------------

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
    size, precise to about a hundredth of the window (what a column of the lanes shows):
    ``687.39 ms`` for a 87 ms window, ``0.00 s``."""
    span = max(t1_rel - t0_rel, 1)
    scale, unit = unit_for(max(abs(t0_rel), abs(t1_rel)))
    decimals = precision_for(span / 100, scale)
    return fmt_at(t0_rel, scale, unit, decimals), fmt_at(t1_rel, scale, unit, decimals)


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
