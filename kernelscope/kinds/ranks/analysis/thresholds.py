"""The numbers the per-rank analysis compares against, each with its reason (the model:
ncu's ``kinds.ncu.analysis.diagnosis.thresholds.Thresholds``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RanksThresholds:
    """The thresholds of the ranks' families, steps and straggler."""

    # -- kernel families slower on one rank ------------------------------------------------
    slow_ratio: float = 1.10
    """A family whose median on its slowest rank is at least this times the other ranks'
    median is slow there (10 %: more than run-to-run noise of a kernel)."""
    min_share: float = 0.01
    """A family under this share of the compute time is not flagged, however uneven."""
    min_instances: int = 3
    """A family with fewer instances than this on its slowest rank has no median to trust."""

    # -- steps from the repeating kernel sequence ------------------------------------------
    min_repeats: int = 3
    """An anchor kernel must repeat at least this often for its period to be a step."""
    match_share: float = 0.8
    """The kernel sequence must repeat with the anchor's period on at least this share of
    its positions to count as steps."""

    # -- the straggler ---------------------------------------------------------------------
    min_late_share: float = 0.01
    """A rank later than the others by less than this share of a step is not a straggler."""
    min_late_ns: int = 1_000
    """Nor one later by less than this (1 us: below the alignment of the ranks' clocks)."""


RANKS_THRESHOLDS = RanksThresholds()
