"""The kernel report as the ``kernelscope/ncu/1`` JSON document.

Each kernel's entry is mostly its own (identity, metrics, NCU rules): the pass that reads the
kernels encodes that part as text (:class:`JsonMembers`), so the details are not kept; the
document adds the parts that depend on the whole report (time share, family, the diagnosis
weighed by them) and joins the text (``json_text``): the document ``json.dumps(...,
indent=2)`` would write, equal after ``json.loads`` (orjson spells some floats otherwise).
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

from kernelscope.core.bundled import shown_path
from kernelscope.core.text_spool import TextSpool
from kernelscope.export import json_text
from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis
from kernelscope.kinds.ncu.analysis.kernel_analysis import (
    AnalyzedKernel,
    AnalyzedReport,
    analysed_in_workers,
    diagnose_detail,
)
from kernelscope.kinds.ncu.analysis.roofline.collect import collect_command, lacks_roofline
from kernelscope.kinds.ncu.model import KernelDetail, Metric

SCHEMA = "kernelscope/ncu/1"
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


def roofline_collect(analyzed: AnalyzedReport) -> dict[str, Any] | None:
    """Once for the report: how many kernels have no roofline for lack of its metrics and
    the ncu command that collects it; None when every kernel has its metrics."""
    lacking = sum(1 for k in analyzed.kernels if lacks_roofline(k.diagnosis.roofline))
    if not lacking:
        return None
    return {"kernels": lacking, "command": collect_command(), "or": "--set full"}


def report_dict(analyzed: AnalyzedReport) -> dict[str, Any]:
    report = analyzed.report
    dev = report.device
    return {
        "path": shown_path(report.path),
        "kernel_count": report.kernel_count,
        "total_kernel_time_ns": analyzed.total_text_ns,
        "unmeasured_kernels": analyzed.unmeasured,
        "processes": [
            {"pid": p.pid, "name": p.short_name, "command": p.name, "host": p.host}
            for p in report.processes
        ],
        "notes": report.notes,
        "reader": report.version,
        "ncu_version": report.ncu_version,
        "cuda_version": report.cuda_version,
        "sections": sorted(analyzed.sections),
        "roofline_collect": roofline_collect(analyzed),
        "device": {
            "name": dev.name,
            "compute_capability": dev.compute_capability,
            "sm_count": dev.sm_count,
            "attributes": dict(dev.attributes),
        },
    }


@dataclass(slots=True)
class _Repeat:
    """What launches with the same identity, metrics and rule results share: their objects
    (held, so no identity in the key is reused while the entry is there), their members
    after the ``id`` and, once made, their diagnosis (of a launch without source hot spots)."""

    held: tuple[object, ...]
    text: str
    diagnosis: Diagnosis | None = None


MAX_REPEATED = 1024


class JsonMembers:
    """Each kernel's own JSON members (and its diagnosis), made as its detail is read: the
    ``analyse`` of one export's reading pass. A launch that repeats an earlier one's name,
    shape, process, metrics and rule results (a loop's launches of one kernel) takes the text
    after its ``id``, and its diagnosis, from that launch. What it keeps is its own: made for
    one pass over one report, it goes with it."""

    def __init__(self) -> None:
        self.repeated: dict[tuple[Any, ...], _Repeat] = {}
        self.own_text = _OwnText()
        """Each kind of launch's :class:`_Repeat`, by what its members are made of. The
        reader hands out one ``Metric`` (and rule result) object for every launch that stores
        the same bytes, so the objects' identities stand for their values."""

    def __call__(self, detail: KernelDetail) -> tuple[Diagnosis, str]:
        """Diagnosis (without time share) and the kernel's own JSON members."""
        known = self._repeat_of(detail)
        if detail.source is not None:  # its hot spots are its own
            return diagnose_detail(detail, None), _with_id(detail.id, known.text)
        if known.diagnosis is None:  # diagnose() reads the metrics, rules and sections alone
            known.diagnosis = diagnose_detail(detail, None)
        return known.diagnosis, _with_id(detail.id, known.text)

    def members(self, detail: KernelDetail) -> str:
        """:func:`kernel_dict` as JSON members at the depth of a kernel's entry; the metrics,
        the bulk of the document, through ``json_text.value_unit_template``."""
        return _with_id(detail.id, self._repeat_of(detail).text)

    def _repeat_of(self, detail: KernelDetail) -> _Repeat:
        metrics = detail.all_metrics if detail.all_metrics is not None else detail.metrics
        values = tuple(metrics.values())
        key = (
            detail.name, detail.demangled, detail.mangled, detail.grid, detail.block,
            detail.unmeasured, detail.pid, detail.process, tuple(detail.sections),
            tuple(metrics), tuple(map(id, values)), tuple(map(id, detail.rules)),
        )
        repeated = self.repeated
        known = repeated.get(key)
        if known is None:
            if len(repeated) >= MAX_REPEATED:
                repeated.clear()
            known = repeated[key] = _Repeat(
                (values, detail.rules), self.own_text(detail, metrics)
            )
        return known


def _with_id(kernel_id: int, after: str) -> str:
    return f'"id": {json_text.dumps(kernel_id)},\n{json_text.INDENT * (ENTRY_LEVEL + 1)}{after}'


_BEFORE_DURATION = ("name", "demangled", "mangled", "grid", "block")
_AFTER_DURATION = ("measured", "unmeasured_reason", "pid", "process", "sections")
_SCALARS = frozenset((str, float, int, bool, type(None)))


class _OwnText:
    """The text of a kernel's own members after its ``id`` (:func:`kernel_dict` as
    ``json_text.items`` writes it), joined from pieces that launches repeat, each made once
    for one pass: the members before and after the duration, the metrics' text but for their
    values (a template by the metrics' names and units, their order sorted once) and the NCU
    rules (by their objects). A launch's values are encoded in one C-encoder call."""

    def __init__(self) -> None:
        self.heads: dict[tuple[Any, ...], tuple[str, str]] = {}
        self.shapes: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[list[int], str]] = {}
        self.rules: dict[tuple[int, ...], tuple[object, str]] = {}

    def __call__(self, detail: KernelDetail, metrics: dict[str, Metric]) -> str:
        before, after = self._head(detail)
        duration = json_text.dumps(detail.duration_ns if detail.measured else None)
        held = tuple(metrics.values())
        order, template = self._shape(metrics, held)
        values = [held[i].value for i in order]
        if not _SCALARS.issuperset(map(type, values)):  # the general path's
            level = ENTRY_LEVEL + 1
            shown = json_text.wrap((json_text.items(metrics_dict(metrics), level),), level)
            return (",\n" + json_text.INDENT * level).join((
                before, f'"duration_ns": {duration}', after, f'"metrics": {shown}',
                self._rules(detail),
            ))
        return template % (before, duration, after, *json_text.scalars(values),
                           self._rules(detail))

    def _head(self, detail: KernelDetail) -> tuple[str, str]:
        key = (detail.name, detail.demangled, detail.mangled, detail.grid, detail.block,
               detail.unmeasured, detail.pid, detail.process, tuple(detail.sections))
        head = self.heads.get(key)
        if head is None:
            if len(self.heads) >= MAX_REPEATED:
                self.heads.clear()
            own = kernel_dict(detail, with_metrics=False)
            sep = ",\n" + json_text.INDENT * (ENTRY_LEVEL + 1)
            before, after = (
                sep.join(json_text.items({k: own[k]}, ENTRY_LEVEL) for k in keys)
                for keys in (_BEFORE_DURATION, _AFTER_DURATION)
            )
            head = self.heads[key] = (before, after)
        return head

    def _shape(
        self, metrics: dict[str, Metric], held: tuple[Metric, ...]
    ) -> tuple[list[int], str]:
        """The metrics' order (by name) and the members' text with ``%s`` for the members
        before the duration, the duration, those after it, each metric's value and the
        rules: the text is joined in one formatting, each piece copied once."""
        units = tuple([m.unit for m in held])
        key = (tuple(metrics), units)
        shape = self.shapes.get(key)
        if shape is None:
            if len(self.shapes) >= MAX_REPEATED:
                self.shapes.clear()
            names = key[0]
            order = sorted(range(len(names)), key=names.__getitem__)
            level = ENTRY_LEVEL + 1
            body = json_text.value_unit_template(
                [names[i] for i in order], [units[i] for i in order], level
            )
            shown = json_text.wrap((body,), level)
            sep = ",\n" + json_text.INDENT * level
            template = sep.join(("%s", '"duration_ns": %s', "%s", f'"metrics": {shown}', "%s"))
            shape = self.shapes[key] = (order, template)
        return shape

    def _rules(self, detail: KernelDetail) -> str:
        key = tuple(map(id, detail.rules))
        found = self.rules.get(key)
        if found is None:  # the rules held: no other object takes their identities
            if len(self.rules) >= MAX_REPEATED:
                self.rules.clear()
            found = self.rules[key] = (
                detail.rules, json_text.items({"ncu_rules": rules_list(detail)}, ENTRY_LEVEL))
        return found[1]


