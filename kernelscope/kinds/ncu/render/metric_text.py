"""NCU's metrics as text: a metric's value and unit, its label.

The numbers and units themselves are written by the shared vocabulary (``kernelscope.core``:
``units``); this module adds what needs the kernel-report model (``Metric``).
"""

from __future__ import annotations

from kernelscope.core.units import (
    NOT_AVAILABLE,
    fmt_nonzero,
    fmt_number,
    fmt_value,
    people_unit,
    scale_unit,
)
from kernelscope.kinds.ncu.model import Metric

__all__ = ["fmt_counted", "fmt_metric", "metric_label", "split_metric"]


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


def metric_label(metric: Metric | None, name: str) -> str:
    """The metric's ncu label, or a readable form of its name when ncu gives none."""
    if metric is not None and metric.label:
        return metric.label
    base = name.split(".")[0]
    return base.replace("__", ": ").replace("_", " ")
