"""A launch's NCU rule results as its list summary holds them: read when first asked for.

The kernel list reads a summary for every launch, and the diagnosis asks only for the
messages of the few rules that mirror the flags it raises. The messages of every rule are
made into ``RuleResult`` objects (~5 µs a message) only when something reads them all; a
reader of some rules (:meth:`RuleResults.of_rules`) makes only theirs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any, NamedTuple, TypeVar, overload

from kernelscope.kinds.ncu.model.detail import MAX_KNOWN_RULES, RULE_MESSAGE_TYPES, rule_messages
from kernelscope.kinds.ncu.model.file_format.result import RULE_IDENTIFIER, RULE_RESULT, Result
from kernelscope.kinds.ncu.model.file_format.schema import decode
from kernelscope.kinds.ncu.model.model import RuleResult

Kept = TypeVar("Kept")


class RuleHeadline(NamedTuple):
    """What a rule message's estimated speedup is read with (``RuleResult``'s fields of the
    same names): its rule, the rule's name, the message's title and its speedup (%)."""

    rule: str
    name: str
    title: str
    speedup_pct: float | None


def rule_headlines(result: Any) -> tuple[RuleHeadline, ...]:
    """The headline of each message :func:`detail.rule_messages` makes of a decoded rule
    result, in the same order, without the message's text."""
    found = []
    for item in result.body.items:
        if not item.HasField("message"):
            continue
        message = item.message
        if RULE_MESSAGE_TYPES.get(int(message.type)) is None:
            continue
        speed = item.speedup
        has_speed = item.HasField("speedup") and speed.HasField("value")
        found.append(RuleHeadline(result.identifier, result.display_name, message.name,
                                  float(speed.value) if has_speed else None))
    return tuple(found)


class RuleResults(Sequence[RuleResult]):
    """The rule results of one launch, one per message the CLI prints (as ``read_rules``
    reads them), kept encoded until asked for. Equal to the tuple of the same messages."""

    __slots__ = ("_encoded", "_ids", "_known", "_known_headlines", "_known_ids", "_read",
                 "_where")

    def __init__(self, action: Result) -> None:
        table = action.names_table
        shared = table.rule_bytes
        if len(shared) >= MAX_KNOWN_RULES:
            shared.clear()
        self._encoded: tuple[bytes, ...] = tuple(
            shared.setdefault(data, data) for data in action.encoded_rule_results()
        )
        """The encoded rule results, one object for launches that store the same bytes."""
        self._known: dict[bytes, tuple[RuleResult, ...]] = table.rules
        """The report's messages of each encoded rule result (what ``read_rules`` keeps)."""
        self._known_headlines: dict[bytes, tuple[RuleHeadline, ...]] = table.rule_headlines
        """The report's message headlines of each encoded rule result read for them alone."""
        self._known_ids: dict[bytes, str] = table.rule_ids
        """The report's rule identifier of each encoded rule result read for it alone."""
        self._where = action.where
        self._read: tuple[RuleResult, ...] | None = None
        self._ids: tuple[str, ...] | None = None

    def _messages(self, data: bytes) -> tuple[RuleResult, ...]:
        return _remembered(self._known, data, lambda: tuple(
            rule_messages(decode(RULE_RESULT, data, self._where))))

    def _all(self) -> tuple[RuleResult, ...]:
        if self._read is None:
            self._read = tuple(m for data in self._encoded for m in self._messages(data))
        return self._read

    def of_rules(self, rules: Collection[str]) -> Iterator[RuleResult]:
        """The messages of the rules named in ``rules`` (identifiers), in order: those alone
        are made when the others were not read."""
        if self._read is not None:
            yield from (m for m in self._read if m.rule in rules)
            return
        for data, identifier in zip(self._encoded, self._identifiers(), strict=True):
            if identifier in rules:
                yield from self._messages(data)

    def headlines_of(self, rules: Collection[str]) -> Iterator[RuleResult | RuleHeadline]:
        """The messages of the rules named in ``rules``, in order, as :meth:`of_rules` gives
        them where they are made already, else their headlines alone (what an estimated
        speedup is read with: the diagnosis of every launch of the list reads a few)."""
        if self._read is not None:
            yield from (m for m in self._read if m.rule in rules)
            return
        for data, identifier in zip(self._encoded, self._identifiers(), strict=True):
            if identifier in rules:
                messages = self._known.get(data)
                yield from messages if messages is not None else self._headlines(data)

    def _headlines(self, data: bytes) -> tuple[RuleHeadline, ...]:
        return _remembered(self._known_headlines, data, lambda: rule_headlines(
            decode(RULE_RESULT, data, self._where)))

    def _identifiers(self) -> tuple[str, ...]:
        """Each encoded rule result's rule identifier: its first field alone decoded
        (``RuleIdentifier``), once per report for each encoded rule result."""
        if self._ids is None:
            known = self._known_ids
            if len(known) >= MAX_KNOWN_RULES:
                known.clear()
            found = []
            for data in self._encoded:
                identifier = known.get(data)
                if identifier is None:
                    identifier = known[data] = decode(RULE_IDENTIFIER, data, self._where).identifier
                found.append(identifier)
            self._ids = tuple(found)
        return self._ids

    @overload
    def __getitem__(self, index: int) -> RuleResult: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[RuleResult]: ...
    def __getitem__(self, index: int | slice) -> RuleResult | Sequence[RuleResult]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[RuleResult]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RuleResults):
            return self._all() == other._all()
        return isinstance(other, tuple) and self._all() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._all())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the plain tuple of its messages (the report's cache stays here)."""
        return tuple, (self._all(),)


def _remembered(known: dict[bytes, Kept], data: bytes, make: Callable[[], Kept]) -> Kept:
    """``known[data]``, made by ``make`` the first time (the report's memo of each encoded
    rule result, emptied once it holds ``MAX_KNOWN_RULES``)."""
    found = known.get(data)
    if found is None:
        if len(known) >= MAX_KNOWN_RULES:
            known.clear()
        found = known[data] = make()
    return found
