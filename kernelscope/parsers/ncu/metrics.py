"""Plain metric values read out of an ``ncu_report`` action."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from kernelscope.parsers.ncu.legacy import old_names

MetricValue = float | int | str | None


@dataclass(frozen=True, slots=True)
class Metric:
    """One ncu metric: its ncu name, the value NCU stored and NCU's unit (base units)."""

    name: str
    value: MetricValue
    unit: str
    label: str = ""

    def __reduce__(self) -> tuple[type[Metric], tuple[str, MetricValue, str, str]]:
        # Plain constructor arguments: unpickling frozen slotted dataclasses field by field
        # is ~10x slower, and worker processes send ~100k metrics for a 1,000-kernel report.
        return (Metric, (self.name, self.value, self.unit, self.label))

    @property
    def number(self) -> float | None:
        """The value as a float, or None when it is a string or missing."""
        if isinstance(self.value, bool) or self.value is None or isinstance(self.value, str):
            return None
        return float(self.value)


@dataclass(frozen=True, slots=True)
class Series:
    """An instanced metric: (key, value) pairs, e.g. an occupancy curve keyed by block size."""

    name: str
    unit: str
    points: tuple[tuple[float, float], ...]


def _clean(value: Any) -> MetricValue:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float, str)):
        return value
    return None


def finite(value: object) -> float | None:
    """``value`` as a float when it is a finite number (not NaN, not infinite), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def dims_of(metrics: Mapping[str, Metric], names: Sequence[str]) -> tuple[int, int, int]:
    """A launch's (x, y, z) from three dimension metrics; a missing (or NaN) one counts as 1."""
    out = []
    for name in names:
        m = metrics.get(name)
        number = finite(m.value) if m is not None else None
        out.append(int(number) if number is not None and number >= 1 else 1)
    return out[0], out[1], out[2]


@cache
def _getters() -> dict[int, Any]:
    """ncu_report's value accessor for each value kind (``IMetric.value`` rebuilds this map
    on every call, a third of the cost of reading a metric)."""
    import ncu_report

    m = ncu_report.IMetric
    return {
        m.ValueKind_DOUBLE: m.as_double,
        m.ValueKind_FLOAT: m.as_double,
        m.ValueKind_STRING: m.as_string,
        m.ValueKind_UINT32: m.as_uint64,
        m.ValueKind_UINT64: m.as_uint64,
    }


def _raw_value(raw: Any) -> Any:
    getter = _getters().get(raw.kind())
    return None if getter is None else getter(raw)


def read_metric(action: Any, name: str, *, label: bool = True) -> Metric | None:
    """Read ``name`` from ``action``; None when the report lacks it or it holds no value.
    ``label`` also reads NCU's display label (only section tables show it). A pre-2020
    report's metric is found under its old name (see ``legacy``)."""
    raw = action.metric_by_name(name)
    if raw is None:
        for old in old_names(name):
            raw = action.metric_by_name(old)
            if raw is not None:
                break
        else:
            return None
    try:
        # (has_value first: most metrics have one, and then their instances do not matter)
        if not raw.has_value() and raw.num_instances() > 0:
            return None
        value = _clean(_raw_value(raw))
    except (TypeError, ValueError, RuntimeError):
        return None
    if value is None:
        return None
    text = ""
    if label:
        try:
            text = raw.label() or ""
        except (AttributeError, RuntimeError):
            text = ""
    # A string value (a breakdown's sub-metric name, a device name) has no unit; ncu_report
    # still answers one for breakdowns, and which one depends on what the process opened
    # before ('%' in a fresh process, 'byte' after other reports).
    unit = "" if isinstance(value, str) else raw.unit() or ""
    return Metric(name=name, value=value, unit=unit, label=text)


def read_series(action: Any, name: str) -> Series | None:
    """Read an instanced metric whose correlation ids are the keys (curves, per-PC counters)."""
    raw = action.metric_by_name(name)
    if raw is None or raw.num_instances() == 0 or not raw.has_correlation_ids():
        return None
    keys = raw.correlation_ids()
    points = []
    for i in range(raw.num_instances()):
        try:
            points.append((float(keys.as_double(i)), float(raw.as_double(i))))
        except (TypeError, ValueError, RuntimeError):
            continue
    return Series(name=name, unit=raw.unit() or "", points=tuple(points))
