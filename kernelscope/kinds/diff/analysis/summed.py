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

from dataclasses import dataclass
from typing import Any

from kernelscope.core.jsonsafe import attributes
from kernelscope.kinds.ncu.analysis.metric_changes import change_pct, speedup

TOTAL = "total"
PER_INSTANCE = "per instance"
UNPAIRED = "unpaired"


@dataclass(frozen=True)
class Summed:
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

    def _value(self, total: float, count: int) -> float | None:
        if self.basis == UNPAIRED:
            return None
        if self.basis == PER_INSTANCE:
            return total / count if count else None
        return total

    @property
    def before_value(self) -> float | None:
        """The before side on the basis (ns): the total, or the time per instance."""
        return self._value(self.before_ns, self.before_count)

    @property
    def after_value(self) -> float | None:
        return self._value(self.after_ns, self.after_count)

    @property
    def change_pct(self) -> float | None:
        """The change on the basis, in %; None when unpaired."""
        return change_pct(self.before_value, self.after_value)

    @property
    def speedup(self) -> float | None:
        return speedup(self.before_value, self.after_value)

    def to_dict(self) -> dict[str, Any]:
        return {
            **attributes(self, "before_ns", "after_ns", "before_count", "after_count", "basis"),
            "before_per_instance_ns": (self.before_ns / self.before_count
                                       if self.before_count else None),
            "after_per_instance_ns": (self.after_ns / self.after_count
                                      if self.after_count else None),
            "change_pct": self.change_pct,
        }
