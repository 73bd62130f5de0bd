"""Pane 0 — Diagnosis: kernelscope's own answer (bottleneck, flags, roofline), see
docs/diagnosis.md. The content is
``kernelscope.kinds.ncu.screens.widgets.diagnosis_pane.DiagnosisView``."""

from __future__ import annotations

from textual.app import ComposeResult

from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.model.panes import DIAGNOSIS
from kernelscope.kinds.ncu.screens.panes.base import Pane
from kernelscope.kinds.ncu.screens.widgets.diagnosis_pane import DiagnosisView


class DiagnosisPane(Pane):
    spec = DIAGNOSIS
    tab_label = "Diagnosis"

    def compose_content(self) -> ComposeResult:
        yield DiagnosisView(id="diagnosis-view")

    def update_content(self, detail: KernelDetail) -> None:
        assert self.report_state is not None, "a pane shows a kernel of a report"
        self.query_one(DiagnosisView).show(detail, self.report_state.pane_view)
