"""Read one kernel's pane data out of a decoded result into plain objects."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from kernelscope.kinds.ncu.model.file_format.result import Result
from kernelscope.kinds.ncu.model.measured import unmeasured_reason
from kernelscope.kinds.ncu.model.metrics import (
    Metric,
    entries_of,
    raw_values,
    read_metrics,
    read_series,
)
from kernelscope.kinds.ncu.model.model import SPEEDUP_TYPES, KernelDetail, RuleResult, launch_dims
from kernelscope.kinds.ncu.model.panes import (
    OCCUPANCY_CURVES,
    PANES,
    SOL_BREAKDOWNS,
    STALL_PREFIX,
    STALL_SUFFIX,
    pane_metric_names,
)

_PANE_METRICS = pane_metric_names()
_SECTION_PANES = {s for pane in PANES for s in pane.section_metrics}


RULE_MESSAGE_TYPES = {1: "INF", 2: "WRN", 3: "ERR", 4: "OPT"}
"""The format's RuleResultMessageType (Ok, Warning, Error, Optimization) as the CLI's
details page names it; 0 (None) is a message the CLI does not print."""


def _section_metrics(item: Any) -> Iterator[Any]:
    """The metrics of one section body item (tables, charts, nested containers)."""
    if item.HasField("table"):
        yield from item.table.metrics
    if item.HasField("bar_chart"):
        yield from item.bar_chart.metrics
    if item.HasField("histogram"):
        yield item.histogram.metric
    if item.HasField("line_chart"):
        yield from item.line_chart.metrics
    if item.HasField("container"):
        for inner in item.container.items:
            yield from _section_metrics(inner)


def body_metric_names(section: Any) -> list[str]:
    """The names of the metrics a section's body shows, in order."""
    return [m.name for body in section.body for item in body.items
            for m in _section_metrics(item)]


def metric_labels(sections: Sequence[Any]) -> dict[str, str]:
    """NCU's display label of each metric: the label of the first place NCU's details page
    shows it (sections in their display order, each header before its body), else the label
    a section's metric list gives it."""
    labels: dict[str, str] = {}
    ordered = sorted(sections, key=lambda s: s.order)
    for section in ordered:
        named = [*section.header.metrics]
        named += [m for body in section.body for item in body.items
                  for m in _section_metrics(item)]
        for m in named:
            if m.label:
                labels.setdefault(m.name, m.label)
    for section in ordered:
        for m in section.metrics.metrics:
            if m.label:
                labels.setdefault(m.name, m.label)
    return labels


class SectionReading(NamedTuple):
    """What the exports read of a result's sections: the same for every launch that encodes
    them alike, so read once per report for each encoding."""

    titles: dict[str, str]
    """Each section's title by identifier."""
    labels: dict[str, str]
    """:func:`metric_labels`."""
    panes: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]
    """Each section a pane shows, in order: (identifier, the metrics of its header table,
    the stall reasons its body lists)."""
    headers: tuple[tuple[str, ...], ...]
    """The metrics of each of those sections' header tables, in the same order."""


MAX_KNOWN_SECTIONS = 256


def section_reading(action: Result) -> SectionReading:
    """:class:`SectionReading` of the result, read once per report for each encoding: the
    last one found is compared first (launches of one kernel follow each other; equal
    bytes compare without a hash of them)."""
    table = action.names_table
    encoded = action.section_bytes()
    last = table.last_sections
    if last is not None and last[0] == encoded:
        return last[1]  # type: ignore[no-any-return]
    known: dict[tuple[bytes, ...], SectionReading] = table.sections
    reading = known.get(encoded)
    if reading is None:
        if len(known) >= MAX_KNOWN_SECTIONS:
            known.clear()
        reading = known[encoded] = _read_sections(action.sections())
    table.last_sections = (encoded, reading)
    return reading


def _read_sections(sections: Sequence[Any]) -> SectionReading:
    titles: dict[str, str] = {}
    panes = []
    for section in sections:
        ident = section.identifier
        titles[ident] = section.display_name
        if ident in _SECTION_PANES:
            header = tuple(m.name for m in section.header.metrics)
            stalls = tuple(
                name for name in body_metric_names(section)
                if name.startswith(STALL_PREFIX) and name.endswith(STALL_SUFFIX)
            )
            panes.append((ident, header, stalls))
    return SectionReading(titles, metric_labels(sections), tuple(panes),
                          tuple(header for _, header, _ in panes))


def rule_messages(result: Any) -> Iterator[RuleResult]:
    """One RuleResult per message of a rule, as the CLI's details page prints them: each
    body item holds a message with its own estimated speedup (its focus metrics, which no
    output shows, are not decoded). (The rule's fields are read once, and each RuleResult
    made from its fields in order: launches of one kernel each hold rules of their own
    numbers, read again for every launch.)"""
    rule = (result.identifier, result.display_name, result.section_identifier)
    for item in result.body.items:
        message = item.message  # an item without one reads as type 0: not printed
        kind = RULE_MESSAGE_TYPES.get(int(message.type))
        if kind is None:
            continue
        speed = item.speedup  # one left out reads as one without a value
        has_speed = speed.HasField("value")
        yield tuple.__new__(RuleResult, (
            *rule, kind, message.name, message.message,
            SPEEDUP_TYPES.get(int(speed.speedup_type)) if has_speed else None,
            float(speed.value) if has_speed else None,
        ))


