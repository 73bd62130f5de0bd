"""A kernel report's one analysis, grown as its kernels are read: what every TUI view reads.

The kernel session's reading worker diagnoses each summary as it reads it
(``diagnose_summary``, the pass ``analyze`` makes for the exports; the first screenful once
it is drawn, ``hold_diagnoses``) and the UI thread adds the batches here, so the list shows
its first rows while the rest is read. The modules of the diagnosis, the families and the
roofline are imported where used: the list's first rows come before them. Each thing is made once
and kept: the short names as names arrive, the families and the weights once per number of
kernels held (for good once every kernel is read), each kernel's roofline point with its
diagnosis, the Diagnosis pane's weighed diagnosis of a detail (made in the worker that read
the detail), and, once complete, the ``AnalyzedReport`` the exports render
(``kernel_analysis.assemble``, as ``analyze`` makes it): the TUI's ``e`` renders that.

Batches are added on one thread; a worker thread may weigh a detail meanwhile: every
``add`` replaces the list of summaries rather than changing it, so what a worker took stays
whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from kernelscope.core.families import shape_tag, with_shape
from kernelscope.core.kernel_names import ShortNames
from kernelscope.kinds.ncu.model import KernelDetail, KernelSummary, NcuReport

if TYPE_CHECKING:  # (imported where used: the TUI's first rows come before the diagnosis)
    from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis
    from kernelscope.kinds.ncu.analysis.families import ReportFamilies
    from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport, ReportWeights
    from kernelscope.kinds.ncu.analysis.roofline import Roofline

RooflinePoint = tuple[int, str, "Roofline | None"]
"""A kernel's place on the roofline: its ID, its short name and its roofline (None: none)."""