def entry_rest(
    analyzed: AnalyzedReport, kernel: AnalyzedKernel, diagnosis: Diagnosis | None = None
) -> dict[str, Any]:
    """The members of a kernel's entry that depend on the whole report: short name, time
    share, family and the diagnosis (``kernel.diagnosis`` unless another is given)."""
    family = analyzed.families.index_of.get(kernel.id)
    return _rest(analyzed.short_name(kernel), kernel, family, diagnosis or kernel.diagnosis)


def _rest(
    short_name: str, kernel: AnalyzedKernel, family: int | None, diagnosis: Diagnosis
) -> dict[str, Any]:
    return {
        "short_name": short_name,
        "time_share": kernel.time_share,
        "family": family,
        **diagnosis.to_dict(),
    }


def _entry(
    analyzed: AnalyzedReport,
    kernel: AnalyzedKernel,
    own: str,
    made: dict[tuple[Any, ...], tuple[Diagnosis, str]],
) -> str:
    """The kernel's entry: its own members and :func:`entry_rest`'s, whose text is taken from
    ``made`` when a launch before it had the same short name, share, family and diagnosis
    (object: repeated launches share theirs, :class:`JsonMembers`)."""
    short_name = analyzed.short_name(kernel)
    family = analyzed.families.index_of.get(kernel.id)
    key = (short_name, kernel.time_share, family, id(kernel.diagnosis))
    rest = made.get(key)
    if rest is None or rest[0] is not kernel.diagnosis:
        if len(made) >= MAX_REPEATED:
            made.clear()
        rest = made[key] = (kernel.diagnosis, json_text.closing_items(
            _rest(short_name, kernel, family, kernel.diagnosis), ENTRY_LEVEL))
    return "".join((_OPEN_ENTRY, own, rest[1]))


