"""A report's string table with what readers work out once per report for its names."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

MetricPlan = Sequence[tuple[str, Sequence[tuple[int, bytes]]]]
"""Metric names, each with the string-table ids to look it up by, in order, and their
``NameId`` tags (see :meth:`Result.first_values`)."""
_NOWHERE = 1 << 62
"""The position of an id the last indexed result did not hold: past any result's end."""


class Placing(NamedTuple):
    """Where a plan's names are looked for in a result (see :meth:`Result.first_values`)."""

    rows: tuple[tuple[str, int, bytes, Sequence[tuple[int, bytes]]], ...]
    """(name, where ``positions`` places its first id, that id's tag, its ids with their
    tags) of each name."""
    names: tuple[str, ...]
    tags: tuple[bytes, ...]
    """The tag of each name's first id."""
    getter: Callable[[Any], tuple[bytes, ...]] | None
    """The entries at every name's position, at once; None when a name is not placed (or
    the plan has fewer than two names)."""
    last: int
    """The furthest of those positions."""


def placing(plan: MetricPlan, positions: Mapping[int, int]) -> Placing:
    """:class:`Placing` of ``plan`` by ``positions`` (the ids' places in the last result
    indexed whole)."""
    rows = tuple((name, positions.get(ids[0][0], _NOWHERE), ids[0][1], ids)
                 for name, ids in plan)
    spots = [row[1] for row in rows]
    bulk = len(rows) >= 2 and _NOWHERE not in spots
    return Placing(
        rows, tuple(row[0] for row in rows), tuple(row[2] for row in rows),
        operator.itemgetter(*spots) if bulk else None, max(spots, default=-1),
    )


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
        self.own_plans: dict[tuple[tuple[str, ...], ...], Any] = {}
        """Plans of groups of names looked up by their own ids alone, each with the names of
        each group the string table holds (``Result.holding_each``)."""
        self.positions: dict[int, int] = {}
        """Where the last result indexed whole held each metric id (see Result.entry)."""
        self.placed: dict[int, tuple[Any, dict[int, int], Placing]] = {}
        """Where each plan's names are placed, by the plan's id: (the plan, the
        ``positions`` it was placed by, its :class:`Placing`); see ``Result.first_values``."""
        self.slots: dict[tuple[Any, ...], Any] = {}
        """Each plan's Metrics by encoded entry (see ``metrics.read_metrics``)."""
        self.slotted = 0
        """How many Metrics ``slots`` holds (all are forgotten at a bound)."""
        self.values: dict[bytes, Any] = {}
        """The value of each encoded MetricResult :meth:`Result.first_values` decoded."""
        self.rules: dict[bytes, Any] = {}
        """What readers made of each encoded rule result (see ``detail.read_rules``)."""
        self.last_rules: list[tuple[bytes, Any]] = []
        """The encoded rule results ``detail.read_rules`` last read, each with its messages,
        in order (compared first: launches of one kernel repeat them in place)."""
        self.rule_headlines: dict[bytes, Any] = {}
        """The message headlines of each encoded rule result read for them alone."""
        self.rule_ids: dict[bytes, str] = {}
        """The rule identifier of each encoded rule result read for it alone."""
        self.rule_bytes: dict[bytes, bytes] = {}
        """One object of each encoded rule result that list summaries hold (launches of one
        kernel repeat them; see ``rule_results.RuleResults``)."""
        self.wanted: dict[tuple[Any, ...], Any] = {}
        """The metrics a detail reads for each section reading, header metrics held and
        breakdowns (see ``detail``)."""
        self.last_sections: tuple[Any, Any] | None = None
        """The encoded sections ``detail.section_reading`` last read
        (``Result.section_bytes``), with its reading."""
        self.last_section_ids: tuple[tuple[bytes, ...], frozenset[str]] | None = None
        """The encoded sections ``Result.section_ids`` last read, with their identifiers."""
        self.breakdowns: dict[tuple[tuple[str, Any], ...], Any] = {}
        """The parts of each Speed Of Light breakdown text (see ``detail``)."""
        self.last_breakdowns: tuple[Any, Any] | None = None
        """The breakdowns' entries ``detail`` last read them from, with their parts."""
        self.sections: dict[tuple[bytes, ...], Any] = {}
        """What readers made of each encoded list of sections (see ``detail``)."""