class ReportAnalysis:
    """The analysis of one kernel report, as far as it is read."""

    def __init__(self, report: NcuReport | None = None) -> None:
        self.report = report
        self.summaries: list[KernelSummary] = []
        """The kernels read so far, in ID order (a new list at each ``add``)."""
        self.complete = False
        """Whether every kernel is read (the shares are known from then on)."""
        self.names = ShortNames()
        """The report's short kernel names (unique among the kernels read so far)."""
        self._by_id: dict[int, KernelSummary] = {}
        self._diagnoses: dict[int, Diagnosis] = {}
        self._shapes: dict[str, set[tuple[str, str]]] = {}
        """Per demangled name, the launch configurations (grid, block) read so far."""
        self._short: dict[str, dict[int, str]] = {}
        """Per demangled name, each kernel's short name with its shape, made once (again for
        the names whose short name or shapes change)."""
        self._families: tuple[int, ReportFamilies] | None = None
        self._weights: tuple[int, ReportWeights] | None = None
        self._shares: tuple[int, dict[int, float | None]] | None = None
        self._weighed: dict[int, tuple[int, Diagnosis]] = {}
        self._plain: dict[int, Diagnosis] = {}
        """Each read detail's diagnosis before it is weighed (``weighed`` weighs it again
        when more kernels are read)."""
        self._points: tuple[int, tuple[RooflinePoint, ...]] | None = None
        self._analyzed: AnalyzedReport | None = None

    @classmethod
    def read(cls, report: NcuReport, cancelled: Callable[[], bool] | None = None
             ) -> ReportAnalysis:
        """Every kernel of ``report`` read and diagnosed, as the kernel session reads them."""
        from kernelscope.kinds.ncu.analysis.kernel_analysis import diagnose_summary

        analysis = cls(report)
        for batch in report.iter_summaries(cancelled=cancelled, analyse=diagnose_summary):
            analysis.add(batch)
        analysis.finish()
        return analysis

    @classmethod
    def of(cls, analyzed: AnalyzedReport) -> ReportAnalysis:
        """The analysis of a report ``analyze`` read whole (a join's kernel report)."""
        analysis = cls(analyzed.report)
        analysis.add([(k.summary, k.diagnosis) for k in analyzed.kernels])
        analysis._families = (len(analyzed.kernels), analyzed.families)
        analysis.finish()
        analysis._analyzed = analyzed
        return analysis

    # -- growing ---------------------------------------------------------------------------
    def add(self, batch: Iterable[KernelSummary | tuple[KernelSummary, Diagnosis | None]]
            ) -> set[str]:
        """Keep a batch of summaries, each with its diagnosis as read where it comes with one
        (batches may arrive roughly, not strictly, in ID order). Returns the demangled names
        whose short name changed (a new kernel can make an earlier name ambiguous, or give
        its name a second launch shape)."""
        summaries = []
        for item in batch:
            summary, diagnosis = item if isinstance(item, tuple) else (item, None)
            summaries.append(summary)
            self._by_id[summary.id] = summary
            if diagnosis is not None:
                self._diagnoses[summary.id] = diagnosis
        if not summaries:
            return set()
        held = self.summaries
        in_order = not held or min(s.id for s in summaries) > held[-1].id
        joined = [*held, *summaries]
        self.summaries = joined if in_order else sorted(joined, key=lambda s: s.id)
        renamed = self.names.add(s.name for s in summaries) | self._new_shapes(summaries)
        for name in renamed:
            self._short.pop(name, None)
        return renamed

    def _new_shapes(self, summaries: Sequence[KernelSummary]) -> set[str]:
        reshaped = set()
        for summary in summaries:
            shapes = self._shapes.setdefault(summary.name, set())
            if summary.identity.shape not in shapes:
                shapes.add(summary.identity.shape)
                if len(shapes) > 1:
                    reshaped.add(summary.name)
        return reshaped

    def finish(self) -> None:
        """Every kernel is read: the shares are known, the families final."""
        self.complete = True

    # -- per kernel ------------------------------------------------------------------------
    def summary(self, kernel_id: int) -> KernelSummary | None:
        return self._by_id.get(kernel_id)

    def diagnosis(self, summary: KernelSummary) -> Diagnosis:
        """The kernel's diagnosis as read (not weighed): the list's bottleneck and flags."""
        held = self._diagnoses.get(summary.id)
        if held is None:  # added without one (a view's test): made once, here
            from kernelscope.kinds.ncu.analysis.kernel_analysis import diagnose_summary

            held = self._diagnoses[summary.id] = diagnose_summary(summary)
        return held

    def hold_diagnoses(self, diagnosed: Iterable[tuple[KernelSummary, Diagnosis]]) -> None:
        """Keep the diagnoses of kernels added before without one (the TUI's first rows,
        read before the diagnosis's modules were imported)."""
        for summary, diagnosis in diagnosed:
            self._diagnoses[summary.id] = diagnosis

    def short_name(self, summary: KernelSummary) -> str:
        """The kernel's short name, unique among the kernels read so far, with its launch
        shape where only that tells it from launches of the same name
        (``core.families.shape_tag``)."""
        made = self._short.setdefault(summary.name, {})
        short = made.get(summary.id)
        if short is None:
            shape = shape_tag(summary.identity.shape, self._shapes.get(summary.name, ()))
            short = made[summary.id] = with_shape(self.names[summary.name], shape)
        return short

    def time_share(self, kernel_id: int) -> float | None:
        """The kernel's share of the summed kernel time (0–1); None until every kernel is
        read (the sum is not known before)."""
        return self._time_shares().get(kernel_id) if self.complete else None

    def _time_shares(self) -> Mapping[int, float | None]:
        """Each kernel's share, as the weights hold it; made alone when the weights are not
        made yet (the list's share column does not wait for the families they hold)."""
        summaries = self.summaries
        weights = self._weights
        if weights is not None and weights[0] == len(summaries):
            return weights[1].shares
        held = self._shares
        if held is None or held[0] != len(summaries):
            from kernelscope.kinds.ncu.analysis.kernel_analysis import time_shares

            ordered = sorted(summaries, key=lambda s: s.id)
            shares, _ = time_shares(ordered)
            by_id = {s.id: share for s, share in zip(ordered, shares, strict=True)}
            held = self._shares = (len(summaries), by_id)
        return held[1]

    # -- the whole report so far -----------------------------------------------------------
    @property
    def families(self) -> ReportFamilies:
        """The families of the kernels read so far (grouped once per number of kernels)."""
        return self._families_of(self.summaries)

    def _families_of(self, summaries: list[KernelSummary]) -> ReportFamilies:
        held = self._families
        if held is None or held[0] != len(summaries):
            from kernelscope.kinds.ncu.analysis.families import kernel_families

            held = self._families = (len(summaries), kernel_families(summaries))
        return held[1]

    def weights(self) -> ReportWeights:
        """Each kernel's share and its family's, among the kernels read so far."""
        summaries = self.summaries
        held = self._weights
        if held is None or held[0] != len(summaries):
            from kernelscope.kinds.ncu.analysis.kernel_analysis import ReportWeights

            families = self._families_of(summaries)
            held = self._weights = (len(summaries), ReportWeights.of(summaries, families))
        return held[1]

    def weighed(self, detail: KernelDetail) -> Diagnosis:
        """The Diagnosis pane's diagnosis of ``detail``: from the detail, weighed within the
        report as every view weighs it (``ReportWeights.weigh``: the same step), made once
        per kernel and weights (a worker's work: a detail's diagnosis takes milliseconds)."""
        count = len(self.summaries)
        held = self._weighed.get(detail.id)
        if held is not None and held[0] == count:
            return held[1]
        plain = self._plain.get(detail.id)
        if plain is None:  # the costly part, once a kernel: weighing again is cheap
            from kernelscope.kinds.ncu.analysis.kernel_analysis import diagnose_detail

            plain = self._plain[detail.id] = diagnose_detail(detail, None)
        diagnosis = self.weights().weigh(plain, detail.id)
        self._weighed[detail.id] = (count, diagnosis)
        return diagnosis

    def held_weighed(self, kernel_id: int) -> Diagnosis | None:
        """The pane's diagnosis of kernel ``kernel_id`` when it is made for the kernels held
        now, else None (``weighed`` makes it)."""
        held = self._weighed.get(kernel_id)
        return held[1] if held is not None and held[0] == len(self.summaries) else None

    def roofline_points(self) -> tuple[RooflinePoint, ...]:
        """Every kernel read so far on the roofline, by its short name (made once per number
        of kernels)."""
        summaries = self.summaries
        held = self._points
        if held is None or held[0] != len(summaries):
            points = tuple((s.id, self.names[s.name], self.diagnosis(s).roofline)
                           for s in summaries)
            held = self._points = (len(summaries), points)
        return held[1]

    def analyzed(self) -> AnalyzedReport:
        """The whole report analysed as the exports render it, made once when every kernel is
        read (from what is held: nothing is read or diagnosed again)."""
        if self._analyzed is None:
            if not self.complete or self.report is None:
                raise ValueError("the report is analysed whole once every kernel is read")
            from kernelscope.kinds.ncu.analysis.kernel_analysis import assemble

            summaries = self.summaries
            early = {s.id: self.diagnosis(s) for s in summaries}
            self._analyzed = assemble(self.report, summaries, early, self.weights(),
                                      names=self.names)
        return self._analyzed
