"""The diff's headline: the compared kernels' time before and after, on a basis that holds.

- ``total``: both sides ran as many kernel instances, so their summed times compare;
- ``per instance``: the counts differ (a run of more steps, a capture's extra launches), so
  the summed times would compare runs of different lengths: the average time per kernel
  instance is compared instead;
- ``unpaired``: nothing of one side could be paired with the other (no kernel pair, no kernel
  name on both timelines): the two inputs are not the same program, there is no verdict, and
  ``--fail-if-slower`` does not judge it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from kernelscope.core.jsonsafe import attributes
from kernelscope.kinds.ncu.analysis.metric_changes import change_pct, speedup

TOTAL = "total"
PER_INSTANCE = "per instance"
UNPAIRED = "unpaired"


class Timed(ABC):
    """Something timed before and after (a kernel pair, a regression, the headline): its change
    and speedup, both read from the two times ``compared_ns`` gives."""

    @abstractmethod
    def compared_ns(self) -> tuple[float | None, float | None]:
        """(before, after) in ns, the times compared; None for a side that has none."""

    @property
    def change_pct(self) -> float | None:
        """The time's change in % (negative: faster); None when it cannot be said."""
        return change_pct(*self.compared_ns())

    @property
    def speedup(self) -> float | None:
        """before / after (above 1: faster after)."""
        return speedup(*self.compared_ns())


@dataclass(frozen=True)
class Summed(Timed):
    before_ns: float
    after_ns: float
    before_count: int
    after_count: int
    paired: int
    """Kernel pairs (a kernel diff) or kernel names on both timelines (a timeline diff)."""

    @property
    def basis(self) -> str:
        if not self.paired:
            return UNPAIRED
        return TOTAL if self.before_count == self.after_count else PER_INSTANCE

    def compared_ns(self) -> tuple[float | None, float | None]:
        """Both sides on the basis (ns): the totals, or the times per instance; (None, None)
        when unpaired."""
        if self.basis == UNPAIRED:
            return None, None
        if self.basis == PER_INSTANCE:
            return (_per_instance(self.before_ns, self.before_count),
                    _per_instance(self.after_ns, self.after_count))
        return self.before_ns, self.after_ns

    def to_dict(self) -> dict[str, Any]:
        return {
            **attributes(self, "before_ns", "after_ns", "before_count", "after_count", "basis"),
            "before_per_instance_ns": _per_instance(self.before_ns, self.before_count),
            "after_per_instance_ns": _per_instance(self.after_ns, self.after_count),
            "change_pct": self.change_pct,
        }


def _per_instance(total: float, count: int) -> float | None:
    return total / count if count else None
