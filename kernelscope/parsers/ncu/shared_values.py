"""One object for each value many kernels' summaries hold alike.

The summaries of a pass arrive from the children as pickles, each batch with its own copies of
every string, metric and rule: a launch of the same kernel as the last one carries the same
metric names, units, launch configuration, device attributes and often the same NCU rule
messages. Sharing the equal ones halves what a large report's summaries take in the process
that keeps them (~11 KB a kernel before, for a report of LaunchStats only).
"""

from __future__ import annotations

from typing import Any

from kernelscope.parsers.ncu.model import KernelSummary


class ValueSharer:
    """Replace a summary's values by equal ones seen before (all of them immutable). Equal
    means printed the same: metrics and rules are matched by their ``repr``, since ``1 ==
    1.0`` and ``0.0 == -0.0`` but an export writes them differently."""

    def __init__(self) -> None:
        self._seen: dict[Any, Any] = {}

    def _by_repr(self, value: Any) -> Any:
        return self._seen.setdefault((type(value), repr(value)), value)

    def _text(self, value: str) -> str:
        return self._seen.setdefault(value, value)  # type: ignore[no-any-return]

    def summary(self, summary: KernelSummary) -> KernelSummary:
        """Share the summary's metrics, rules, sections, names and row keys in place."""
        text, by_repr = self._text, self._by_repr
        summary.metrics = {text(name): by_repr(m) for name, m in summary.metrics.items()}
        summary.rules = by_repr(tuple(by_repr(rule) for rule in summary.rules))
        summary.sections = self._seen.setdefault(("sections", summary.sections), summary.sections)
        summary.row = {
            text(key): text(value) if isinstance(value, str) else value
            for key, value in summary.row.items()
        }
        summary.mangled = text(summary.mangled)
        if summary.nvtx is not None:
            summary.nvtx = text(summary.nvtx)
        return summary
