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

from typing import Any

from kernelscope.core.kept import handed
from kernelscope.core.severity import Severity
from kernelscope.kinds.ncu.analysis.diagnosis.catalog import CATALOG
from kernelscope.kinds.ncu.analysis.diagnosis.evidence import Evidence, ev
from kernelscope.kinds.ncu.analysis.diagnosis.result import Bottleneck, Flag, GuardRail
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


def weighed(
    flag: Flag, weight: float, guard: GuardRail | None, t: Thresholds = DEFAULT_THRESHOLDS
) -> Flag:
    """``flag`` with its severity weighed by ``weight`` (the share of the time), from the
    severity its check found; ``guard`` is the minor-share guard rail when it applies."""
    fields = flag.__dict__.copy()
    weigh_fields(fields, weight, guard, t)
    return handed(type(flag), fields)


def weigh_fields(
    fields: dict[str, Any], weight: float, guard: GuardRail | None, t: Thresholds
) -> None:
    """Weigh the flag whose fields are ``fields`` (by name), in place: its severity from the
    one its check found (kept as ``found_severity``), lowered to info under ``guard`` (the
    rail named where the flag had none), else raised to a warning where NCU's estimate of
    the gain is worth ``gain_warning_share`` of the report's time (never for occupancy: the
    seeds say not to chase it). In place, as every flag of every launch an export weighs."""
    found = fields["found_severity"] or fields["severity"]
    fields["found_severity"] = found
    if guard is not None:
        fields["severity"] = Severity.INFO
        if not fields["guard"]:
            fields["guard"] = guard.text
            fields["guard_rail"] = guard.id
        return
    speedup = fields["speedup"]
    if speedup is not None and found == "info" and not fields["guard"] and (
        speedup / 100.0 * weight >= t.gain_warning_share  # the gain, of the report's time
    ):
        spec = CATALOG.get(fields["id"])
        if spec is None or spec.step != "occupancy":
            fields["severity"] = Severity.WARNING
            return
    fields["severity"] = found


def weighed_parts(
    flags: list[dict[str, Any]], bottleneck: Bottleneck, guards: tuple[GuardRail, ...],
    notes: tuple[str, ...], share: Evidence, weight: float, what: str,
) -> dict[str, Any]:
    """The fields of a diagnosis that step 0 changes, weighed by ``weight`` (``what`` has that
    share of the time, ``share`` its evidence): the flags (each given by its fields, weighed
    in place, then made), the bottleneck with ``share`` first, and, under
    ``minor_time_share``, the minor-share guard rail (only where a flag was raised: a kernel
    without flags needs no rail) and note."""
    t = DEFAULT_THRESHOLDS
    minor = minor_share_guard(weight, what, t) if weight < t.minor_time_share else None
    for fields in flags:
        weigh_fields(fields, weight, minor, t)
    for guard in guards:  # a rail of an earlier weighing (most kernels have none)
        if guard.id == MINOR_TIME_SHARE:
            guards = tuple(g for g in guards if g.id != MINOR_TIME_SHARE)
            break
    if minor is not None:
        guards = (*guards, minor) if flags else guards
        notes = (f"{what} {weight:.2%} of the profiled GPU time.", *notes)
    return {
        "bottleneck": Bottleneck(bottleneck.label, bottleneck.summary,
                                 (share, *bottleneck.evidence), bottleneck.decided_by,
                                 bottleneck.collect),
        "flags": tuple([handed(Flag, fields) for fields in flags]),
        "guard_rails": guards,
        "notes": notes,
    }