def read_rules(action: Result) -> tuple[RuleResult, ...]:
    """NCU's rule results of the result, one per message the CLI prints; the messages of
    an encoded rule result are read once per report (launches repeat them): the rule at
    the same place in the last launch read is compared first (no hash of its bytes)."""
    table = action.names_table
    known: dict[bytes, tuple[RuleResult, ...]] = table.rules
    last: list[tuple[bytes, tuple[RuleResult, ...]]] = table.last_rules
    found: list[RuleResult] = []
    for at, data in enumerate(action.encoded_rule_results()):
        if at < len(last) and last[at][0] == data:
            found += last[at][1]
            continue
        messages = known.get(data)
        if messages is None:
            if len(known) >= MAX_KNOWN_RULES:
                known.clear()
            messages = tuple(rule_messages(action.decoded_rule_result(data)))
            known[data] = messages
        found += messages
        last[at:at + 1] = [(data, messages)]
    return tuple(found)


MAX_KNOWN_RULES = 1024


def _wanted(
    action: Result,
    reading: SectionReading,
    extra_metrics: tuple[str, ...],
    held: tuple[tuple[str, ...], ...],
    breakdown_parts: dict[str, tuple[str, ...]],
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the metrics a detail reads, in order: the panes', ``extra_metrics``, then per pane
    section the ``held`` metrics of its header table and the stall reasons its body lists,
    then the ``breakdown_parts``; those stall reasons): the same for every launch whose
    sections, held header metrics and breakdowns are alike, so worked out once per report
    for each."""
    known: dict[tuple[Any, ...], Any] = action.names_table.wanted
    key = (id(reading), extra_metrics, *held, None, *breakdown_parts.values())
    found = known.get(key)
    if found is None or found[0] is not reading:
        if len(known) >= MAX_KNOWN_SECTIONS:
            known.clear()
        wanted: dict[str, None] = dict.fromkeys(_PANE_METRICS)
        for name in extra_metrics:
            wanted.setdefault(name, None)
        for at, (_, _, stalls) in enumerate(reading.panes):
            for name in held[at] if held else ():
                wanted.setdefault(name, None)
            for name in stalls:
                wanted.setdefault(name, None)
        stall_reasons = tuple(name for _, _, stalls in reading.panes for name in stalls)
        for parts in breakdown_parts.values():
            for name in parts:
                wanted.setdefault(name, None)
        found = known[key] = (reading, tuple(wanted), stall_reasons)
    return found[1], found[2]


def _breakdowns(action: Result) -> dict[str, tuple[str, ...]]:
    """The metrics each Speed Of Light breakdown the result holds is made of, by the
    breakdown's name without its ``breakdown:`` prefix: worked out once per report for
    each breakdown text (launches of one kernel repeat them, ~50 names each), the last
    launch's entries compared first (a breakdown's text is ~2 kB, hashed otherwise)."""
    table = action.names_table
    placed = entries_of(action, SOL_BREAKDOWNS)
    last = table.last_breakdowns
    if placed is not None and last is not None and last[0] == placed[1]:
        return dict(last[1])  # entries equal to ones that were checked: the same names
    stored = tuple(raw_values(action, SOL_BREAKDOWNS))
    known: dict[tuple[tuple[str, Any], ...], dict[str, tuple[str, ...]]] = table.breakdowns
    found = known.get(stored)
    if found is None:
        if len(known) >= MAX_KNOWN_SECTIONS:
            known.clear()
        found = known[stored] = {
            bd.removeprefix("breakdown:"): tuple(p for p in value.split(",") if p)
            for bd, value in stored if isinstance(value, str) and value
        }
    if placed is not None and all(map(bytes.startswith, placed[1], placed[2])):
        table.last_breakdowns = (placed[1], found)
    return dict(found)


def build_detail(
    action: Result,
    kernel_id: int,
    range_idx: int,
    action_idx: int,
    names: tuple[str, str, str],
    extra_metrics: tuple[str, ...] = (),
    *,
    curves: bool = True,
    breakdowns: bool = True,
    tables: bool = True,
    origin: tuple[int | None, str] = (None, ""),
) -> KernelDetail:
    """Read every metric the panes (and ``extra_metrics``) need for one kernel; ``curves``
    also reads the occupancy curves (half the cost on small kernels) and ``breakdowns`` the
    ~50 Speed Of Light breakdown metrics, and ``tables`` NCU's section header tables with
    their labels (Markdown records skip all three)."""
    reading = section_reading(action)
    held = action.holding_each(reading.headers) if tables else ()
    breakdown_parts = _breakdowns(action) if breakdowns else {}
    wanted, stall_reasons = _wanted(action, reading, extra_metrics, held, breakdown_parts)
    metrics = read_metrics(action, wanted, reading.labels if tables else {})
    series_by_name = {}
    for _, name in OCCUPANCY_CURVES if curves else ():
        series = read_series(action, name)
        if series is not None and series.points:
            series_by_name[name] = series
    grid, block = launch_dims(metrics)
    name, demangled, mangled = names
    return KernelDetail(
        id=kernel_id, range_idx=range_idx, action_idx=action_idx,
        name=name, demangled=demangled, mangled=mangled, grid=grid, block=block,
        metrics=metrics, sections=dict(reading.titles),
        section_metrics=dict(zip((p[0] for p in reading.panes), held, strict=False)),
        breakdowns=breakdown_parts, stall_reasons=stall_reasons, curves=series_by_name,
        rules=read_rules(action), unmeasured=unmeasured_reason(metrics),
        pid=origin[0], process=origin[1],
    )


def read_all_metrics(action: Result) -> dict[str, Metric]:
    """Every metric of the result that holds a value."""
    return read_metrics(action, tuple(action.metric_names()))
