"""What a join's row rests on, as numbers: one record per reading, worded only by
``kernelscope.kinds.join.render.join_evidence`` (the screen, the Markdown and the JSON say the
same sentence)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class ProfiledLaunches:
    """How many of a family's launches on the timeline were profiled."""

    profiled: int
    instances: int


@dataclass(frozen=True)
class FamilyHeadroom:
    """The family's headroom: the mean of ``launches`` launches' headroom (``low`` to
    ``high``) weighted by their durations."""

    headroom: float
    launches: int
    low: float
    high: float


@dataclass(frozen=True)
class LaunchCeiling:
    """The longest launch's distance to its nearest ceiling (``ceiling_by`` names it)."""

    kernel_id: int
    ceiling_by: str
    ceiling: float


@dataclass(frozen=True)
class LaunchSpeedup:
    """NCU's estimated speedup for the longest launch, by its rule; ``capped`` when it is over
    the ceiling distance (the headroom then uses the distance)."""

    rule: str | None
    speedup: float
    capped: bool


@dataclass(frozen=True)
class RangeCoverage:
    """Per NVTX range (None: outside any): the family's instances there and how many of them
    were profiled."""

    ranges: tuple[tuple[str | None, int, int], ...]


@dataclass(frozen=True)
class InstanceSpread:
    """A family's instances and the spread of their durations."""

    instances: int
    median_ns: float
    min_ns: int
    max_ns: int


@dataclass(frozen=True)
class Representative:
    """The instance the ncu command profiles (numbered from 1), its duration and range."""

    instance: int
    duration_ns: int
    nvtx: str | None


@dataclass(frozen=True)
class IdleGaps:
    """The gaps one cause of idle time sums."""

    gaps: int
    total_ns: int


@dataclass(frozen=True)
class TinyStretches:
    """Kernels shorter than ``tiny_ns`` in launch-bound stretches, with the medians of their
    durations and of the gaps between them."""

    kernels: int
    stretches: int
    tiny_ns: int
    median_kernel_ns: float
    median_gap_ns: float


@dataclass(frozen=True)
class SlowFirstStep:
    """The first step (an NVTX range) that lasts much longer than the rest."""

    name: str
    duration_ns: int


@dataclass(frozen=True)
class CopyTime:
    """The copies and memsets on the timeline and the GPU time they take."""

    copies: int
    memsets: int
    total_ns: int


@dataclass(frozen=True)
class UnifiedMigrations:
    """The unified-memory migrations on the timeline (``to_device``: Host-to-Device,
    ``to_host``: Device-to-Host) and the GPU time they take."""

    migrations: int
    to_device: int
    to_host: int
    bytes: int
    total_ns: int


JoinEvidence = (
    ProfiledLaunches | FamilyHeadroom | LaunchCeiling | LaunchSpeedup | RangeCoverage
    | InstanceSpread | Representative | IdleGaps | TinyStretches | SlowFirstStep | CopyTime
    | UnifiedMigrations
)


def evidence_dict(evidence: JoinEvidence) -> dict[str, Any]:
    """A reading as data: its ``kind`` (the record's name) and its fields."""
    return {"kind": type(evidence).__name__, **asdict(evidence)}
