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
from itertools import compress, count
from operator import is_not
from typing import Any

from kernelscope.core.bundled import shown_path
from kernelscope.core.text_spool import TextSpool
from kernelscope.export import json_text
from kernelscope.export.writer import Piece, joined
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel
from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis
from kernelscope.kinds.ncu.analysis.kernel_analysis import (
    AnalyzedReport,
    analysed_in_workers,
    diagnose_detail,
)
from kernelscope.kinds.ncu.analysis.roofline.collect import collect_command, lacks_roofline
from kernelscope.kinds.ncu.export.own_members import (
    ENTRY_LEVEL,
    MAX_REPEATED,
    OwnText,
)
from kernelscope.kinds.ncu.model import KernelDetail, Metric

SCHEMA = "kernelscope/ncu/1"


def roofline_collect(analyzed: AnalyzedReport) -> dict[str, Any] | None:
    """Once for the report: how many kernels have no roofline for lack of its metrics and
    the ncu command that collects it; None when every kernel has its metrics. Reads each
    kernel's roofline alone: a document that lists families (MCP's summary) diagnoses only
    their median launches."""
    lacking = sum(1 for k in analyzed.kernels if lacks_roofline(k.roofline))
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
    """What launches with the same identity, metrics and rule results share: their metrics
    (held, so no identity compared with them is reused while the entry is there), their
    members after the ``id`` and, once made, their diagnosis (of a launch without source hot
    spots)."""

    values: tuple[Metric, ...]
    text: str
    diagnosis: Diagnosis | None = None


MAX_VARIANTS = 8
"""The launches of one kind (name, shape, metrics' names, rule results) whose metrics a
launch of that kind is compared with, the latest first."""


class _Kind:
    """One kind of launch in :attr:`JsonMembers.repeated`: its rule results (held, so their
    identities in the key stay theirs), its :class:`_Repeat` s, the latest first, and the
    place of the metric where a launch last differed from one of them, compared first (a
    loop's launches differ in a few metrics, ~20 places in)."""

    __slots__ = ("probe", "rules", "variants")

    def __init__(self, rules: object) -> None:
        self.rules = rules
        self.variants: list[_Repeat] = []
        self.probe = 0


class JsonMembers:
    """Each kernel's own JSON members (and its diagnosis), made as its detail is read: the
    ``analyse`` of one export's reading pass. A launch that repeats an earlier one's name,
    shape, process, metrics and rule results (a loop's launches of one kernel) takes the text
    after its ``id``, and its diagnosis, from that launch. What it keeps is its own: made for
    one pass over one report, it goes with it."""

    def __init__(self) -> None:
        self.repeated: dict[tuple[Any, ...], _Kind] = {}
        """The latest :class:`_Repeat` of each kind of launch, by what its members are made
        of but the metrics' values: its identity, the metrics' names and the rule results'
        identities (the rules held with them). The reader hands out one ``Metric`` (and rule
        result) object for every launch that stores the same bytes, so the objects'
        identities stand for their values: a launch's are compared with each :class:`_Repeat`
        of its kind by identity, in C, and the comparison stops at the first that differs
        (launches whose durations differ each miss, at no cost of a key of ~100 ids)."""
        self.kept = 0
        self.own_text = OwnText()

    def __call__(self, detail: KernelDetail) -> tuple[Diagnosis, str]:
        """Diagnosis (without time share) and the kernel's own JSON members after its
        ``id`` (which the entry writes: repeated launches hand out one text)."""
        known = self._repeat_of(detail)
        if detail.source is not None:  # its hot spots are its own
            return diagnose_detail(detail, None), known.text
        if known.diagnosis is None:  # diagnose() reads the metrics, rules and sections alone
            known.diagnosis = diagnose_detail(detail, None)
        return known.diagnosis, known.text

    def members(self, detail: KernelDetail) -> str:
        """:func:`kernel_dict` as JSON members at the depth of a kernel's entry; the metrics,
        the bulk of the document, through ``json_text.value_unit_template``."""
        return _with_id(detail.id, self._repeat_of(detail).text)

    def _repeat_of(self, detail: KernelDetail) -> _Repeat:
        metrics = detail.all_metrics if detail.all_metrics is not None else detail.metrics
        values = tuple(metrics.values())
        names = tuple(metrics)
        kind = (
            detail.name, detail.demangled, detail.mangled, detail.grid, detail.block,
            detail.unmeasured, detail.pid, detail.process, tuple(detail.sections),
            names, tuple(map(id, detail.rules)),
        )
        found = self.repeated.get(kind)
        if found is not None:
            probe = found.probe
            for known in found.variants:
                held = known.values
                if values and values[probe] is not held[probe]:  # where one last differed
                    continue
                # the names are the kind's: as many
                differs = next(compress(count(), map(is_not, values, held)), None)
                if differs is None:
                    return known
                found.probe = probe = differs
        if self.kept >= MAX_REPEATED:
            self.repeated.clear()
            self.kept = 0
            found = None
        if found is None:
            found = self.repeated[kind] = _Kind(detail.rules)
        variants = found.variants
        known = _Repeat(values, self.own_text(detail, metrics, names, values))
        variants.insert(0, known)
        self.kept += 1
        if len(variants) > MAX_VARIANTS:
            variants.pop()
            self.kept -= 1
        return known


