"""SVG snapshots of the diff screens (pytest-textual-snapshot), on the committed samples."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot

from kernelscope.tui.app import create_app
from tests.diff.conftest import ncu
from tests.tui.helpers import settle

WIDE = (120, 36)


def keys(*presses: str) -> Callable[[Pilot[object]], Awaitable[None]]:
    async def run(pilot: Pilot[object]) -> None:
        await settle(pilot)
        for key in presses:
            await pilot.press(key)
            await settle(pilot)

    return run


def ladder() -> object:
    return create_app([Path(ncu("gemm_regtile")), Path(ncu("gemm_wmma"))], subcommand="diff")


def test_diff_screen(snap_compare) -> None:
    assert snap_compare(ladder(), run_before=keys(), terminal_size=WIDE)


def test_diff_pair(snap_compare) -> None:
    assert snap_compare(ladder(), run_before=keys("enter"), terminal_size=WIDE)
