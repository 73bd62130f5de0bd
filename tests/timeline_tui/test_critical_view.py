"""View 8: the critical path of every step, part by part, and the kernel families' slack."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from kernelscope.kinds.kineto.analysis.timeline import open_kineto
from kernelscope.timeline.screens.timeline_views.critical import (
    families_frame,
    parts_frame,
    path_note,
)
from kernelscope.timeline.screens.widgets.timeline_table import FrameTable
from tests.conftest import SAMPLES

from .helpers import make_app, opened_timeline, screen_text, settle

KINETO = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


def test_the_tables_are_the_critical_path_of_the_steps() -> None:
    data = open_kineto(KINETO)
    cp = data.critical_path
    assert path_note(data).startswith("Median step 17.00 ms (steps: the 3 'ProfilerStep#2'… "
                                      "ranges); on the path: cpu 90 %, api 5 %, thread wait 4 %")
    parts = parts_frame(data)
    assert int(parts["On the path (ns)"].sum()) == int(cp.steps["step_ns"].sum())
    families = families_frame(data)
    kernels = cp.families.filter(pl.col("kind") == "kernel")
    assert families.height == kernels.height
    assert families["Slack"].to_list() == kernels["slack_ns"].to_list()


async def test_key_8_shows_the_critical_path(cache_dir: Path) -> None:
    app = make_app(KINETO, cache_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await opened_timeline(pilot)
        await pilot.press("8")
        await settle(pilot)  # the view's tables filled
        text = screen_text(app)
        assert "What the steps wait on: the critical path, part by part" in text
        assert "enumerate(DataLoader)" in text
        table = app.screen.query_one("#critical-families-table", FrameTable)
        assert table.row_count > 0
