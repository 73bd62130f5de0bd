"""What a report remembers of each plan's entries where its launches store them alike (see
``metrics.read_metrics``): each name's Metrics by encoded entry, and the :class:`Shape` of
its numbers, so that the entries no launch stored before are read with one ``struct`` call."""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping, Sequence
from itertools import compress
from operator import eq
from typing import Any, NamedTuple

from kernelscope.kinds.ncu.model.file_format.bag import fixed_values
from kernelscope.kinds.ncu.model.file_format.names_table import MetricPlan, Names

MAX_PLANS = 64
"""The plans (and their Slots) a report keeps, per kind."""
MAX_MADE = 65_536
"""The Metrics a report's plans remember by entry, all together."""
MAX_SHAPED = 64
"""The :class:`Shaped` a plan keeps, and the positions missed once it remembers."""
MAX_PER_NAME = 64
"""The entries a plan remembers for one name."""


class Shaped(NamedTuple):
    """How a launch's missing entries (those no launch stored before) are read when each has
    its name's Shape: the same positions as the launch before's, for which this was made."""

    at: list[int]
    """The positions of the entries."""
    sizes: list[int]
    prefixes: tuple[bytes, ...]
    suffixes: tuple[bytes, ...]
    unpack: Callable[[bytes], tuple[Any, ...]]
    """The prefix, number and suffix of each entry, from the entries joined, at once."""
    names: list[str]
    units: list[str]
    labels: list[str]


class Slots:
    """One plan's Metrics by encoded entry, one dict per name, and what is known of each
    name's entries."""

    __slots__ = ("by_name", "codes", "labels", "labels_of", "last", "made", "missed", "names",
                 "open", "plan", "prefixes", "sizes", "skips", "suffixes", "units")

    def __init__(self, plan: MetricPlan, labels: Mapping[str, str] | None) -> None:
        self.plan = plan
        self.labels = labels
        self.names = [name for name, _ in plan]
        self.labels_of = [labels.get(name, "") if labels else "" for name in self.names]
        self.by_name: list[dict[bytes, Any]] = [{} for _ in plan]
        self.open = [True] * len(plan)
        """Whether each name's dict remembers more entries (MAX_PER_NAME)."""
        self.skips = False
        """Whether an entry without a single value was met (its name is left out)."""
        self.prefixes = [b""] * len(plan)
        self.suffixes = [b""] * len(plan)
        self.sizes = [-1] * len(plan)
        self.codes = [""] * len(plan)
        self.units = [""] * len(plan)
        """The :class:`Shape` of each name's first number held alone (size -1, which no
        entry has, until one is met) and that number's unit: set once."""
        self.last: Shaped | None = None
        """The :class:`Shaped` a launch was last read with."""
        self.made: dict[tuple[int, ...], Shaped] = {}
        """Each :class:`Shaped` made, by its positions (see :meth:`shaped`)."""
        self.missed: set[tuple[int, ...]] = set()
        """The positions launches missed once, without a :class:`Shaped` made for them."""

    def shaped(self, missing: list[int]) -> Shaped | None:
        """:class:`Shaped` of the entries at ``missing`` when each name there has a Shape
        and a launch before missed the same positions: kept by them (MAX_SHAPED at most),
        as launches of several kernels in turn each miss their own (those whose names each
        repeat a few values miss others: positions missed once get none)."""
        found = self.known_shaped(missing)
        if found is not None:
            return found
        key = tuple(missing)
        if key not in self.missed:
            if len(self.missed) >= MAX_SHAPED:
                self.missed.clear()
            self.missed.add(key)
            return None
        found = self._made(missing)
        if found is None:
            return None
        if len(self.made) >= MAX_SHAPED:
            self.made.clear()
        self.made[key] = self.last = found
        return found

    def known_shaped(self, missing: list[int]) -> Shaped | None:
        """The :class:`Shaped` made for ``missing`` before (:meth:`shaped`), None when none
        was; the latest one read with compared first."""
        last = self.last
        if last is not None and last.at == missing:
            return last
        found = self.made.get(tuple(missing))
        if found is not None:
            self.last = found
        return found

    def _made(self, missing: list[int]) -> Shaped | None:
        sizes = list(map(self.sizes.__getitem__, missing))
        if min(sizes, default=-1) < 0:
            return None
        codes = "".join(map(self.codes.__getitem__, missing))
        return Shaped(
            missing, sizes, tuple(map(self.prefixes.__getitem__, missing)),
            tuple(map(self.suffixes.__getitem__, missing)), struct.Struct("<" + codes).unpack,
            list(map(self.names.__getitem__, missing)), list(map(self.units.__getitem__, missing)),
            list(map(self.labels_of.__getitem__, missing)),
        )

    def read_shaped(self, missing: list[int], found: list[bytes]) -> tuple[Any, ...] | None:
        """The numbers of ``found`` (the entries at ``missing``) when each has its name's
        Shape (its length, then its prefix and suffix read with the number, compared all
        at once), else None."""
        last = self.shaped(missing)
        if last is not None:
            if list(map(len, found)) != last.sizes:
                return None
            read = last.unpack(b"".join(found))
            prefixes, suffixes = last.prefixes, last.suffixes
        else:
            if list(map(len, found)) != list(map(self.sizes.__getitem__, missing)):
                return None
            read = fixed_values(found, map(self.codes.__getitem__, missing))
            prefixes = tuple(map(self.prefixes.__getitem__, missing))
            suffixes = tuple(map(self.suffixes.__getitem__, missing))
        if read[0::3] != prefixes or read[2::3] != suffixes:
            return None
        return read[1::3]

    def each_shaped(self, missing: list[int], found: list[bytes]) -> list[bool]:
        """Whether each of ``found`` (the entries at ``missing``) has its name's Shape."""
        return list(map(all, zip(map(eq, map(len, found), map(self.sizes.__getitem__, missing)),
                                 map(bytes.startswith, found,
                                     map(self.prefixes.__getitem__, missing)),
                                 map(bytes.endswith, found,
                                     map(self.suffixes.__getitem__, missing)), strict=True)))

    def remember(self, names: Names, datas: Sequence[bytes], read: list[int],
                 metrics: list[Any]) -> None:
        """Remember the Metrics of the entries at ``read`` by their bytes where their
        names' dicts have room; the report's plans forget them all at MAX_MADE (launches
        that each hold values of their own would otherwise add to them forever)."""
        added = 0
        for at in compress(read, map(self.open.__getitem__, read)):
            known = self.by_name[at]
            known[datas[at]] = metrics[at]
            added += 1
            if len(known) >= MAX_PER_NAME:
                self.open[at] = False
        names.slotted += added
        if names.slotted >= MAX_MADE:
            names.slots.clear()
            names.slotted = 0


def slots_of(names: Names, plan: MetricPlan, labels: Mapping[str, str] | None,
             facts: tuple[tuple[int, ...] | None, bool]) -> Slots:
    """The report's :class:`Slots` of ``plan`` read with ``labels`` under ``facts``."""
    known: dict[tuple[Any, ...], Slots] = names.slots
    key = (id(plan), id(labels), facts)
    slots = known.get(key)
    if slots is None or slots.plan is not plan or slots.labels is not labels:
        if len(known) >= MAX_PLANS:
            known.clear()
        slots = known[key] = Slots(plan, labels)
    return slots
