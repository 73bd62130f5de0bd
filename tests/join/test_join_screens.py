"""Screens the join reuses behave as they do on their own: the kernel detail of a ranked
kernel marks a baseline with ``b``, diagnoses it against its whole report and exports its
record with ``e``; ``e`` on the timeline opened from a row exports the timeline, not the
join's ranking. One walk of the join after one of the kernel report opened alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from kernelscope.kinds.join.screens.join_screen import JoinScreen
from kernelscope.kinds.ncu.screens.kernel_detail import KernelDetailScreen
from kernelscope.timeline.screens.timeline import TimelineScreen
from kernelscope.tui.app import KernelscopeApp, create_app
from tests.join.conftest import KERNELS_XZ, TRACE_XZ
from tests.tui.helpers import settle, widget_text

SIZE = (140, 40)
GEMM_ROW = 5
"""The ranking's 6th row: the GEMM family, profiled; its longest launch is kernel 7."""
UNPROFILED_ROW = 11
"""The first family nobody profiled (``?1``): enter shows it on the timeline."""


async def reach(pilot: Pilot[None], check: Callable[[], object]) -> None:
    """Let every worker finish and its messages be handled, then ``check`` must hold (what
    the workers bring: a screen shown, a file written)."""
    await settle(pilot)
    assert check()


async def open_row(pilot: Pilot[None], app: KernelscopeApp, row: int) -> None:
    await reach(pilot, lambda: isinstance(app.screen, JoinScreen)
                and bool(app.screen.query("#join-ranking")))
    await pilot.press(*["down"] * row, "enter")


def diagnosis_text(screen: KernelDetailScreen) -> str:
    return widget_text(screen.query_one("#diagnosis-pane"))


async def kernel_from_join(pilot: Pilot[None], app: KernelscopeApp) -> KernelDetailScreen:
    await open_row(pilot, app, GEMM_ROW)
    await reach(pilot, lambda: isinstance(app.screen, KernelDetailScreen))
    screen = app.screen
    assert isinstance(screen, KernelDetailScreen) and screen.kernel_id == 7
    return screen


async def diagnosis_alone() -> str:
    """The Diagnosis pane of kernel 7 in the kernel report opened alone."""
    alone = create_app(KERNELS_XZ)
    async with alone.run_test(size=SIZE) as pilot:
        await reach(pilot, lambda: alone.screen.id == "kernel-list"
                    and getattr(alone.session, "loaded_all", False))
        await pilot.press("g", "7", "enter", "enter")
        await reach(pilot, lambda: isinstance(alone.screen, KernelDetailScreen))
        assert isinstance(alone.screen, KernelDetailScreen)
        return diagnosis_text(alone.screen)


async def b_and_e_on_the_kernel(pilot: Pilot[None], screen: KernelDetailScreen,
                                folder: Path) -> None:
    await pilot.press("b")
    await settle(pilot)
    assert "this is the baseline" in widget_text(screen.query_one("#detail-header"))
    assert "Baseline: this kernel (nvjet_sm90_tst_256x128_64x…_bz_coopA_NNT); b on it " \
        "clears the baseline." in diagnosis_text(screen)
    await pilot.press("b")
    await settle(pilot)
    assert "baseline" not in widget_text(screen.query_one("#detail-header"))
    await pilot.press("e")
    await reach(pilot, lambda: any(folder.iterdir()))
    assert sorted(p.name for p in folder.iterdir()) == ["join_kernels.kernel-7.md"]
    record = (folder / "join_kernels.kernel-7.md").read_text()
    assert record.splitlines()[0] == "# Kernel report: join\\_kernels.ncu-rep.xz, kernel 7"


@pytest.mark.asyncio
async def test_a_kernel_and_a_timeline_opened_from_the_join(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    expected = await diagnosis_alone()
    assert "share of profiled GPU time of its family of 12 launches = 0.789 — this launch " \
        "13.23%" in expected
    app = create_app([TRACE_XZ, KERNELS_XZ])
    async with app.run_test(size=SIZE) as pilot:
        screen = await kernel_from_join(pilot, app)
        # the diagnosis inside the join agrees with the kernel opened alone
        assert diagnosis_text(screen) == expected
        await b_and_e_on_the_kernel(pilot, screen, tmp_path)
        # e on a timeline opened from the join exports the timeline
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press(*["up"] * GEMM_ROW)  # back to the ranking's first row
        await open_row(pilot, app, UNPROFILED_ROW)
        await reach(pilot, lambda: isinstance(app.screen, TimelineScreen)
                    and app.screen.data is not None)
        await pilot.press("e")
        await reach(pilot, lambda: len(list(tmp_path.iterdir())) == 2)
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["join_kernels.kernel-7.md", "join_trace.timeline.md"]
    text = (tmp_path / "join_trace.timeline.md").read_text()
    assert text.startswith("# Timeline report: join\\_trace.sqlite.xz\n")
