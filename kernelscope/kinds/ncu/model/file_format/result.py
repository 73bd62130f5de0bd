"""One profiled result of a report, decoded from its message: names, launch, metrics,
sections, rule results and NVTX state, read through kernelscope's own schema.

A kernel launch is a ProfileResult; a replayed range, a command list and a CUDA graph have
their own messages with the same metrics, sections, rules and NVTX state under other field
numbers (the schema names them alike). Metric names are ids into the report's string table.
A metric holds one value (string, float, double, uint32 or uint64) or a list of values keyed
by a correlation id (a PC for source counters, a timestamp for PM sampling, an opcode for
instruction mix).
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Sequence
from typing import Any

from google.protobuf.message import DecodeError

from kernelscope.core.errors import ReportError
from kernelscope.kinds.ncu.model.container import CMDLIST, GRAPH, KERNEL, RANGE, ProcessInfo
from kernelscope.kinds.ncu.model.file_format.metric_ids import ids_of, name_tag
from kernelscope.kinds.ncu.model.file_format.names_table import (
    MetricPlan,
    Names,
    Placing,
    placing,
)
from kernelscope.kinds.ncu.model.file_format.schema import (
    CLASSES,
    SECTIONS_ONLY,
    CmdlistResult,
    GraphResult,
    LeanCmdlistResult,
    LeanGraphResult,
    LeanProfileResult,
    LeanRangeResult,
    MetricResult,
    ProfileResult,
    RangeResult,
    decode,
)

MESSAGE_OF = {KERNEL: ProfileResult, RANGE: RangeResult, CMDLIST: CmdlistResult, GRAPH: GraphResult}
LEAN_OF = {
    KERNEL: LeanProfileResult, RANGE: LeanRangeResult, CMDLIST: LeanCmdlistResult,
    GRAPH: LeanGraphResult,
}
SECTIONS_OF = {
    kind: CLASSES[SECTIONS_ONLY[message.DESCRIPTOR.name]] for kind, message in MESSAGE_OF.items()
}
RULE_RESULT = CLASSES["RuleResult"]
RULE_IDENTIFIER = CLASSES["RuleIdentifier"]
SECTION_ID = CLASSES["SectionId"]
RawValue = float | int | str | None
ABSENT = object()
"""What :meth:`Result.value_if_present` answers for a metric the result does not hold."""
_UNREAD = object()
Placed = tuple[tuple[str, ...], Sequence[bytes], tuple[bytes, ...]]
"""(names, the entries at their places, the tag each entry must start with)."""
MAX_KNOWN_VALUES = 65_536
"""Encoded metrics whose value :meth:`Result.first_values` remembers, per report: launches
repeat many of them byte for byte (launch configuration, device attributes), and a dict
look-up costs far less than decoding."""
MAX_PLACED = 64
"""Plans whose names :meth:`Result._placed` keeps placed, per report."""


class Result:
    """A result of a report, read by metric name. The list's fields come from a lean
    decoding (metrics as a map from string-table id to value, sections by identifier); the
    whole message (instances, section tables, ...) is decoded only when asked for."""

    __slots__ = ("_by_id", "_by_name", "_full", "_section_bytes", "_sections", "_where", "data",
                 "kind", "lean", "names_table", "ncu_version", "process")

    def __init__(self, kind: str, data: bytes, names: Names, process: ProcessInfo,
                 where: str = "A result of the report") -> None:
        self.kind = kind
        self.data = data
        self.names_table = names
        self.process = process
        self._where = where
        self.lean = decode(LEAN_OF[kind], data, where)
        self.ncu_version: tuple[int, ...] | None = None
        """The Nsight Compute that wrote the report, ``(2019,)`` for the pre-2020 format."""
        self._full: Any = None
        self._sections: Sequence[Any] | None = None
        self._section_bytes: tuple[bytes, ...] | None = None
        self._by_name: dict[str, Any] | None = None
        self._by_id: dict[int, bytes] | None = None

    @property
    def where(self) -> str:
        """What a sentence about the result calls it ("Kernel 3 of …")."""
        return self._where

    @property
    def message(self) -> Any:
        """The whole decoded message (kernelscope's full schema of this kind of result)."""
        if self._full is None:
            self._full = decode(MESSAGE_OF[self.kind], self.data, self._where)
        return self._full

    # -- names and launch -----------------------------------------------------------------
    @property
    def is_kernel(self) -> bool:
        return self.kind == KERNEL

    def names(self) -> tuple[str, str, str]:
        """(function name, demangled name, mangled name) of a kernel; a command list's
        display name for all three; empty for ranges and graphs."""
        m = self.lean
        if self.kind == KERNEL:
            function = m.function_name or m.mangled_name
            return function, m.demangled_name or function, m.mangled_name or function
        if self.kind == CMDLIST and m.display_name:
            return m.display_name, m.display_name, m.display_name
        return "", "", ""

    def dims(self, field: str) -> tuple[int, int, int] | None:
        """A kernel's ``grid_size`` or ``block_size`` (None for other results)."""
        if self.kind != KERNEL or not self.lean.HasField(field):
            return None
        d = getattr(self.lean, field)
        return int(d.x), int(d.y), int(d.z)

    @property
    def context_id(self) -> int | None:
        m = self.lean
        return int(m.context_id) if m.HasField("context_id") else None

    @property
    def stream_id(self) -> int | None:
        m = self.lean
        has = self.kind != RANGE and m.HasField("stream_id")
        return int(m.stream_id) if has else None

    # -- metrics ----------------------------------------------------------------------------
    def entry(self, i: int) -> bytes | None:
        """The encoded MetricResult of string-table id ``i``, None when the result lacks it.
        ncu stores a report's metrics in the same order for the same sections, so the
        position where the report's last indexed result held ``i`` is tried first (its
        ``NameId`` checked); a result lacks ``i`` for sure when its bytes do not hold
        ``NameId = i`` anywhere. Only otherwise is every metric indexed by id (the one
        answer that differs: a result holding ``i`` twice, which no writer does)."""
        return self._entry(i, name_tag(i))

    def _entry(self, i: int, tag: bytes) -> bytes | None:
        """:meth:`entry` of ``i`` whose ``NameId`` encodes as ``tag`` (:func:`name_tag`)."""
        by_id = self._by_id
        if by_id is None:
            entries = self.lean.metric_bytes
            pos = self.names_table.positions.get(i)
            if pos is not None and pos < len(entries):
                data: bytes = entries[pos]
                if data.startswith(tag):
                    return data
            if tag not in self.data:
                return None
            by_id = self.encoded()
        return by_id.get(i)

    def first_values(self, plan: MetricPlan) -> list[tuple[str, RawValue]]:
        """For each (name, its ids with their tags) of ``plan``, the value of the first id
        the result holds (:meth:`entry`, :meth:`stored_value`), by name; a name the result
        lacks, or holds without a single value, is left out. :meth:`entry`'s first try
        inlined, at the position of each name's first id found once per plan and layout
        (:meth:`_placed`)."""
        found: list[tuple[str, RawValue]] = []
        entries = self.lean.metric_bytes
        count = len(entries)
        stored = self.stored_value
        for name, pos, tag, ids in self._placed(plan).rows:
            data = entries[pos] if pos < count and self._by_id is None else None
            if data is None or not data.startswith(tag):
                data = self._first_held(ids)
                if data is None:
                    continue
            value = stored(data)
            if value is not ABSENT:
                found.append((name, value))
        return found

    def placed_entries(self, plan: MetricPlan) -> tuple[tuple[str, ...], Sequence[bytes]] | None:
        """(the names of ``plan``, the encoded MetricResult of each) when the result holds
        every name's first id at the position :meth:`_placed` places it: the entries
        :meth:`first_values` reads, fetched at once. None when one is elsewhere or missing
        (launches of one kernel store their metrics alike; other kernels may not)."""
        found = self.entries_at(plan)
        if found is None or not all(map(bytes.startswith, found[1], found[2])):
            return None
        return found[0], found[1]

    def entries_at(self, plan: MetricPlan) -> Placed | None:
        """:meth:`placed_entries` before its check: the entries at the positions where
        :meth:`_placed` places the names, with the tag each must start with (a reader that
        knows some of the entries by their bytes checks only the others). None when the
        names are not placed or the result has fewer entries."""
        placing = self._placed(plan)
        getter = placing.getter
        if getter is None or self._by_id is not None:
            return None
        entries = self.lean.metric_bytes
        if placing.last >= len(entries):
            return None
        return placing.names, getter(entries), placing.tags

    def stored_value(self, data: bytes) -> Any:
        """The single value of one of the result's encoded MetricResults, :data:`ABSENT`
        when it holds none; remembered per report by the bytes (launches repeat many of
        them byte for byte, and a dict look-up costs far less than decoding)."""
        known = self.names_table.values
        value = known.get(data, _UNREAD)
        if value is _UNREAD:
            if len(known) >= MAX_KNOWN_VALUES:
                known.clear()
            try:
                fields = _METRIC_RESULT(data).metric_value.ListFields()
            except DecodeError:
                raise ReportError(f"{self._where} cannot be read: the report is damaged "
                                  "there.") from None
            value = known[data] = fields[0][1] if fields else ABSENT
        return value

    def _placed(self, plan: MetricPlan) -> Placing:
        """Where the names of ``plan`` are placed (:func:`placing`), worked out again only
        when the positions change."""
        table = self.names_table
        positions = table.positions
        placed = table.placed.get(id(plan))
        if placed is None or placed[0] is not plan or placed[1] is not positions:
            if len(table.placed) >= MAX_PLACED:
                table.placed.clear()
            placed = table.placed[id(plan)] = (plan, positions, placing(plan, positions))
        return placed[2]  # type: ignore[no-any-return]

    def _first_held(self, ids: Sequence[tuple[int, bytes]]) -> bytes | None:
        """:meth:`entry` of the first of ``ids`` (with their tags) the result holds."""
        for i, tag in ids:
            data = self._entry(i, tag)
            if data is not None:
                return data
        return None

    def encoded(self) -> dict[int, bytes]:
        """Each metric's encoded MetricResult by string-table id (see :func:`ids_of`),
        remembering each id's position for :meth:`entry`."""
        if self._by_id is None:
            entries = list(self.lean.metric_bytes)
            ids = ids_of(entries)
            self.names_table.positions = dict(zip(ids, range(len(ids)), strict=True))
            self._by_id = dict(zip(ids, entries, strict=True))
        return self._by_id

    def holding(self, names: tuple[str, ...]) -> list[str]:
        """Those of ``names`` the result holds (with or without a value), in order: :meth:`has`
        of each (``holding_each`` of the one group)."""
        return list(self.holding_each((names,))[0])

    def holding_each(self, groups: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        """:meth:`holding` of each of ``groups`` (a detail's section header tables): all of
        them at once when every name of them sits where :meth:`_placed` places it (each but
        the names the report's string table lacks), else each name looked for."""
        table = self.names_table
        found = table.own_plans.get(groups)
        if found is None:
            if len(table.own_plans) >= MAX_PLACED:
                table.own_plans.clear()
            ids = table.ids
            every = tuple(tuple(name for name in names if name in ids) for names in groups)
            plan = tuple((name, tuple((i, name_tag(i)) for i in ids[name]))
                         for name in dict.fromkeys(name for names in every for name in names))
            found = table.own_plans[groups] = (plan, every)
        plan, every = found
        if self.placed_entries(plan) is not None:
            return every  # type: ignore[no-any-return]
        held = {name for name, ids in plan if self._first_held(ids) is not None}
        return tuple(tuple(name for name in names if name in held) for names in every)

    def _lookup(self, name: str) -> bytes | None:
        for i in self.names_table.ids.get(name, ()):
            data = self.entry(i)
            if data is not None:
                return data
        return None

    def value_from(self, data: bytes) -> RawValue:
        """The single value of one of the result's encoded MetricResults (the MetricValue's
        one field that is set), None when it has none."""
        value = self.stored_value(data)
        return None if value is ABSENT else value  # type: ignore[no-any-return]

    def has(self, name: str) -> bool:
        """Whether the result holds the metric ``name`` (with or without a value)."""
        return self._lookup(name) is not None

    def value_if_present(self, name: str) -> RawValue | object:
        """As :meth:`value`, but :data:`ABSENT` when the result lacks the metric."""
        data = self._lookup(name)
        return ABSENT if data is None else self.value_from(data)

    def value(self, name: str) -> RawValue:
        """The single value of metric ``name``; None when the result lacks it or it has no
        single value ("no data", an instanced-only metric)."""
        data = self._lookup(name)
        return None if data is None else self.value_from(data)

    def present(self) -> Container[str]:
        """The result's metric names, for ``name in ...`` tests."""
        return _Present(self)

    def _index(self) -> dict[str, Any]:
        if self._by_name is None:
            strings = self.names_table.strings
            count = len(strings)
            self._by_name = {
                strings[r.name_id]: r for r in self.message.metric_results if r.name_id < count
            }
        return self._by_name

    def metric_names(self) -> list[str]:
        """Every metric name of the result, in the order the report stores them."""
        return list(self._index())

    def metric(self, name: str) -> Any:
        """The whole MetricResult message of ``name`` (with its instances), None when the
        result lacks it: that message alone decoded (:meth:`entry`), unless every metric
        was (a per-PC counter of a ``--set full`` result is one of thousands)."""
        if self._by_name is not None:
            return self._by_name.get(name)
        data = self._lookup(name)
        return None if data is None else decode(MetricResult, data, self._where)

    def metrics(self) -> Iterator[tuple[str, Any]]:
        return iter(self._index().items())

    # -- sections, rules, NVTX, sources -----------------------------------------------------
    def section_ids(self) -> frozenset[str]:
        """The identifiers of the result's sections: each section's first field alone
        decoded, unless the last result asked held the same encoded sections."""
        encoded = self.section_bytes()
        table = self.names_table
        last = table.last_section_ids
        if last is None or last[0] != encoded:
            last = table.last_section_ids = (encoded, frozenset(
                decode(SECTION_ID, data, self._where).identifier for data in encoded))
        return last[1]  # type: ignore[no-any-return]

    def sections(self) -> Sequence[Any]:
        """The sections with their tables (whole messages; the rest of the result is not
        decoded for them unless it was already)."""
        if self._full is not None:
            return self._full.sections  # type: ignore[no-any-return]
        if self._sections is None:
            self._sections = decode(SECTIONS_OF[self.kind], self.data, self._where).sections
        return self._sections

    def section_bytes(self) -> tuple[bytes, ...]:
        """Each Section message as the report encodes it (launches of one kernel repeat
        them: what readers make of them is remembered by their bytes)."""
        if self._section_bytes is None:
            self._section_bytes = tuple(self.lean.section_bytes)
        return self._section_bytes

    def encoded_rule_results(self) -> Sequence[bytes]:
        """Each RuleResult message as the report encodes it."""
        return self.lean.rule_bytes  # type: ignore[no-any-return]

    def decoded_rule_result(self, data: bytes) -> Any:
        """One of :meth:`encoded_rule_results` decoded."""
        return decode(RULE_RESULT, data, self._where)

    def nvtx(self) -> Any:
        m = self.lean
        return m.nvtx if m.HasField("nvtx") else None

    def source_references(self) -> tuple[int, ...]:
        """The references of the SourceData (modules) the result ran code from."""
        m = self.lean
        if self.kind == KERNEL:
            return (int(m.source.reference),) if m.HasField("source") else ()
        return tuple(int(r) for r in m.references)


_METRIC_RESULT = MetricResult.FromString


class _Present:
    __slots__ = ("_result",)

    def __init__(self, result: Result) -> None:
        self._result = result

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._result.has(name)
