"""One row of a join: a kernel family of the timeline, or time the GPU spent not running
kernels (``RankedItem``, whose ``to_dict`` is a member of ``kernelscope/join/2``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kernelscope.core.jsonsafe import attributes
from kernelscope.kinds.join.analysis.duration_check import DurationCheck
from kernelscope.kinds.join.analysis.evidence import JoinEvidence, evidence_dict
from kernelscope.kinds.join.analysis.run_weight import RunTopFlag
from kernelscope.kinds.ncu.analysis.diagnosis.result import Flag


@dataclass(frozen=True)
class RankedItem:
    """One row of the ranking: a kernel family of the timeline, or non-kernel time."""

    kind: str
    """``kernel`` or ``idle``."""
    family: str
    """The kernel's demangled name; for non-kernel time, its cause (``launch-overhead``)."""
    title: str
    """A short label: the kernel's function name, or what the time is."""
    total_ns: int
    instances: int
    time_share: float | None
    """Share of the timeline's summed kernel time (kernels only)."""
    wall_share: float | None
    """Share of the timeline's GPU span (first to last operation)."""
    potential_saving_ns: float | None
    """None for a family nobody profiled: unknown."""
    headroom: float | None
    headroom_source: str
    profiled: bool
    ncu_ids: tuple[tuple[int, int], ...] = ()
    bottleneck: str | None = None
    top_flags: tuple[Flag, ...] = ()
    """The longest launch's first flags in the verdict's order, weighed by the run's share
    (``join.render.join_text.top_flags_words`` words them)."""
    lead_flag: Flag | None = None
    """The flag whose remedy is ``remedy`` (the first not guarded)."""
    top_flag: RunTopFlag | None = None
    """The top flag, the rule that chose it and how the run's share weighed its severity."""
    evidence: tuple[JoinEvidence, ...] = ()
    """The readings the row rests on (``join.render.join_evidence`` words them)."""
    weak: str | None = None
    """Why the estimate is weak, when it is."""
    ncu_command: str | None = None
    remedy: str | None = None
    one_time: bool = False
    grid: str | None = None
    block: str | None = None
    nvtx: str | None = None
    matched_by: str | None = None
    timeline_family: int | None = None
    gap: tuple[int, int, int] | None = None
    """(device, start, end) of the longest gap, for non-kernel time."""
    name: str | None = None
    """The demangled name as ``nsys stats`` prints it (kernels)."""
    duration: DurationCheck | None = None
    """A profiled family's time per launch on the timeline against its kernel report's."""

    @property
    def explained(self) -> bool:
        """False where the kernel report's duration is too far from the timeline's for its
        headroom to say what the family's time is worth (``duration_check``)."""
        return self.duration is None or self.duration.explained

    def to_dict(self) -> dict[str, Any]:
        return {
            **attributes(self, "kind", "family", "title", "time_share", "wall_share",
                         "instances", "total_ns", "profiled"),
            "ncu_ids": [list(i) for i in self.ncu_ids],
            "bottleneck": self.bottleneck,
            "top_flags": [_flag_ref(f) for f in self.top_flags],
            "next_flag": _flag_ref(self.lead_flag) if self.lead_flag is not None else None,
            "top_flag": self.top_flag.to_dict() if self.top_flag is not None else None,
            **attributes(self, "headroom", "headroom_source", "potential_saving_ns"),
            "weak_estimate": self.weak,
            "evidence": [evidence_dict(e) for e in self.evidence],
            **attributes(self, "remedy", "one_time", "grid", "block"),
            "nvtx_range": self.nvtx,
            "matched_by": self.matched_by,
            **({"ncu_command": self.ncu_command} if not self.profiled and self.kind == "kernel"
               else {}),
            **(self._duration_dict() if self.profiled and self.kind == "kernel" else {}),
        }

    def _duration_dict(self) -> dict[str, Any]:
        check = self.duration
        return {
            "timeline_ns_per_launch": check.timeline_ns if check else None,
            "report_ns_per_launch": check.report_ns if check else None,
            "duration_ratio": check.ratio if check else None,
            "explained": self.explained,
            "reason": check.reason if check else None,
            "cause": check.cause if check else None,
        }


def _flag_ref(flag: Flag) -> dict[str, Any]:
    """Which flag, at which severity, and whether a guard rail lowered it: the export words
    it (``join.export.join_export.worded``)."""
    return {"id": flag.id, "severity": str(flag.severity), "guarded": bool(flag.guard)}
