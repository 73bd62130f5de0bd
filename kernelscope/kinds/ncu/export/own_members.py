"""A kernel's own part of its ``kernelscope/ncu/1`` JSON entry (identity, launch shape,
duration, metrics, NCU rules) as a dict and as the text ``json_text.items`` writes of it,
joined from pieces that a report's launches repeat (:class:`OwnText`)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from operator import is_not, itemgetter
from typing import Any, NamedTuple

from kernelscope.core.memo import Memo
from kernelscope.export import json_text
from kernelscope.kinds.ncu.model import KernelDetail, Metric

ENTRY_LEVEL = 2
"""The depth of a kernel's entry in the document (document › "kernels" › entry)."""


def metrics_dict(metrics: dict[str, Metric]) -> dict[str, dict[str, Any]]:
    return {name: {"value": m.value, "unit": m.unit} for name, m in sorted(metrics.items())}


def kernel_dict(detail: KernelDetail, *, with_metrics: bool = True) -> dict[str, Any]:
    """One kernel's own part of its entry: identity, launch shape, duration and the panes'
    metrics (every metric when the detail was read with them: ``detail.all_metrics``);
    ``with_metrics`` False leaves them out (None) for a caller that encodes them itself."""
    metrics = detail.all_metrics if detail.all_metrics is not None else detail.metrics
    return {
        "id": detail.id,
        "name": detail.name,
        "demangled": detail.demangled,
        "mangled": detail.mangled,
        "grid": list(detail.grid),
        "block": list(detail.block),
        "duration_ns": detail.duration_ns if detail.measured else None,
        "measured": detail.measured,
        "unmeasured_reason": detail.unmeasured,
        "pid": detail.pid,
        "process": detail.process or None,
        "sections": sorted(detail.sections),
        "metrics": metrics_dict(metrics) if with_metrics else None,
        "ncu_rules": rules_list(detail),
    }


def rules_list(detail: KernelDetail) -> list[dict[str, Any]]:
    """The kernel's NCU rule results as its entry's ``ncu_rules``."""
    return [
        {
            "rule": r.rule,
            "section": r.section,
            "type": r.type,
            "title": r.title,
            "message": r.message,
            "speedup_type": r.speedup_type,
            "speedup_pct": r.speedup_pct,
        }
        for r in detail.rules
    ]


MAX_REPEATED = 1024
"""The pieces of each kind an :class:`OwnText` keeps (and a ``JsonMembers`` its launches)."""


_BEFORE_DURATION = ("name", "demangled", "mangled", "grid", "block")
_AFTER_DURATION = ("measured", "unmeasured_reason", "pid", "process", "sections")
_SCALARS = frozenset((str, float, int, bool, type(None)))
_VALUE = itemgetter(1)
_UNIT = itemgetter(2)
"""A Metric's value and unit (a Metric is a named tuple: name, value, unit, label)."""
_FIRST_VALUE = 7
"""The place in :attr:`Shape.parts` of the first metric's value (after the members before
the duration, the duration and the members after it)."""


class Shape(NamedTuple):
    """The members' text of launches whose metrics have the same names and units."""

    order: Callable[[tuple[Metric, ...]], Any]
    """A launch's metrics in the order of their names."""
    parts: list[str]
    """The text's fixed pieces, each followed by a place (an empty string) for the members
    before the duration, the duration, those after it, each metric's value, then the rules:
    ``parts[1::2]`` takes them."""
    slots: list[int]
    """The place in ``parts`` of each metric's value, in the launch's (the dict's) order."""


