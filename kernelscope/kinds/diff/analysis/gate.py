"""``diff --fail-if-slower PCT``: did the compared kernels' time regress by more than PCT,
and which kernels did?

The time is the diff's headline (``summed.Summed``): the summed time of the kernels the diff
compares (``-k`` chooses a family, or any set of kernels by name), or their time per instance
where the two sides ran a different number of instances. A kernel regressed when its time grew
by more than PCT (a timeline's family: per instance where its counts differ), or when it is
new (only in the after report). Two inputs with nothing paired get no verdict: the gate
neither passes nor fails them (``GateResult.unpaired``; the CLI exits 2, as for bad input).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelscope.kinds.diff.analysis.kernels import KernelDiff
from kernelscope.kinds.diff.analysis.summed import UNPAIRED, Summed, Timed
from kernelscope.kinds.ncu.analysis.metric_changes import change_pct

if TYPE_CHECKING:
    from kernelscope.kinds.diff.analysis.timelines import TimelineDiff


@dataclass(frozen=True)
class Regressed(Timed):
    """What got slower: one entry per kernel (or family), with its times and change."""

    name: str
    before_ns: float | None
    after_ns: float | None

    def compared_ns(self) -> tuple[float | None, float | None]:
        return self.before_ns, self.after_ns


@dataclass(frozen=True)
class GateResult:
    limit_pct: float
    summed: Summed
    """The headline the verdict is on (its basis: total, or per instance)."""
    regressed: tuple[Regressed, ...]

    @property
    def unpaired(self) -> bool:
        """Nothing could be paired: no verdict (neither passed nor failed)."""
        return self.summed.basis == UNPAIRED

    @property
    def failed(self) -> bool:
        """True when the compared time grew by more than the limit."""
        if self.unpaired:
            return False
        if self.summed.before_ns <= 0:
            return self.summed.after_ns > 0 and self.limit_pct >= 0 and bool(self.regressed)
        change = self.summed.change_pct
        return change is not None and change > self.limit_pct


def _slower(before: float | None, after: float | None, limit: float) -> bool:
    if after is None:
        return False
    if before is None:
        return True
    change = change_pct(before, after)
    return change is not None and change > limit


def check_slower(diff: KernelDiff | TimelineDiff, limit_pct: float) -> GateResult:
    """The gate's verdict on ``diff`` for a limit of ``limit_pct`` %."""
    found: list[Regressed] = []
    if isinstance(diff, KernelDiff):
        for pair in diff.pairs:
            if _slower(pair.before_ns, pair.after_ns, limit_pct):
                name = pair.after.summary.identity.function
                found.append(Regressed(f"{name} (ID {pair.before.id} → {pair.after.id})",
                                       pair.before_ns, pair.after_ns))
        for kernel in diff.unmatched_after:
            if kernel.duration_ns:
                name = kernel.summary.identity.function
                found.append(Regressed(f"{name} (ID {kernel.id}, new)", None,
                                       kernel.duration_ns))
    else:
        for family in diff.families:
            same_count = family.before_count == family.after_count
            before, after = ((family.before_ns, family.after_ns) if same_count
                             else (family.before_avg_ns, family.after_avg_ns))
            if _slower(before, after, limit_pct):
                found.append(Regressed(family.name + ("" if same_count else " (per instance)"),
                                       before, after))
    found.sort(key=lambda r: -((r.after_ns or 0.0) - (r.before_ns or 0.0)))
    return GateResult(limit_pct, diff.summed, tuple(found))
