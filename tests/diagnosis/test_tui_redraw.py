"""The Diagnosis pane drawn while kernels were still being read is drawn again once the last
one is read (its weighing among the kernels read by then is stale)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.kinds.ncu.screens.widgets.diagnosis_pane import DiagnosisView
from kernelscope.tui.app import create_app
from tests.tui.helpers import drawn, screen_text, settle

ZOO_A = Path(__file__).resolve().parents[2] / "samples" / "ncu" / "zoo_a.ncu-rep.xz"
STALE = "drawn before the last kernel was read"


async def test_the_diagnosis_pane_is_drawn_again_when_every_kernel_is_read() -> None:
    app = create_app(ZOO_A)
    async with app.run_test(size=(150, 60)) as pilot:
        await settle(pilot)
        app.session.open_kernel(4, "diagnosis")
        await settle(pilot)
        assert isinstance(app.screen, KernelDetailScreen)
        body = app.screen.query_one(DiagnosisView).query_one("#diagnosis-body", Static)
        body.update(STALE)  # what a pane drawn mid-load holds, as far as the screen knows
        await drawn(pilot)
        assert STALE in screen_text(app)
        app.session._loaded(app.session.report.kernel_count)  # the reader's last call
        await settle(pilot)
        text = screen_text(app)
        assert STALE not in text and "Bottleneck: shared-bank-conflict" in text
