"""A report's string table with what readers work out once per report for its names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class Names:
    """A report's string table with each name's ids (a name may repeat in a later table)."""

    def __init__(self, strings: Sequence[str]) -> None:
        self.strings = strings
        ids: dict[str, tuple[int, ...]] = {}
        for i, name in enumerate(strings):
            ids[name] = (*ids.get(name, ()), i)
        self.ids = ids
        self.plans: dict[tuple[str, ...], Any] = {}
        """What readers work out once per report for a set of metric names (their ids)."""
        self.positions: dict[int, int] = {}
        """Where the last result indexed whole held each metric id (see Result.entry)."""
        self.placed: dict[int, tuple[Any, dict[int, int], tuple[Any, ...]]] = {}
        """Each plan's names with where ``positions`` places their first id, by the plan's
        id: (the plan, the ``positions`` it was placed by, the placed names); see
        ``Result.first_values``."""
        self.values: dict[bytes, Any] = {}
        """The value of each encoded MetricResult :meth:`Result.first_values` decoded."""
        self.rules: dict[bytes, Any] = {}
        """What readers made of each encoded rule result (see ``detail.read_rules``)."""
        self.rule_headlines: dict[bytes, Any] = {}
        """The message headlines of each encoded rule result read for them alone."""
        self.rule_ids: dict[bytes, str] = {}
        """The rule identifier of each encoded rule result read for it alone."""
        self.rule_bytes: dict[bytes, bytes] = {}
        """One object of each encoded rule result that list summaries hold (launches of one
        kernel repeat them; see ``rule_results.RuleResults``)."""
        self.sections: dict[tuple[bytes, ...], Any] = {}
        """What readers made of each encoded list of sections (see ``detail``)."""
