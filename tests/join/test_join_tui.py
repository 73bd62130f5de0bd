"""The join in the TUI: ``kernelscope TRACE KERNELS…`` shows the ranking; ``enter`` opens a
profiled kernel's panes or the family (or gap) on the timeline."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from kernelscope.kinds.join.screens.join_screen import JoinScreen
from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.timeline.screens.timeline import TimelineScreen
from kernelscope.tui.app import create_app
from tests.join.conftest import KERNELS_XZ, TRACE_XZ
from tests.tui.helpers import settle

SIZE = (140, 40)


async def until(pilot, check) -> None:  # type: ignore[no-untyped-def]
    """Let every worker finish and its messages be handled; then ``check`` must hold."""
    await settle(pilot)
    assert check(), "the screen did not show"


@pytest.mark.asyncio
async def test_ranking_and_enter(tmp_path: Path) -> None:
    app = create_app([TRACE_XZ, KERNELS_XZ])  # no subcommand: found by content
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, JoinScreen)
                    and bool(app.screen.query("#join-ranking")))
        screen = app.screen
        table = screen.query_one("#join-ranking", DataTable)
        assert table.row_count == 22
        assert str(table.get_row_at(0)[1]) == "Launch overhead: GPU idle between tiny kernels"
        detail = str(screen.query_one("#join-detail", Static).render())
        assert "CUDA Graph" in detail and "3,035 kernels shorter than 20 us" in detail
        # row 6: the GEMM family, profiled: enter opens the longest profiled launch's panes
        await pilot.press(*["down"] * 5)
        assert "nvjet" in str(screen.query_one("#join-detail", Static).render())
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, KernelDetailScreen))
        assert app.screen.kernel_id == 7
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, JoinScreen))
        # after the 11 ranked rows, the families nobody profiled, numbered apart, by time: the
        # first is an unprofiled tiny family: gain unknown, its ncu command; enter shows it on
        # the timeline
        assert [str(c) for c in table.get_row_at(11)] == [
            "?1", "vectorized_elementwise<launch_clamp_scalar>", "not profiled", "6.2 %",
            "1.068 ms", "unknown", "unknown", "profile it"]
        assert "11 families not profiled (gain unknown), listed last by time" in str(
            screen.query_one("#join-title", Static).render())
        await pilot.press(*["down"] * 8)
        text = str(screen.query_one("#join-detail", Static).render())
        assert "$ ncu --set full --import-source yes" in text and "tiny_ops/" in text
        assert "gain: not profiled: what fixing it could save is unknown" in text
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TimelineScreen)
                    and app.screen.data is not None)
        assert app.screen.active_view == "timeline"
        for _ in range(5):  # escape: the panel, the views walked, then the screen
            if not isinstance(app.screen, TimelineScreen):
                break
            await pilot.press("escape")
        assert isinstance(app.screen, JoinScreen)


@pytest.mark.asyncio
async def test_bad_pair_ends_on_one_sentence() -> None:
    app = create_app([KERNELS_XZ, KERNELS_XZ], subcommand="join")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.fatal_error is not None)
        assert "A join needs a timeline" in app.fatal_error
