"""How much of a profiled kernel's time its kernel report says could be saved.

Two readings of the report, each a fraction of the kernel's duration:

- the **ceiling distance**: how far the kernel is from the nearest ceiling it could hit,
  ``1 - max(SM throughput, memory throughput, roofline share of peak) / 100`` (Speed Of Light
  and the roofline of its dominant precision): a kernel cannot run faster than its busiest
  unit allows, so this bounds any saving;
- **NCU's estimated speedup**: the largest global ``Est. Speedup`` of NCU's rules (the share of
  the kernel's duration NCU expects a fix to save; rules' estimates overlap, so the largest
  one, not their sum).

The headroom is NCU's estimate capped by the ceiling distance, or the ceiling distance alone
where NCU estimates nothing. A family's headroom is its profiled launches' headroom weighted by
their durations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kernelscope.kinds.ncu.analysis.roofline.model import Roofline
from kernelscope.kinds.ncu.model.model import RuleResult


@dataclass(frozen=True)
class Headroom:
    value: float | None
    """The fraction (0-1) of the kernel's time that could be saved; None when unknown."""
    ceiling: float | None
    """Distance to the nearest ceiling (0-1)."""
    ceiling_by: str
    """Which ceiling is nearest: ``SM throughput``, ``memory throughput``, ``tensor roofline``."""
    ncu_speedup: float | None
    """NCU's largest global estimated speedup (0-1)."""
    ncu_rule: str | None

    @property
    def source(self) -> str:
        if self.value is None:
            return "unknown"
        if self.ncu_speedup is not None and self.ncu_speedup <= (self.ceiling or 1.0):
            return f"NCU {self.ncu_rule}"
        return f"distance to {self.ceiling_by}" if self.ceiling is not None else "unknown"


def _pct(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    v = float(value)
    return v if math.isfinite(v) else None


def launch_headroom(
    row: Mapping[str, object], rules: Sequence[RuleResult], roofline: Roofline | None
) -> Headroom:
    """The headroom of one profiled launch (see the module docstring)."""
    readings: list[tuple[float, str]] = []
    sm = _pct(row.get("sm_pct"))
    mem = _pct(row.get("mem_pct"))
    if sm is not None:
        readings.append((sm, "SM throughput"))
    if mem is not None:
        readings.append((mem, "memory throughput"))
    if roofline is not None:
        for precision, point in roofline.points.items():
            pct = _pct(point.pct_of_peak)
            if pct is not None and point.flops_per_s > 0:
                readings.append((pct, f"{precision} roofline"))
    ceiling = ceiling_by = None
    if readings:
        closest, ceiling_by = max(readings, key=lambda r: r[0])
        ceiling = min(1.0, max(0.0, 1.0 - closest / 100.0))
    best: RuleResult | None = None
    for rule in rules:
        speedup = _pct(rule.speedup_pct)
        if rule.speedup_type == "global" and speedup is not None and speedup > 0 and (
            best is None or speedup > (best.speedup_pct or 0.0)
        ):
            best = rule
    ncu = min(1.0, (best.speedup_pct or 0.0) / 100.0) if best is not None else None
    if ncu is not None and ceiling is not None:
        value: float | None = min(ncu, ceiling)
    else:
        value = ncu if ncu is not None else ceiling
    return Headroom(value, ceiling, ceiling_by or "", ncu, best.rule if best else None)


def weighted(headrooms: Sequence[tuple[Headroom, float | None]]) -> float | None:
    """Duration-weighted mean headroom of (headroom, duration) pairs; None if none is known."""
    known = [(h.value, d) for h, d in headrooms if h.value is not None]
    if not known:
        return None
    weights = [d if d and d > 0 else 0.0 for _, d in known]
    total = sum(weights)
    if total <= 0:
        return sum(v for v, _ in known) / len(known)
    return sum(v * w for (v, _), w in zip(known, weights, strict=True)) / total
