"""Compute a kernel's roofline points from its ncu metrics (a pure function of the mapping)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Protocol

from kernelscope.kinds.ncu.analysis.roofline.model import Ceiling, PrecisionPoint, Roofline
from kernelscope.kinds.ncu.analysis.roofline.spec import (
    LEVELS,
    PRECISIONS,
    LevelSpec,
    PrecisionSpec,
)


class _HasNumber(Protocol):
    @property
    def number(self) -> float | None: ...


def _num(metrics: Mapping[str, _HasNumber], name: str) -> float | None:
    m = metrics.get(name)
    if m is None:
        return None
    try:
        value = m.number
    except (AttributeError, TypeError, ValueError):
        return None
    if value is None or not math.isfinite(value):
        return None
    return float(value)


def _fin(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return _fin(a / b)


def level_bandwidth(metrics: Mapping[str, _HasNumber], level: LevelSpec) -> float | None:
    """The level's peak bytes per second (peak bytes per cycle × its clock)."""
    per_cycle, clock = _num(metrics, level.peak_per_cycle), _num(metrics, level.clock)
    if per_cycle is None or clock is None or per_cycle <= 0 or clock <= 0:
        return None
    return _fin(per_cycle * clock)


def _sum_terms(metrics: Mapping[str, _HasNumber], spec: PrecisionSpec) -> float | None:
    total, seen = 0.0, False
    for term in spec.achieved:
        value = _num(metrics, term.metric)
        if value is not None:
            total += term.factor * value
            seen = True
    return total if seen else None


def _scalar_point(
    metrics: Mapping[str, _HasNumber], spec: PrecisionSpec
) -> tuple[float, float | None, float | None] | str:
    """(FLOP/s, peak FLOP/s, % of peak) of a non-tensor precision, or why there is none."""
    per_cycle = _sum_terms(metrics, spec)
    if per_cycle is None:
        return "instruction-rate metrics not collected"
    clock = _num(metrics, spec.clock)
    if clock is None or clock <= 0:
        return "no SM clock in the report"
    peak_cycle = _num(metrics, spec.peak.metric) if spec.peak else None
    peak_cycle = peak_cycle * spec.peak.factor if peak_cycle and spec.peak else None
    peak_clock = _num(metrics, spec.peak_clock)
    peak = peak_cycle * peak_clock if peak_cycle and peak_clock and peak_clock > 0 else None
    pct = 100.0 * per_cycle / peak_cycle if peak_cycle else None
    return per_cycle * clock, peak, pct


def _tensor_point(
    metrics: Mapping[str, _HasNumber], spec: PrecisionSpec
) -> tuple[float, float | None, float | None, dict[str, float]] | str:
    clock = _num(metrics, spec.clock)
    if clock is None or clock <= 0:
        return "no SM clock in the report"
    achieved_total, share, seen = 0.0, 0.0, False
    dominant: tuple[float, float | None] = (-1.0, None)
    first_peak: float | None = None
    detail: dict[str, float] = {}
    for tt in spec.tensor_types:
        ops = _num(metrics, tt.achieved)
        peak = next((p for p in (_num(metrics, n) for n in tt.peaks) if p and p > 0), None)
        if first_peak is None and peak is not None:
            first_peak = peak
        if ops is None:
            continue
        seen = True
        achieved_total += ops
        if peak is not None:
            share += ops / peak
            if ops > 0:
                detail[tt.key] = 100.0 * ops / peak
        if ops > dominant[0] and peak is not None:
            dominant = (ops, peak)
    if not seen:
        return "tensor-pipe metrics not collected"
    peak_cycle = dominant[1] if dominant[0] > 0 else first_peak
    peak = peak_cycle * clock if peak_cycle else None
    pct = 100.0 * share if peak_cycle else None
    detail = {k: v for k, v in detail.items() if math.isfinite(v)}
    return achieved_total * clock, peak, pct, detail


def compute_roofline(metrics: Mapping[str, _HasNumber]) -> Roofline:
    """Every precision's point the metrics allow; the others listed in ``missing`` with why.
    Metrics that hold none of the names each precision's point reads of no metrics
    (``_NOTHING_READ``) give every precision the reason no metrics give, and no point (the
    memory levels' traffic and bandwidth are read for a point alone): their roofline is that
    of no metrics, made without reading them (a launch of a report collected without the
    roofline's metrics read ~40 names for nothing)."""
    if metrics.keys().isdisjoint(_NOTHING_READ):
        return Roofline(points=dict(_NOTHING.points), missing=dict(_NOTHING.missing))
    return _computed(metrics)


def _computed(metrics: Mapping[str, _HasNumber]) -> Roofline:
    traffic = {lv.key: _num(metrics, lv.traffic) for lv in LEVELS}
    bandwidth = {lv.key: level_bandwidth(metrics, lv) for lv in LEVELS}
    points: dict[str, PrecisionPoint] = {}
    missing: dict[str, str] = {}
    for spec in PRECISIONS:
        detail: dict[str, float] = {}
        result = _tensor_point(metrics, spec) if spec.tensor_types else _scalar_point(metrics, spec)
        if isinstance(result, str):
            missing[spec.key] = result
            continue
        if spec.tensor_types:
            flops, peak, pct, detail = result  # type: ignore[misc]
        else:
            flops, peak, pct = result  # type: ignore[misc]
        flops, peak, pct = _fin(flops), _fin(peak), _fin(pct)
        if flops is None:
            missing[spec.key] = "achieved rate out of range"
            continue
        by_level = {key: _ratio(flops, t) for key, t in traffic.items()}
        ceilings = tuple(
            Ceiling(lv.key, bw, _ratio(peak, bw))
            for lv in LEVELS
            if (bw := bandwidth[lv.key]) is not None
        )
        points[spec.key] = PrecisionPoint(
            precision=spec.key,
            flops_per_s=flops,
            peak_flops_per_s=peak,
            pct_of_peak=pct,
            intensity=by_level.get("dram"),
            intensity_by_level=by_level,
            ceilings=ceilings,
            detail=detail,
        )
    return Roofline(points=points, missing=missing)


class _Asked(dict[str, _HasNumber]):
    """No metrics, remembering each name asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: set[str] = set()

    def get(self, name: str, default: object = None) -> None:  # type: ignore[override]
        self.asked.add(name)


_NOTHING = _computed({})
"""The roofline of no metrics."""
_asked = _Asked()
for _spec in PRECISIONS:
    (_tensor_point if _spec.tensor_types else _scalar_point)(_asked, _spec)
_NOTHING_READ = frozenset(_asked.asked)
"""The names each precision's point asks for of no metrics (its every step reads a name with
``get``): metrics that hold none of them take the steps no metrics take, to the same reason."""
