"""Plain metric values read out of a decoded result (``file_format.result.Result``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, repeat
from operator import not_
from typing import Any, NamedTuple

from kernelscope.kinds.ncu.model.file_format.bag import (
    fixed_shape,
    fixed_values,
    instances_of,
    stored_values,
)
from kernelscope.kinds.ncu.model.file_format.metric_ids import name_tag
from kernelscope.kinds.ncu.model.file_format.names_table import MetricPlan
from kernelscope.kinds.ncu.model.file_format.result import ABSENT, Placed, Result
from kernelscope.kinds.ncu.model.legacy import old_names
from kernelscope.kinds.ncu.model.metric_slots import MAX_MADE, MAX_PLANS, Slots, slots_of
from kernelscope.kinds.ncu.model.units import unit_for
from kernelscope.kinds.ncu.model.units_table import THREAD_UNIT_WITNESS

MetricValue = float | int | str | None


class Metric(NamedTuple):
    """One ncu metric: its ncu name, the value NCU stored and NCU's unit (base units)."""

    name: str
    value: MetricValue
    unit: str
    label: str = ""

    @property
    def number(self) -> float | None:
        """The value as a float, or None when it is a string or missing."""
        value = self.value
        if type(value) is float:
            return value
        if isinstance(value, bool) or value is None or isinstance(value, str):
            return None
        return float(value)


class Series(NamedTuple):
    """An instanced metric: (key, value) pairs, e.g. an occupancy curve keyed by block size."""

    name: str
    unit: str
    points: tuple[tuple[float, float], ...]


def _clean(value: Any) -> MetricValue:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float, str)):
        return value
    return None


def finite(value: object) -> float | None:
    """``value`` as a float when it is a finite number (not NaN, not infinite), else None."""
    if type(value) is float:
        return value if math.isfinite(value) else None
    if type(value) is int:  # counts and launch dimensions: a float of an int is finite
        return float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


WRAPPED = 2.0**63
"""No counter, byte count or rate of one launch comes near 2**63. Pre-2020 reports hold
values at or beyond it where an unsigned 64-bit counter went below zero (the Pascal report of
../shared/wild stores 2**64 per unit for ``tex__m_rd_sectors_global_atom``, and 32 times
that in bytes); Nsight Compute prints such a value as 0, and so does kernelscope."""


def _unwrapped(value: MetricValue) -> MetricValue:
    if isinstance(value, float) and value >= WRAPPED and math.isfinite(value):
        return 0.0
    if isinstance(value, int) and not isinstance(value, bool) and value >= 2**63:
        return 0
    return value


def read_metric(result: Result, name: str, *, label: str = "") -> Metric | None:
    """Read ``name`` from ``result``; None when the report lacks it or it holds no value.
    ``label`` is NCU's display label where a section table names one. A pre-2020 report's
    metric is found under its old name (see ``legacy``)."""
    found = result.value_if_present(name)
    if found is ABSENT:
        found = next(
            (v for v in map(result.value_if_present, old_names(name)) if v is not ABSENT), None
        )
    value = _unwrapped(_clean(found))
    if value is None:
        return None
    # A string value (a breakdown's sub-metric name, a device name) has no unit.
    return Metric(name=name, value=value, unit=unit_of(result, name, value), label=label)


def _plan(result: Result, names: tuple[str, ...]) -> MetricPlan:
    """Each of ``names`` present in the report's string table with the ids (and their
    ``NameId`` tags) to look it up by, in the order :func:`read_metric` tries them (its
    own, then its pre-2020 names'), worked out once per report and set of names."""
    table = result.names_table
    plan = table.plans.get(names)
    if plan is None:
        if len(table.plans) >= MAX_PLANS:  # kernels that each want other names
            table.plans.clear()
        ids = table.ids
        plan = table.plans[names] = tuple(
            (name, tuple((i, name_tag(i)) for i in found))
            for name in dict.fromkeys(names)
            if (found := tuple(i for n in (name, *old_names(name)) for i in ids.get(n, ())))
        )
    return plan  # type: ignore[no-any-return]


def read_metrics(
    result: Result, names: tuple[str, ...], labels: Mapping[str, str] | None = None
) -> dict[str, Metric]:
    """:func:`read_metric` of each of ``names`` that ``result`` holds with a value, by name
    (in the order of ``names``), with its label from ``labels``: the same answers, with
    the names' ids looked up once per report and the unit's one fact read once; each
    Metric made once per report for its encoded entry where the launches store the names
    alike (:func:`_read_placed`)."""
    witness = result.has(THREAD_UNIT_WITNESS)
    plan = _plan(result, names)
    placed = result.entries_at(plan)
    if placed is not None:
        read = _read_placed(result, plan, placed, labels or None, witness)
        if read is not None:
            return read
    facts = (result.ncu_version, witness)
    units = _UNITS_BY_FACTS.setdefault(facts, {})
    made = _made_by_facts(facts)
    found: dict[str, Metric] = {}
    for name, value in result.first_values(plan):
        found[name] = _remembered(result, name, value, labels, units, made, witness)
    return found