_OPEN_ENTRY = "{\n" + json_text.INDENT * (ENTRY_LEVEL + 1)


def kernel_texts(
    analyzed: AnalyzedReport, chosen: list[AnalyzedKernel], *, all_metrics: bool = False
) -> MutableMapping[int, str]:
    """The own JSON members of each chosen kernel: from the pass that read the report when
    it made them (every kernel exported), else read now (with members of their own)."""
    have = analyzed.extras
    if isinstance(have, TextSpool) and all(have.is_text(k.id) for k in chosen):
        return have  # read back one at a time as the document is written
    if all(isinstance(have.get(k.id), str) for k in chosen):
        return {k.id: have[k.id] for k in chosen}
    found = analysed_in_workers(
        analyzed.report, [k.id for k in chosen], JsonMembers(),
        curves=False, tables=True, all_metrics=all_metrics,
    )
    return {kernel_id: text for kernel_id, (_, text) in found.items()}


def render_ncu_json(
    analyzed: AnalyzedReport,
    *,
    pattern: str | None = None,
    top: int | None = None,
    all_metrics: bool = False,
) -> str:
    """The whole JSON document: every family of the report ranked by total time, and every
    selected kernel with its metrics, diagnosis and ``family`` (an index into ``families``);
    ``top`` selects the launches of the N largest families."""
    return "".join(ncu_json_pieces(analyzed, pattern=pattern, top=top, all_metrics=all_metrics))


def ncu_json_pieces(
    analyzed: AnalyzedReport,
    *,
    pattern: str | None = None,
    top: int | None = None,
    all_metrics: bool = False,
) -> Iterator[str]:
    """:func:`render_ncu_json`'s document in pieces, a kernel at a time, for writing it
    without holding it whole (a 100 MB document for 8,676 kernels). What the pieces need
    (kernels read now for a ``top`` selection) is read before this returns, while the
    report is open."""
    chosen = analyzed.select(pattern, top)
    texts = kernel_texts(analyzed, chosen, all_metrics=all_metrics)
    head = {
        "schema": SCHEMA,
        "report": report_dict(analyzed),
        "families": [f.to_dict() for f in analyzed.families],
    }
    start = "{\n" + json_text.INDENT + json_text.items(head, 0) + ",\n" + json_text.INDENT
    return _pieces(start + '"kernels": ', analyzed, chosen, texts)


def _take(texts: MutableMapping[int, str], kernel_id: int) -> str:
    """A kernel's text: read back from the analysis's spool (which stays whole for a later
    export), or taken out of a copy made for this document (so it is not held twice)."""
    return texts[kernel_id] if isinstance(texts, TextSpool) else texts.pop(kernel_id)


def _pieces(
    start: str,
    analyzed: AnalyzedReport,
    chosen: list[AnalyzedKernel],
    texts: MutableMapping[int, str],
) -> Iterator[str]:
    yield start
    made: dict[tuple[Any, ...], tuple[Diagnosis, str]] = {}
    entries = (_entry(analyzed, k, _take(texts, k.id), made) for k in chosen)
    yield from json_text.array_pieces(entries, 1)
    yield "\n}\n"
