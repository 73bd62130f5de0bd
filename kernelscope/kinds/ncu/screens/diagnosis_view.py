"""What the Diagnosis pane shows of a kernel, as a plain object (no Textual): the kernel's
diagnosis from its detail, weighed within the report the way the exports, ``summary`` and the
MCP answers weigh it (``kernel_analysis.ReportWeights``), and the label, share and top flag
read from it; and the report's kernels on the pane's roofline. Both come from the report's
one analysis (``report_analysis.ReportAnalysis``), where the worker that read the detail
left the diagnosis. The widget (``widgets/diagnosis_pane.py``) only draws it."""

from __future__ import annotations

from dataclasses import dataclass

from kernelscope.core.kernel_names import fit_name
from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis
from kernelscope.kinds.ncu.analysis.diagnosis.verdict import top_flag
from kernelscope.kinds.ncu.analysis.report_analysis import ReportAnalysis, RooflinePoint
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.render.roofline import ChartKernel

CHART_NAME = 28
"""The width a kernel's name is fitted to on the pane's and the roofline screen's chart."""


@dataclass(frozen=True)
class PaneReading:
    """One kernel as the pane reads it."""

    diagnosis: Diagnosis

    @property
    def label(self) -> str:
        return self.diagnosis.label

    @property
    def share(self) -> float | None:
        """The share of the time the diagnosis weighs the kernel by (step 0): its family's
        when it has several launches, else its own; None when unknown."""
        step0 = next((e for e in self.diagnosis.bottleneck.evidence if e.step == "time"), None)
        return None if step0 is None or step0.value is None else float(step0.value)

    @property
    def top_flag(self) -> str | None:
        """The id of the flag the verdict leads with (None: no flag raised)."""
        flag = top_flag(self.diagnosis)
        return flag.id if flag is not None else None


class DiagnosisPaneView:
    """The pane's diagnoses and roofline points, read from the report's analysis."""

    def __init__(self, analysis: ReportAnalysis) -> None:
        self.analysis = analysis
        self._chart: tuple[tuple[RooflinePoint, ...], tuple[ChartKernel, ...]] | None = None

    def read(self, detail: KernelDetail) -> PaneReading:
        """``detail`` diagnosed and weighed among the report's kernels (made once and kept
        in the analysis: a worker's call)."""
        return PaneReading(self.analysis.weighed(detail))

    def held(self, kernel_id: int) -> PaneReading | None:
        """Kernel ``kernel_id``'s reading when the analysis holds it, else None (not made
        yet, or made before more kernels were read)."""
        diagnosis = self.analysis.held_weighed(kernel_id)
        return None if diagnosis is None else PaneReading(diagnosis)

    def chart_kernels(self) -> tuple[ChartKernel, ...]:
        """Every kernel read so far as a roofline point, named by the report's short names
        (fitted once per set of points, not per keystroke)."""
        points = self.analysis.roofline_points()
        if self._chart is None or self._chart[0] is not points:
            kernels = tuple(ChartKernel(i, fit_name(name, CHART_NAME), roofline)
                            for i, name, roofline in points)
            self._chart = (points, kernels)
        return self._chart[1]
