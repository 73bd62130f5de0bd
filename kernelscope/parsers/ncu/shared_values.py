"""One object for each value many kernels' summaries hold alike.

A launch of the same kernel as the last one carries the same metric names, units, launch
configuration, device attributes and often the same NCU rule messages. The child processes
that read a pass share the equal ones among the summaries they send (``list_worker``), so a
batch pickles each such value once: the batches are smaller to send and quicker to load, and
a large report's summaries take half the memory in the process that keeps them (~11 KB a
kernel before, for a report of LaunchStats only).
"""

from __future__ import annotations

from typing import Any

from kernelscope.parsers.ncu.metrics import Metric
from kernelscope.parsers.ncu.model import KernelSummary, RuleResult


class ValueSharer:
    """Replace a summary's values by equal ones seen before (all of them immutable). Equal
    means printed the same: ``1 == 1.0`` and ``0.0 == -0.0``, but an export writes them
    differently, so a metric's value is matched with its type and, for a float, its
    ``repr`` (rules likewise: their fields, the numbers by ``repr``)."""

    def __init__(self) -> None:
        self._seen: dict[Any, Any] = {}

    def _metric(self, metric: Metric) -> Metric:
        value = metric.value
        kind = type(value)
        key = (Metric, metric.name, metric.unit, metric.label, kind,
               repr(value) if kind is float else value)
        return self._seen.setdefault(key, metric)  # type: ignore[no-any-return]

    def _rule(self, rule: RuleResult) -> RuleResult:
        key = (RuleResult, rule.rule, rule.name, rule.section, rule.type, rule.title,
               rule.message, rule.speedup_type, repr(rule.speedup_pct), repr(rule.focus_metrics))
        return self._seen.setdefault(key, rule)  # type: ignore[no-any-return]

    def _text(self, value: str) -> str:
        return self._seen.setdefault(value, value)  # type: ignore[no-any-return]

    def summary(self, summary: KernelSummary) -> KernelSummary:
        """Share the summary's metrics, rules, sections, names and row keys in place."""
        text, metric = self._text, self._metric
        summary.metrics = {text(name): metric(m) for name, m in summary.metrics.items()}
        if summary.rules:
            rules = tuple(self._rule(rule) for rule in summary.rules)
            summary.rules = self._seen.setdefault((tuple, *map(id, rules)), rules)
        summary.sections = self._seen.setdefault(("sections", summary.sections), summary.sections)
        summary.row = {
            text(key): text(value) if isinstance(value, str) else value
            for key, value in summary.row.items()
        }
        summary.mangled = text(summary.mangled)
        if summary.nvtx is not None:
            summary.nvtx = text(summary.nvtx)
        return summary

    def result(self, item: Any) -> Any:
        """A pass's result with its summary shared: a KernelSummary, or a (summary, analysis)
        pair; anything else (a whole KernelDetail) is returned as it is."""
        if isinstance(item, KernelSummary):
            return self.summary(item)
        if isinstance(item, tuple) and item and isinstance(item[0], KernelSummary):
            self.summary(item[0])
        return item