def entries_of(result: Result, names: tuple[str, ...]) -> Placed | None:
    """The entries where ``names`` are placed, unchecked (``Result.entries_at``), looked up
    as :func:`read_metrics` looks them up."""
    return result.entries_at(_plan(result, names))


def raw_values(result: Result, names: tuple[str, ...]) -> list[tuple[str, Any]]:
    """(name, value as the result stores it) of each of ``names`` it holds with a single
    value, in order, looked up as :func:`read_metrics` looks them up (no Metric made)."""
    return result.first_values(_plan(result, names))


def _made_by_facts(facts: tuple[tuple[int, ...] | None, bool]) -> dict[tuple[Any, ...], Metric]:
    made = _METRICS_BY_FACTS.setdefault(facts, {})
    if len(made) >= MAX_MADE:
        made.clear()
    return made


def _remembered(
    result: Result, name: str, value: Any, labels: Mapping[str, str] | None,
    units: dict[str, str], made: dict[tuple[Any, ...], Metric], witness: bool,
) -> Metric:
    """The Metric of ``name`` holding ``value``, one per report for its (name, value, the
    value's type, label): launches repeat most of their values."""
    label = labels.get(name, "") if labels is not None else ""
    key = (name, value, type(value), label)  # the type: 1 == 1.0 == True as keys
    metric = made.get(key)
    if metric is None:
        metric = made[key] = _made(result, name, value, label, units, witness)
    return metric


_SKIPPED = Metric("", None, "")
"""What a placed plan remembers for an entry without a single value (left out)."""


def _read_placed(
    result: Result, plan: MetricPlan, placed: Placed, labels: Mapping[str, str] | None,
    witness: bool,
) -> dict[str, Metric] | None:
    """:func:`read_metrics` of a plan whose every name the result holds where the plan's
    names are placed: each entry's Metric remembered by its bytes, one dict per name of
    the plan (for the labels and unit facts), and looked up for all names at once. An
    entry found there was checked to start with its name's tag when it was remembered;
    the others are checked here: None when one does not (the names are elsewhere)."""
    names, datas, tags = placed
    slots = slots_of(result.names_table, plan, labels, (result.ncu_version, witness))
    metrics: list[Any] = list(map(dict.get, slots.by_name, datas))
    if None in metrics and not _read_missing(result, slots, datas, tags, metrics, witness):
        return None
    if slots.skips and _SKIPPED in metrics:
        return {name: m for name, m in zip(names, metrics, strict=True) if m is not _SKIPPED}
    return dict(zip(names, metrics, strict=True))


def _read_missing(
    result: Result, slots: Slots, datas: Sequence[bytes], tags: tuple[bytes, ...],
    metrics: list[Any], witness: bool,
) -> bool:
    """Fill in ``metrics`` where no entry of the same bytes was remembered: the entries of
    the :class:`Shape` their name had before (which starts with its tag) read at once
    (the last launch's way where the same names miss: :meth:`Slots.shaped`), the others
    decoded (:func:`stored_values`) once they are checked to start with their tags
    (False, nothing filled in, when one does not); each remembered while its name's dict
    has room (a name whose launches each hold a value of their own, a duration, fills it)."""
    missing = [at for at, metric in enumerate(metrics) if metric is None]
    if _read_as_before(result, slots, datas, missing, metrics):
        return True
    found = list(map(datas.__getitem__, missing))
    values = slots.read_shaped(missing, found)
    if values is not None and not any(map(WRAPPED.__le__, values)):  # _made reads one as 0
        _place(metrics, missing, slots, values)
        slots.remember(result.names_table, datas, missing, metrics)
        return True
    shaped = slots.each_shaped(missing, found)
    fixed = list(compress(missing, shaped))
    rest = list(compress(missing, map(not_, shaped)))
    if not all(map(bytes.startswith, map(datas.__getitem__, rest), map(tags.__getitem__, rest))):
        return False
    if fixed:
        read = fixed_values(list(compress(found, shaped)), map(slots.codes.__getitem__, fixed))
        values = read[1::3]
        if any(map(WRAPPED.__le__, values)):
            fixed, rest = [], missing
        else:
            _place(metrics, fixed, slots, values)
    if rest:
        _decode_missing(result, slots, [datas[at] for at in rest], rest, metrics, witness)
    slots.remember(result.names_table, datas, fixed + rest, metrics)
    return True