class OwnText:
    """The text of a kernel's own members after its ``id`` (:func:`kernel_dict` as
    ``json_text.items`` writes it), joined from pieces that launches repeat, each made once
    for one pass: the members before and after the duration, the metrics' text but for their
    values (by the metrics' names and units, their order sorted once) and the NCU rules (by
    their objects). A launch's values are encoded in one C-encoder call, and the text joined
    in one ``str.join``, the values put between the fixed pieces by one slice assignment."""

    def __init__(self) -> None:
        self.heads: Memo[tuple[Any, ...], tuple[str, str]] = Memo(MAX_REPEATED)
        self.shapes: Memo[tuple[tuple[str, ...], tuple[str, ...]], Shape] = Memo(MAX_REPEATED)
        self.rules: Memo[tuple[int, ...], tuple[object, str]] = Memo(MAX_REPEATED)
        self.latest: Memo[str, _Latest] = Memo(MAX_REPEATED)
        """The latest launch of each kernel name: the next one's metrics are compared with
        its Metrics, and only those that differ encoded (a loop's launches differ in some)."""

    def __call__(
        self,
        detail: KernelDetail,
        metrics: dict[str, Metric],
        names: tuple[str, ...],
        held: tuple[Metric, ...],
    ) -> str:
        """The members after the ``id`` of ``detail`` whose ``metrics`` (its panes' or all)
        have the ``names`` and the Metrics ``held``, in the dict's order."""
        before, after = self._head(detail)
        duration = json_text.dumps(detail.duration_ns if detail.measured else None)
        rules = self._rules(detail)
        latest = self.latest.get(detail.name)
        parts = None if latest is None else _from_latest(latest, names, held)
        if parts is None:
            units = tuple(map(_UNIT, held))
            shape = self._shape(names, units)
            values = list(map(_VALUE, shape.order(held)))
            if not _SCALARS.issuperset(map(type, values)):  # the general path's
                level = ENTRY_LEVEL + 1
                shown = json_text.wrap((json_text.items(metrics_dict(metrics), level),), level)
                return (",\n" + json_text.INDENT * level).join((
                    before, f'"duration_ns": {duration}', after, f'"metrics": {shown}', rules,
                ))
            parts = shape.parts.copy()
            parts[1::2] = (before, duration, after, *json_text.scalars(values), rules)
            latest = _Latest(names, held, parts, shape.slots, units)
        else:
            parts[1], parts[3], parts[5], parts[-2] = before, duration, after, rules
            latest = _Latest(names, held, parts, latest.slots, latest.units)
        self.latest.keep(detail.name, latest)
        return "".join(parts)

    def _head(self, detail: KernelDetail) -> tuple[str, str]:
        key = (detail.name, detail.demangled, detail.mangled, detail.grid, detail.block,
               detail.unmeasured, detail.pid, detail.process, tuple(detail.sections))
        head = self.heads.get(key)
        if head is None:
            own = kernel_dict(detail, with_metrics=False)
            sep = ",\n" + json_text.INDENT * (ENTRY_LEVEL + 1)
            before, after = (
                sep.join(json_text.items({k: own[k]}, ENTRY_LEVEL) for k in keys)
                for keys in (_BEFORE_DURATION, _AFTER_DURATION)
            )
            head = self.heads.keep(key, (before, after))
        return head

    def _shape(self, names: tuple[str, ...], units: tuple[str, ...]) -> Shape:
        """The metrics' order (by name) and the members' text around the members before the
        duration, the duration, those after it, each metric's value and the rules, for
        metrics of ``names`` and ``units``."""
        key = (names, units)
        shape = self.shapes.get(key)
        if shape is None:
            order = sorted(range(len(names)), key=names.__getitem__)
            level = ENTRY_LEVEL + 1
            body = json_text.value_unit_template(
                [names[i] for i in order], [units[i] for i in order], level
            )
            shown = json_text.wrap((body,), level)
            sep = ",\n" + json_text.INDENT * level
            template = sep.join(("%s", '"duration_ns": %s', "%s", f'"metrics": {shown}', "%s"))
            # a NUL is written \u0000 in JSON text: it marks where each value goes
            pieces = (template % (("\x00",) * (len(names) + 4))).split("\x00")
            parts = [""] * (2 * len(pieces) - 1)
            parts[0::2] = pieces
            slots = [0] * len(order)
            for rank, index in enumerate(order):
                slots[index] = 2 * rank + _FIRST_VALUE
            shape = self.shapes.keep(key, Shape(
                itemgetter(*order) if len(order) > 1 else tuple, parts, slots))
        return shape

    def _rules(self, detail: KernelDetail) -> str:
        rules = detail.rules
        key = tuple(map(id, rules))
        found = self.rules.get(key)
        if found is None:  # the rules held: no other object takes their identities
            text = json_text.items({"ncu_rules": rules_list(detail)}, ENTRY_LEVEL)
            found = self.rules.keep(key, (rules, text))
        return found[1]


class _Latest(NamedTuple):
    """A launch's metrics' ``names`` and Metrics (``held``, in the dict's order), its text's
    ``parts`` (each place filled), the place of each metric's value there and each metric's
    unit."""

    names: tuple[str, ...]
    held: tuple[Metric, ...]
    parts: list[str]
    slots: list[int]
    units: tuple[str, ...]


def _from_latest(
    latest: _Latest, names: tuple[str, ...], held: tuple[Metric, ...]
) -> list[str] | None:
    """The text's parts of a launch whose metrics have the ``names`` of ``latest``'s: its
    parts with the value of each metric whose Metric object differs encoded anew; None when
    the names differ, or a differing metric's unit, or a new value is no scalar (the full
    path's). A Metric is immutable: the same object is the same value and unit."""
    if names != latest.names:
        return None
    before = latest.held
    changed = list(compress(range(len(held)), map(is_not, held, before)))
    if not changed:
        return latest.parts.copy()
    pick = itemgetter(*changed) if len(changed) > 1 else lambda m: (m[changed[0]],)
    now = pick(held)
    if tuple(map(_UNIT, now)) != pick(latest.units):
        return None
    values = list(map(_VALUE, now))
    if not _SCALARS.issuperset(map(type, values)):
        return None
    parts = latest.parts.copy()
    slots = latest.slots
    for index, text in zip(changed, json_text.scalars(values), strict=True):
        parts[slots[index]] = text
    return parts
