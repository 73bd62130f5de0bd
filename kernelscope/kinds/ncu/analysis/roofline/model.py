"""Plain result objects of the roofline: one point per precision, ceilings per memory level."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kernelscope.core.jsonsafe import attributes


@dataclass(frozen=True)
class Roofline:
    """A kernel's roofline points by precision, plus what kept any precision out."""

    points: dict[str, PrecisionPoint]
    missing: dict[str, str] = field(default_factory=dict)
    """precision -> why it has no point (metrics not collected, no clock, ...)."""

    def point(self, precision: str) -> PrecisionPoint | None:
        return self.points.get(precision)

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """``{precision: {"flops_per_s", "intensity", "peak_flops_per_s", "pct_of_peak", ...}}``."""
        return {key: p.to_dict() for key, p in self.points.items()}


@dataclass(frozen=True)
class PrecisionPoint:
    """One kernel at one precision: achieved work against the report's own ceilings."""

    precision: str
    flops_per_s: float
    peak_flops_per_s: float | None
    pct_of_peak: float | None
    """Share of the peak, in %, computed per cycle exactly as NCU's SOLFPRoofline rule does."""
    intensity: float | None
    """FLOP per DRAM byte (None when the kernel moved no DRAM bytes)."""
    intensity_by_level: dict[str, float | None] = field(default_factory=dict)
    ceilings: tuple[Ceiling, ...] = ()
    detail: dict[str, float] = field(default_factory=dict)
    """Per tensor type, the achieved share of its own peak (tensor precision only)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            **attributes(self, "flops_per_s", "intensity", "peak_flops_per_s", "pct_of_peak"),
            "intensity_l2": self.intensity_by_level.get("l2"),
            "intensity_l1": self.intensity_by_level.get("l1"),
            "ceilings_bytes_per_s": {c.level: c.bytes_per_s for c in self.ceilings},
            "ridge_intensity": {c.level: c.ridge_intensity for c in self.ceilings},
            **({"tensor_types_pct_of_peak": dict(self.detail)} if self.detail else {}),
        }


@dataclass(frozen=True)
class Ceiling:
    """A memory level's bandwidth roof and where it meets the compute roof."""

    level: str
    bytes_per_s: float
    ridge_intensity: float | None
    """FLOP per byte at which this level's slope reaches the precision's peak."""


DEFAULT_PRECISION = "fp32"


def main_precision(roofline: Roofline | None) -> str:
    """The precision this kernel does most of its work in: the highest share of its peak
    (FP32 when it does no floating-point work)."""
    if roofline is None or not roofline.points:
        return DEFAULT_PRECISION
    scored = [(p.pct_of_peak or 0.0, key) for key, p in roofline.points.items()]
    pct, key = max(scored)
    return key if pct > 0 else DEFAULT_PRECISION


def time_weighted_precision(
    kernels: list[tuple[Roofline | None, float | None]],
) -> tuple[str, float | None]:
    """The precision holding most of the kernel time: each kernel's duration counts for its
    ``main_precision``. Returns (precision, its share of the time in 0–1; None without time);
    kernels without floating-point work count for none."""
    totals: dict[str, float] = {}
    for roofline, duration in kernels:
        if roofline is None or not duration or duration <= 0:
            continue
        key = main_precision(roofline)
        if roofline.points.get(key) is None or not (roofline.points[key].pct_of_peak or 0):
            continue
        totals[key] = totals.get(key, 0.0) + float(duration)
    if not totals:
        return DEFAULT_PRECISION, None
    whole = sum(float(d) for _, d in kernels if d and d > 0)
    key = max(totals, key=lambda k: (totals[k], k == DEFAULT_PRECISION))
    return key, totals[key] / whole if whole else None
