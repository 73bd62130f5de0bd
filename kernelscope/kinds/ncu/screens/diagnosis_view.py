"""What the Diagnosis pane shows of a kernel, as a plain object (no Textual): the kernel's
diagnosis from its detail, weighed within the report the way the exports, ``summary`` and the
MCP answers weigh it (``kernel_analysis.ReportWeights``), and the label, share and top flag
read from it. The widget (``widgets/diagnosis_pane.py``) only draws it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis
from kernelscope.kinds.ncu.analysis.diagnosis.verdict import top_flag
from kernelscope.kinds.ncu.analysis.kernel_analysis import ReportWeights
from kernelscope.kinds.ncu.model import KernelDetail, KernelSummary


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
    """The pane's diagnoses: each kernel's detail weighed within the summaries listed so far
    (the weights made once per list of summaries, not per keystroke)."""

    def __init__(self) -> None:
        self._weights: tuple[int, int, ReportWeights] | None = None

    def weights(self, summaries: Sequence[KernelSummary]) -> ReportWeights:
        key = (id(summaries), len(summaries))
        if self._weights is None or self._weights[:2] != key:
            self._weights = (*key, ReportWeights.of(summaries))
        return self._weights[2]

    def read(self, detail: KernelDetail, summaries: Sequence[KernelSummary]) -> PaneReading:
        """``detail`` diagnosed and weighed among ``summaries`` (the report's kernels)."""
        return PaneReading(self.weights(summaries).diagnose(detail))
