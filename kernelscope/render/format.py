"""NCU's metrics as text: a metric's value and unit, its label, a kernel's short name.

The numbers, units, durations and shares themselves are written by the shared vocabulary
(``kernelscope.core``: ``units``, ``durations``, ``shares``, ``words``), which the model
imports too; this module adds what needs the kernel-report model (``Metric``, kernel names).
The names of ``kernelscope.core`` it re-exports keep working for modules written before
``core`` existed; new code imports them from ``kernelscope.core``.
"""

from __future__ import annotations

from kernelscope.core.durations import (
    TIME_UNITS,
    decimals_for,
    fmt_at,
    fmt_duration,
    fmt_ns,
    fmt_window,
    precision_for,
    unit_for,
)
from kernelscope.core.kernel_names import compact_name, fit_name
from kernelscope.core.shares import fmt_pct
from kernelscope.core.units import (
    NOT_AVAILABLE,
    fmt_bytes,
    fmt_float,
    fmt_int,
    fmt_mb,
    fmt_nonzero,
    fmt_number,
    fmt_value,
    people_unit,
    scale_unit,
)
from kernelscope.core.words import api_name, ellipsis, plural
from kernelscope.kinds.ncu.model import Metric

__all__ = [
    "NOT_AVAILABLE", "TIME_UNITS", "api_name", "decimals_for", "ellipsis",
    "fmt_at", "fmt_bytes", "fmt_counted", "fmt_duration", "fmt_float", "fmt_int", "fmt_mb",
    "fmt_metric", "fmt_nonzero", "fmt_ns", "fmt_number", "fmt_pct", "fmt_value", "fmt_window",
    "metric_label", "people_unit", "plural", "precision_for", "scale_unit", "short_name",
    "split_metric", "unit_for",
]


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


def metric_label(metric: Metric | None, name: str) -> str:
    """The metric's ncu label, or a readable form of its name when ncu gives none."""
    if metric is not None and metric.label:
        return metric.label
    base = name.split(".")[0]
    return base.replace("__", ": ").replace("_", " ")
