"""The numbers the join of a timeline with a kernel report compares against, each with its
reason (the model: ncu's ``kinds.ncu.analysis.diagnosis.thresholds.Thresholds``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class JoinThresholds:
    """The thresholds of the join's ranking."""

    many_per_launch: int = 10
    """Timeline instances per profiled launch from which a family's varying durations weaken
    its estimate (one launch stands for ten or more others)."""
    varying_cv: float = 0.25
    """Coefficient of variation of a family's instance durations above which they count as
    varying (the profiled launch may not be typical of them)."""
    step_min_instances: int = 3
    """A numbered NVTX range repeated fewer times than this is not a training or inference
    step, so its first instance is not looked at as a warm-up."""
    warmup_factor: float = 2.0
    """A first step longer than this many times the median of the others is a warm-up
    (start-up cost a longer run amortises)."""
    duration_apart: float = 2.0
    """A family whose time per launch on the timeline and duration in its kernel report are
    more than this many times apart (either way) is not explained by the report: its headroom
    is not applied (``duration_check``)."""


JOIN_THRESHOLDS = JoinThresholds()
