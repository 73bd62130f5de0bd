"""SVG snapshot of the join screen (pytest-textual-snapshot): the ranking of the real pair
with the GEMM family highlighted."""

from __future__ import annotations

from textual.pilot import Pilot

from kernelscope.kinds.join.screens.join_screen import JoinScreen
from kernelscope.tui.app import create_app
from tests.join.conftest import KERNELS_XZ, TRACE_XZ
from tests.timeline_tui.helpers import until_drawn
from tests.tui.helpers import settle


async def _ranking(pilot: Pilot[object]) -> None:
    await settle(pilot)  # the join is read in a worker: settled, its screen is up
    assert isinstance(pilot.app.screen, JoinScreen) and pilot.app.screen.query("#join-ranking")
    await pilot.press("down", "down", "down")
    await settle(pilot)
    await until_drawn(pilot)


def test_join_screen(snap_compare) -> None:
    assert snap_compare(create_app([TRACE_XZ, KERNELS_XZ]), run_before=_ranking,
                        terminal_size=(140, 36))