def _with_id(kernel_id: int, after: str) -> str:
    return "".join((_ID, _id_text(kernel_id), _AFTER_ID, after))


def _id_text(kernel_id: int) -> str:
    """``json_text.dumps(kernel_id)``: an int's text is its ``repr``."""
    return int.__repr__(kernel_id) if type(kernel_id) is int else json_text.dumps(kernel_id)


_ID = '"id": '
_AFTER_ID = ",\n" + json_text.INDENT * (ENTRY_LEVEL + 1)


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


_Made = dict[tuple[Any, ...], tuple[Diagnosis, tuple[str | memoryview, ...]]]


def _entry_rest(
    analyzed: AnalyzedReport, kernel: AnalyzedKernel, kernel_id: int, made: _Made
) -> tuple[str | memoryview, ...]:
    """The pieces of :func:`entry_rest`'s members after the kernel's own, to the entry's
    closing brace; taken from ``made`` when a launch before it had the same short name,
    share, family and diagnosis (object: repeated launches share theirs,
    :class:`JsonMembers`)."""
    short_name = analyzed.short_name(kernel)
    family = analyzed.families.index_of.get(kernel_id)
    key = (short_name, kernel.time_share, family, id(kernel.diagnosis))
    rest = made.get(key)
    if rest is None or rest[0] is not kernel.diagnosis:
        if len(made) >= MAX_REPEATED:
            made.clear()
        rest = made[key] = (kernel.diagnosis, json_text.closing_pieces(
            _rest(short_name, kernel, family, kernel.diagnosis), ENTRY_LEVEL))
    return rest[1]


_OPEN_ENTRY = f"\n{json_text.INDENT * ENTRY_LEVEL}{{\n{json_text.INDENT * (ENTRY_LEVEL + 1)}{_ID}"
"""What opens a kernel's entry, after the comma or bracket before it, up to its ``id``."""


def kernel_texts(
    analyzed: AnalyzedReport, chosen: list[AnalyzedKernel], *, all_metrics: bool = False
) -> MutableMapping[int, str]:
    """The own JSON members (after the ``id``) of each chosen kernel: from the pass that
    read the report when it made them (every kernel exported), else read now (with members
    of their own)."""
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
    return joined(ncu_json_pieces(analyzed, pattern=pattern, top=top, all_metrics=all_metrics))


def ncu_json_pieces(
    analyzed: AnalyzedReport,
    *,
    pattern: str | None = None,
    top: int | None = None,
    all_metrics: bool = False,
) -> Iterator[Piece]:
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


def _pieces(
    start: str,
    analyzed: AnalyzedReport,
    chosen: list[AnalyzedKernel],
    texts: MutableMapping[int, str],
) -> Iterator[Piece]:
    """The document from ``start`` on: the ``kernels`` list, each entry in pieces (its
    opening and ``id``, its own members, the rest's pieces), then the document's end."""
    yield start
    made: _Made = {}
    # a kernel's text is read back from the analysis's spool (which stays whole for a later
    # export), or taken out of a copy made for this document (so it is not held twice)
    take = texts.__getitem__ if isinstance(texts, TextSpool) else texts.pop
    opening = "[" + _OPEN_ENTRY
    for kernel in chosen:
        kernel_id = kernel.id
        yield opening + _id_text(kernel_id) + _AFTER_ID
        yield take(kernel_id)
        yield from _entry_rest(analyzed, kernel, kernel_id, made)
        opening = "," + _OPEN_ENTRY
    yield ("\n" + json_text.INDENT + "]" if chosen else "[]") + "\n}\n"
