"""A kernel report with every kernel diagnosed: what the exports and summaries render.

Exports, ``summary`` and the MCP answers build it in one go (``analyze``); the TUI grows the
same analysis as its worker reads the kernels (``report_analysis.ReportAnalysis``) and makes
the ``AnalyzedReport`` from it once every kernel is read (``assemble``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from kernelscope.core.errors import kernel_filter
from kernelscope.core.kernel_names import ShortNames
from kernelscope.core.text_spool import TextSpool
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel, found_measured
from kernelscope.kinds.ncu.analysis.analyzed_kernel import (  # where the views import it from
    diagnose_summary as diagnose_summary,
)
from kernelscope.kinds.ncu.analysis.diagnosis import (
    REQUIRED_METRICS,
    Diagnosis,
    diagnose,
    with_time_share,
)
from kernelscope.kinds.ncu.analysis.families import KernelFamily, ReportFamilies, kernel_families
from kernelscope.kinds.ncu.model import KernelDetail, KernelSummary, NcuReport, open_ncu_report
from kernelscope.kinds.ncu.model.summary_reader import summary_from_detail

ProgressFn = Callable[[int, int], None]


def open_for_analysis(path: str | os.PathLike[str], also: Iterable[str] = ()) -> NcuReport:
    """Open a kernel report reading the metrics the diagnosis needs (and ``also``) in the
    list pass too."""
    return open_ncu_report(path, extra_metrics=(*REQUIRED_METRICS, *also))


@dataclass(frozen=True)
class AnalyzedReport:
    report: NcuReport
    kernels: tuple[AnalyzedKernel, ...]
    total_ns: float
    sections: frozenset[str]
    """Every section identifier collected for at least one kernel."""
    details: dict[int, KernelDetail] = field(default_factory=dict)
    """Details read in the same pass as the summaries (exports of every kernel)."""
    extras: MutableMapping[int, Any] = field(default_factory=dict)
    """What ``analyse`` made of each detail beside its diagnosis (e.g. rendered records,
    kept in a ``TextSpool``, in memory up to its budget and then in a file, when every
    kernel's detail is read)."""
    process: str | None = None
    """Only kernels of this process (its id, or its name) are selected, when set."""
    families: ReportFamilies = field(default_factory=lambda: kernel_families(()))
    """The kernels grouped into families, ranked by total time (``kinds.ncu.analysis.families``)."""
    held_names: ShortNames | None = None
    """The report's short names where they are already made (the TUI's held analysis)."""

    def kernel(self, kernel_id: int) -> AnalyzedKernel:
        return self.kernels[kernel_id]

    @cached_property
    def names(self) -> ShortNames:
        """The report's short kernel names (unique within it)."""
        if self.held_names is not None:
            return self.held_names
        return ShortNames(k.demangled for k in self.kernels)

    def short_name(self, kernel: AnalyzedKernel) -> str:
        """The kernel's short name, with its launch shape where only that tells its family
        from the others of the name (``KernelFamily.label``)."""
        family = self.families.family_of(kernel.id)
        short = self.names[kernel.demangled]
        return family.label(short) if family is not None else short

    @property
    def unmeasured(self) -> int:
        """How many kernels have no measurement (left out of ``total_ns`` and the shares)."""
        return sum(1 for k in self.kernels if not k.summary.measured)

    @property
    def total_text_ns(self) -> float | None:
        """``total_ns``, or None when no kernel was measured (so no total is known)."""
        return self.total_ns if self.unmeasured < len(self.kernels) else None

    def family_labels(self, family: KernelFamily) -> list[str]:
        """The bottleneck label of each launch of ``family``."""
        return [self.kernels[i].label for i in family.ids]

    def family(self, kernel_id: int) -> KernelFamily | None:
        """The family of kernel ``kernel_id``."""
        return self.families.family_of(kernel_id)

    def select_families(
        self, pattern: str | None = None, top: int | None = None, process: str | None = None
    ) -> list[KernelFamily]:
        """The families with a launch ``select(pattern)`` keeps, largest total first; with
        ``top``, the N largest."""
        wanted = {self.families.index_of[k.id] for k in self.select(pattern, process=process)}
        chosen = [f for f in self.families if f.index in wanted]
        return chosen if top is None else chosen[: max(0, top)]

    def select(
        self, pattern: str | None = None, top: int | None = None, process: str | None = None
    ) -> list[AnalyzedKernel]:
        """Kernels whose name matches ``pattern`` and that ran in ``process`` (default: the
        report's ``process``); with ``top``, the launches of the N families with the most time."""
        regex = kernel_filter(pattern)
        process = process if process is not None else self.process
        chosen = [
            k
            for k in self.kernels
            if (process is None or in_process(k.summary, process))
            and (
                regex is None
                or regex.search(k.summary.identity.function)
                or regex.search(k.summary.identity.demangled)
            )
        ]
        if top is not None:  # the launches of the N families with the most time
            ranked = sorted({self.families.index_of[k.id] for k in chosen})[: max(0, top)]
            keep = set(ranked)
            chosen = [k for k in chosen if self.families.index_of[k.id] in keep]
        return chosen

    def iter_detail_diagnoses(
        self, kernel_ids: list[int]
    ) -> Iterator[tuple[KernelDetail, Diagnosis]]:
        """Details (with source hot spots) and diagnoses of ``kernel_ids``, in that order."""
        if all(k in self.details for k in kernel_ids):
            # The summaries were made from these details, so their diagnoses are the same.
            for k in kernel_ids:
                yield self.details[k], self.kernels[k].diagnosis
            return
        pending: dict[int, KernelDetail] = {}
        order = iter(kernel_ids)
        want = next(order, None)
        for batch in self.report.iter_details(list(kernel_ids), curves=False):
            for detail in batch:
                pending[detail.id] = detail
            while want is not None and want in pending:
                detail = pending.pop(want)
                yield detail, self.diagnose_detail(detail)
                want = next(order, None)

    def diagnose_detail(self, detail: KernelDetail) -> Diagnosis:
        """``detail``'s diagnosis weighed by its own and its family's share of the time."""
        return weighed_diagnosis(detail, self.kernels[detail.id].time_share, self.families)


@dataclass(frozen=True)
class ReportWeights:
    """What weighs a kernel's diagnosis within its report (step 0 of the method): each
    kernel's share of the summed time of the measured kernels, and the families with theirs.
    ``analyze`` weighs the exports', ``summary``'s and the MCP answers' diagnoses so; the
    TUI's analysis (``ReportAnalysis.weights``) makes one of the kernels it holds for the
    Diagnosis pane, so that a kernel weighs the same in every view (1.0 for the one kernel of a
    report, as everywhere)."""

    shares: Mapping[int, float | None]
    total_ns: float
    families: ReportFamilies

    @classmethod
    def of(
        cls, summaries: Sequence[KernelSummary], families: ReportFamilies | None = None
    ) -> ReportWeights:
        """The weights of ``summaries`` (``families``: their families, when already made)."""
        ordered = sorted(summaries, key=lambda s: s.id)
        shares, total = time_shares(ordered)
        by_id = {s.id: share for s, share in zip(ordered, shares, strict=True)}
        return cls(by_id, total, families if families is not None else kernel_families(ordered))

    def diagnose(self, detail: KernelDetail) -> Diagnosis:
        """``detail``'s diagnosis weighed by its own and its family's share of the time."""
        return self.weigh(diagnose_detail(detail, None), detail.id)

    def weigh(self, diagnosis: Diagnosis, kernel_id: int) -> Diagnosis:
        """Kernel ``kernel_id``'s diagnosis as made alone (not weighed yet), weighed by its
        own and its family's share of the time (``with_family_share``)."""
        return with_family_share(diagnosis, self.shares.get(kernel_id), self.families, kernel_id)


def weighed_diagnosis(
    detail: KernelDetail, time_share: float | None, families: ReportFamilies
) -> Diagnosis:
    """The one diagnosis of a kernel's detail: diagnosed alone, then weighed by its share of
    the time and its family's (``with_family_share``)."""
    return with_family_share(diagnose_detail(detail, None), time_share, families, detail.id)


def in_process(summary: KernelSummary, process: str) -> bool:
    """True when the kernel ran in ``process``: a process id, or the executable's name."""
    return origin_in_process(summary.identity.pid, summary.identity.process, process)


def origin_in_process(pid: object, name: object, process: str) -> bool:
    """True when a launch of process ``pid`` named ``name`` ran in ``process``."""
    wanted = process.strip()
    if wanted.isdigit():
        return pid is not None and int(wanted) == pid
    return wanted == name


def diagnose_detail(detail: KernelDetail, time_share: float | None = None) -> Diagnosis:
    """As ``diagnose_summary``, from the detail (its source hot lines included)."""
    return diagnose(
        detail.metrics,
        detail.rules,
        frozenset(detail.sections),
        time_share=time_share,
        unmeasured=detail.unmeasured,
        source=detail.source,
        measured=found_measured(detail),
    )


def measured_duration(summary: KernelSummary) -> float | None:
    """The kernel's duration (ns) when it was measured, else None."""
    return summary.duration_ns


def with_family_share(
    diagnosis: Diagnosis, time_share: float | None, families: ReportFamilies, kernel_id: int
) -> Diagnosis:
    """Step 0's evidence: the kernel's share of the time and its family's (``family_shares``)."""
    return with_time_share(diagnosis, *family_shares(time_share, families, kernel_id))


def family_shares(
    time_share: float | None, families: ReportFamilies, kernel_id: int
) -> tuple[float | None, float | None, int]:
    """What weighs kernel ``kernel_id`` (``with_time_share``'s and ``diagnose``'s): its own
    share of the time, its family's and its family's launches."""
    f = families.family_of(kernel_id)
    return (time_share, None, 1) if f is None else (time_share, f.time_share, f.count)


def time_shares(summaries: list[KernelSummary]) -> tuple[list[float | None], float]:
    """Each kernel's share of the summed duration of the measured kernels, and that sum (ns).
    A kernel without measurement has no share and adds nothing to the sum."""
    durations = [measured_duration(s) for s in summaries]
    total = float(sum(d for d in durations if d is not None))
    shares = [(d / total if total > 0 else None) if d is not None else None for d in durations]
    return shares, total


def diagnose_only(detail: KernelDetail) -> tuple[Diagnosis, None]:
    """The default per-detail analysis of ``analyze(details=True)``: the diagnosis alone."""
    return diagnose_detail(detail, None), None


def analysed_in_workers(
    report: NcuReport, kernel_ids: list[int], analyse: Callable[[KernelDetail], Any],
    **options: Any,
) -> dict[int, Any]:
    """``analyse(detail)`` of each kernel, by id, computed as each detail is read (the
    details are not kept). ``options`` go to ``NcuReport.iter_details``."""
    found: dict[int, Any] = {}
    for batch in report.iter_details(kernel_ids, analyse=analyse, slim=True, **options):
        for summary, result in batch:
            found[summary.id] = result
    return found


def _take_details(
    batch: Sequence[tuple[KernelDetail | KernelSummary, tuple[Diagnosis, Any]]],
    summaries: list[KernelSummary],
    kept: dict[int, KernelDetail],
    early: dict[int, Diagnosis],
    extras: MutableMapping[int, Any],
) -> None:
    """File one batch of read details: its summaries, the details (unless slim), and each
    kernel's early diagnosis and extra result."""
    for item, (diagnosis, extra) in batch:
        if isinstance(item, KernelSummary):  # slim: only the list's view came back
            summary = item
        else:
            kept[item.id] = item
            summary = summary_from_detail(item)
        early[summary.id] = diagnosis
        extras[summary.id] = extra
        summaries.append(summary)


def _analyzed_kernels(
    summaries: Sequence[KernelSummary], early: Mapping[int, Diagnosis], weights: ReportWeights
) -> tuple[AnalyzedKernel, ...]:
    """Each kernel with its diagnosis weighed by its share and its family's: the early one
    where the read made it (``ReportWeights.weigh``), else made weighed when first asked for
    (``AnalyzedKernel``)."""
    found = []
    for s in summaries:
        kernel_id = s.id  # (a property: read once)
        share = weights.shares.get(kernel_id)
        if kernel_id in early:
            found.append(AnalyzedKernel(s, weights.weigh(early[kernel_id], kernel_id), share))
        else:
            weighing = family_shares(share, weights.families, kernel_id)
            found.append(AnalyzedKernel(s, None, share, weighing))
    return tuple(found)


def analyze(
    report: NcuReport,
    progress: ProgressFn | None = None,
    *,
    details: bool = False,
    analyse: Callable[[KernelDetail], tuple[Diagnosis, Any]] = diagnose_only,
    breakdowns: bool = True,
    slim: bool = False,
    tables: bool | None = None,
    all_metrics: bool = False,
) -> AnalyzedReport:
    """Summarise and diagnose every kernel of an opened report. With ``details``, read every
    kernel's full detail (with source hot spots) in the same single pass, for exports that
    write a record per kernel; ``analyse`` (run on each detail as it is read)
    returns each detail's diagnosis without time share and an extra result. With
    ``slim``, the details themselves are not kept; ``tables``
    and ``all_metrics`` are passed to ``NcuReport.iter_details``."""
    summaries: list[KernelSummary] = []
    kept: dict[int, KernelDetail] = {}
    early: dict[int, Diagnosis] = {}
    extras: MutableMapping[int, Any] = TextSpool() if details else {}
    if details:
        batches = report.iter_details(
            list(range(report.kernel_count)), curves=False, breakdowns=breakdowns,
            analyse=analyse, slim=slim, tables=tables, all_metrics=all_metrics,
            meanwhile=(lambda: report.device) if report.kernel_count else None,
        )
        for batch in batches:
            _take_details(batch, summaries, kept, early, extras)
            if progress is not None:
                progress(len(summaries), report.kernel_count)
    else:  # diagnosed once every share is known, where asked (``_analyzed_kernels``)
        for summary_batch in report.iter_summaries():
            summaries.extend(summary_batch)
            if progress is not None:
                progress(len(summaries), report.kernel_count)
    summaries.sort(key=lambda s: s.id)
    return assemble(report, summaries, early, ReportWeights.of(summaries), kept, extras)


def assemble(
    report: NcuReport,
    summaries: Sequence[KernelSummary],
    early: Mapping[int, Diagnosis],
    weights: ReportWeights,
    kept: dict[int, KernelDetail] | None = None,
    extras: MutableMapping[int, Any] | None = None,
    names: ShortNames | None = None,
) -> AnalyzedReport:
    """The analysed report of ``summaries`` (every kernel, in ID order), each with its
    diagnosis as read (``early``; made where missing) weighed by ``weights``: what ``analyze``
    returns, and what the TUI's held analysis (``report_analysis.ReportAnalysis``) makes once
    every kernel is read (with its short ``names``, already made)."""
    kernels = _analyzed_kernels(summaries, early, weights)
    sections = frozenset().union(*(s.sections for s in summaries)) if summaries else frozenset()
    return AnalyzedReport(
        report, kernels, weights.total_ns, sections, details=kept if kept is not None else {},
        extras=extras if extras is not None else {}, families=weights.families,
        held_names=names,
    )