def _read_as_before(
    result: Result, slots: Slots, datas: Sequence[bytes], missing: list[int], metrics: list[Any]
) -> bool:
    """:func:`_read_missing` where a launch before missed the same entries and each had
    its Shape (``slots.known_shaped``, what most launches meet: a duration of their own),
    read in one go: :meth:`Slots.read_shaped` and :func:`_place` of that case, plain loops
    over the few entries instead of their iterator pipelines. False, nothing filled in, when
    it is not that case (the general reading then checks all of it again)."""
    last = slots.known_shaped(missing)
    if last is None:
        return False
    found = list(map(datas.__getitem__, missing))
    if list(map(len, found)) != last.sizes:
        return False
    read = last.unpack(b"".join(found))
    if read[0::3] != last.prefixes or read[2::3] != last.suffixes:
        return False
    values = read[1::3]
    for value in values:
        if value >= WRAPPED:  # _made reads one as 0
            return False
    for at, name, value, unit, label in zip(missing, last.names, values, last.units,
                                            last.labels, strict=True):
        metrics[at] = _new_metric(Metric, (name, value, unit, label))
    slots.remember(result.names_table, datas, missing, metrics)
    return True


_new_metric = tuple.__new__


def _place(metrics: list[Any], at: list[int], slots: Slots, values: Iterable[Any]) -> None:
    """_made's Metrics of ``values``, the numbers of the entries at ``at`` read by their
    Shapes (no wrapped counter among them: a number's unit depends on its name alone),
    made at once, put in ``metrics`` at ``at``."""
    last = slots.last
    if last is not None and last.at == at:
        names, units, labels = last.names, last.units, last.labels
    else:
        names = list(map(slots.names.__getitem__, at))
        units = list(map(slots.units.__getitem__, at))
        labels = list(map(slots.labels_of.__getitem__, at))
    made = map(tuple.__new__, repeat(Metric), zip(names, values, units, labels, strict=True))
    for where, metric in zip(at, made, strict=True):
        metrics[where] = metric


def _decode_missing(
    result: Result, slots: Slots, found: list[bytes], missing: list[int], metrics: list[Any],
    witness: bool,
) -> None:
    """:func:`_read_missing`'s decoding of the entries at ``missing`` (``found``), noting
    the :class:`Shape` of a name's first number held alone."""
    units = _UNITS_BY_FACTS.setdefault((result.ncu_version, witness), {})
    names, labels_of = slots.names, slots.labels_of
    for at, value, data in zip(missing, stored_values(result, found), found, strict=True):
        if value is ABSENT:
            metrics[at] = _SKIPPED
            slots.skips = True
            continue
        metric = metrics[at] = _made(result, names[at], value, labels_of[at], units, witness)
        if slots.sizes[at] < 0 and type(value) is float and metric.value is value:
            shape = fixed_shape(data, slots.plan[at][1][0][1])
            if shape is not None:
                slots.prefixes[at], slots.suffixes[at], slots.sizes[at], slots.codes[at] = shape
                slots.units[at] = metric.unit


def _made(
    result: Result, name: str, value: Any, label: str, units: dict[str, str], witness: bool
) -> Metric:
    """:func:`read_metrics`'s Metric of ``name`` holding ``value`` (as the result stores it),
    its unit read once per name for the facts it depends on."""
    if type(value) is str:  # a breakdown's sub-metric name, a device name: no unit
        return Metric(name, value, "", label)
    if value >= WRAPPED:
        value = _unwrapped(value)
    unit = units.get(name)
    if unit is None:
        unit = units[name] = unit_of(result, name, value, witness)
    return Metric(name, value, unit, label)


_UNITS_BY_FACTS: dict[tuple[tuple[int, ...] | None, bool], dict[str, str]] = {}
""":func:`unit_of`'s answers by the facts it depends on, then by name."""
_METRICS_BY_FACTS: dict[tuple[tuple[int, ...] | None, bool], dict[tuple[Any, ...], Metric]] = {}
""":func:`read_metrics`'s Metrics (immutable) by the facts their units depend on, then by
(name, value, its type, label): launches repeat most of their values."""


def read_series(result: Result, name: str) -> Series | None:
    """Read an instanced metric whose correlation ids are the keys (curves, per-PC counters)."""
    raw = result.metric(name)
    if raw is None:
        return None
    points = []
    for key, value in instances_of(raw):
        if isinstance(key, (int, float)) and isinstance(value, (int, float)):
            points.append((float(key), float(_unwrapped(value) or 0)))
    if not points:
        return None
    return Series(name=name, unit=unit_of(result, name, points[0][1]), points=tuple(points))


_UNITS: dict[tuple[str, tuple[int, ...] | None, bool], str] = {}


def unit_of(
    result: Result, name: str, value: MetricValue, witness: bool | None = None
) -> str:
    """The unit NCU's raw page prints for ``name`` holding ``value`` in ``result`` (a string
    has none): NCU's naming conventions (``units``), for the version that took the report.
    Remembered per name, version and the one fact of the result a unit depends on
    (``witness``: whether it holds THREAD_UNIT_WITNESS, looked up when not given)."""
    if isinstance(value, str):
        return ""
    if witness is None:
        witness = result.has(THREAD_UNIT_WITNESS)
    key = (name, result.ncu_version, witness)
    unit = _UNITS.get(key)
    if unit is None:
        unit = _UNITS[key] = unit_for(
            name, value, ncu_version=result.ncu_version, names_in_result=result.present()
        )
    return unit
