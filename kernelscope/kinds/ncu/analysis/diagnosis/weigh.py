"""Severity by what a fix can save: each flag's severity weighed by the kernel's share of the
profiled GPU time (its family's, for a family of launches).

A kernel under ``minor_time_share`` of the time gets no flag above info, whatever its checks
found, and each flag carries the guard rail ``minor-time-share`` (not worth acting on).
Elsewhere an info flag whose NCU rule estimates a speedup worth ``gain_warning_share`` of the
report's time (the estimate times the share) is raised to warning, except the occupancy flags:
NCU's occupancy estimates assume occupancy is the limit, which the seeds warn against chasing
(a GEMM whose L1 is 85 % busy at 50 % theoretical occupancy keeps its occupancy-limiter info).
The severity the check found stays on the flag (``found_severity``), so weighing again
starts from it.
"""

from __future__ import annotations

from kernelscope.core.severity import Severity
from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import ev
from kernelscope.kinds.ncu.analysis.diagnosis.kept import evolved
from kernelscope.kinds.ncu.analysis.diagnosis.result import Flag, GuardRail
from kernelscope.kinds.ncu.analysis.diagnosis.thresholds import DEFAULT_THRESHOLDS, Thresholds

MINOR_TIME_SHARE = "minor-time-share"


def minor_share_guard(weight: float, what: str, t: Thresholds = DEFAULT_THRESHOLDS) -> GuardRail:
    """The guard rail of a kernel under ``minor_time_share`` of the time."""
    return GuardRail(
        MINOR_TIME_SHARE,
        f"{what} {weight:.2%} of the profiled GPU time: fixing it cannot save more than that, "
        "so no flag is raised above info.",
        (ev("time", "share of profiled GPU time", weight, "<", t.minor_time_share),),
    )


def expected_gain(flag: Flag, weight: float) -> float | None:
    """NCU's estimated speedup of ``flag`` as a share of the report's time, None without one."""
    if flag.speedup is None:
        return None
    return flag.speedup / 100.0 * weight


def weighed(
    flag: Flag, weight: float, guard: GuardRail | None, t: Thresholds = DEFAULT_THRESHOLDS
) -> Flag:
    """``flag`` with its severity weighed by ``weight`` (the share of the time), from the
    severity its check found; ``guard`` is the minor-share guard rail when it applies."""
    found = flag.found_severity or flag.severity
    if guard is not None:
        if flag.guard:
            return evolved(flag, severity=Severity.INFO, found_severity=found)
        return evolved(flag, severity=Severity.INFO, found_severity=found, guard=guard.text,
                       guard_rail=guard.id)
    gain = expected_gain(flag, weight)
    spec = CATALOG.get(flag.id)
    occupancy = spec is not None and spec.step == "occupancy"  # the seeds: don't chase it
    if found == "info" and not flag.guard and not occupancy and gain is not None and (
        gain >= t.gain_warning_share
    ):
        return evolved(flag, severity=Severity.WARNING, found_severity=found)
    return evolved(flag, severity=found, found_severity=found)


def weigh_flags(
    flags: tuple[Flag, ...], weight: float, what: str, t: Thresholds = DEFAULT_THRESHOLDS
) -> tuple[tuple[Flag, ...], GuardRail | None]:
    """Every flag weighed by ``weight``, and the minor-share guard rail when it applies (only
    when a flag was raised: a kernel without flags needs no rail)."""
    guard = minor_share_guard(weight, what, t) if weight < t.minor_time_share else None
    out = tuple(weighed(f, weight, guard, t) for f in flags)
    return out, guard if flags else None
