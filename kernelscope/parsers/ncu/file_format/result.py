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

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from google.protobuf.message import DecodeError

from kernelscope.parsers.errors import ReportError
from kernelscope.parsers.ncu.container import CMDLIST, GRAPH, KERNEL, RANGE, ProcessInfo
from kernelscope.parsers.ncu.file_format.schema import (
    CmdlistResult,
    GraphResult,
    ProfileResult,
    RangeResult,
)

MESSAGE_OF = {KERNEL: ProfileResult, RANGE: RangeResult, CMDLIST: CmdlistResult, GRAPH: GraphResult}
RawValue = float | int | str | None


def plain_value(value: Any) -> RawValue:
    """The Python value of a MetricValue message: the one field that is set (a float field is
    widened to a double, as NCU prints it); None when none is."""
    fields = value.ListFields()
    if not fields:
        return None
    found = fields[0][1]
    return found if isinstance(found, (int, float, str)) else None


def decode_result(kind: str, data: bytes, where: str) -> Any:
    """The decoded message of a result of ``kind``; ReportError naming ``where`` when the
    bytes are not one."""
    try:
        return MESSAGE_OF[kind].FromString(data)
    except DecodeError:
        raise ReportError(f"{where} cannot be read: the report is damaged there.") from None


class Result:
    """A decoded result with its report's string table, read by metric name."""

    __slots__ = ("_by_name", "kind", "message", "ncu_version", "process", "strings")

    def __init__(
        self,
        kind: str,
        message: Any,
        strings: Sequence[str],
        process: ProcessInfo,
        ncu_version: tuple[int, ...] | None = None,
    ) -> None:
        self.kind = kind
        self.message = message
        self.strings = strings
        self.process = process
        self.ncu_version = ncu_version
        """The Nsight Compute that wrote the report, ``(2019,)`` for the pre-2020 format."""
        self._by_name: dict[str, Any] | None = None

    # -- names and launch -----------------------------------------------------------------
    @property
    def is_kernel(self) -> bool:
        return self.kind == KERNEL

    def names(self) -> tuple[str, str, str]:
        """(function name, demangled name, mangled name) of a kernel; a command list's
        display name for all three; empty for ranges and graphs."""
        m = self.message
        if self.kind == KERNEL:
            function = m.function_name or m.mangled_name
            return function, m.demangled_name or function, m.mangled_name or function
        if self.kind == CMDLIST and m.display_name:
            return m.display_name, m.display_name, m.display_name
        return "", "", ""

    def dims(self, field: str) -> tuple[int, int, int] | None:
        """A kernel's ``grid_size`` or ``block_size`` (None for other results)."""
        if self.kind != KERNEL or not self.message.HasField(field):
            return None
        d = getattr(self.message, field)
        return int(d.x), int(d.y), int(d.z)

    @property
    def context_id(self) -> int | None:
        m = self.message
        return int(m.context_id) if m.HasField("context_id") else None

    @property
    def stream_id(self) -> int | None:
        m = self.message
        has = self.kind != RANGE and m.HasField("stream_id")
        return int(m.stream_id) if has else None

    # -- metrics ----------------------------------------------------------------------------
    def _index(self) -> dict[str, Any]:
        if self._by_name is None:
            strings = self.strings
            count = len(strings)
            self._by_name = {
                strings[r.name_id]: r for r in self.message.metric_results if r.name_id < count
            }
        return self._by_name

    def name_index(self) -> Mapping[str, Any]:
        """The result's metrics by name (for ``name in ...`` tests)."""
        return self._index()

    def metric_names(self) -> list[str]:
        return list(self._index())

    def metric(self, name: str) -> Any:
        """The MetricResult message of ``name``, None when the result lacks it."""
        return self._index().get(name)

    def metrics(self) -> Iterator[tuple[str, Any]]:
        return iter(self._index().items())

    # -- sections, rules, NVTX, sources -----------------------------------------------------
    def sections(self) -> Sequence[Any]:
        return self.message.sections  # type: ignore[no-any-return]

    def rule_results(self) -> Sequence[Any]:
        return self.message.rule_results  # type: ignore[no-any-return]

    def nvtx(self) -> Any:
        m = self.message
        return m.nvtx if m.HasField("nvtx") else None

    def source_references(self) -> tuple[int, ...]:
        """The references of the SourceData (modules) the result ran code from."""
        m = self.message
        if self.kind == KERNEL:
            return (int(m.source.reference),) if m.HasField("source") else ()
        return tuple(int(r) for r in m.references)


def value_of(raw: Any) -> RawValue:
    """A MetricResult's single value, None when it has none (an instanced-only metric)."""
    if not raw.HasField("metric_value"):
        return None
    return plain_value(raw.metric_value)


def instances_of(raw: Any) -> list[tuple[RawValue, RawValue]]:
    """A MetricResult's (correlation id, value) list, empty when it has no instances."""
    return [
        (plain_value(e.correlation_id) if e.HasField("correlation_id") else None,
         plain_value(e.element_value))
        for e in raw.metric_value_list
    ]
