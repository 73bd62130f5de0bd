"""The Kineto trace in the TUI: the timeline screen with its lanes and record_function rows,
and a folder of ranks on its run screen."""

from __future__ import annotations

from pathlib import Path

from kernelscope.kinds.kineto.screens.kineto_session import KinetoTimelineScreen
from kernelscope.kinds.ranks.screens.ranks import KinetoRankTimelineScreen, RanksScreen
from kernelscope.tui.app import create_app
from tests.conftest import SAMPLES
from tests.timeline_tui.helpers import screen_text, wait_for, wait_until_open

STEP = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


async def test_kineto_trace_opens_on_the_timeline(tmp_path: Path) -> None:
    app = create_app(STEP, cache_dir=tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until_open(pilot, timeout_s=60)
        assert isinstance(app.screen, KinetoTimelineScreen)
        assert app.screen.data is not None
        text = screen_text(app)
        assert "kineto_step.pt.trace.json.xz · NVIDIA H200 · 171 kernels · 53.20 ms" in text
        assert "causes: cpu-busy 25 · alloc 3 · unknown 3 ·" in text
        await pilot.press("2")
        await pilot.pause()
        text = screen_text(app)
        assert " NVIDIA H200 (0) " in text
        assert "ProfilerStep#2" in text  # record_function ranges are the NVTX rows


async def test_folder_of_ranks_shows_the_straggler(tmp_path: Path) -> None:
    app = create_app(SAMPLES / "kineto" / "ranks", cache_dir=tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, RanksScreen)
                       and app.screen.run is not None, timeout_s=60)
        await pilot.pause()
        assert "rank 2 arrives last at 4 of 4 collectives" in screen_text(app)
        # the heatmap opens the straggler's own Kineto timeline
        await pilot.press("4")
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, KinetoRankTimelineScreen)
                       and app.screen.data is not None, timeout_s=60)
        assert app.screen.path.name == "rank2.pt.trace.json.xz"
        # the window's note shows once the views are mounted
        await wait_for(pilot, lambda: "rank 2" in screen_text(app), timeout_s=30)


async def test_e_writes_the_markdown_with_htas_numbers(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    app = create_app(STEP, cache_dir=tmp_path / "cache")
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until_open(pilot, timeout_s=60)
        await pilot.press("e")
        target = tmp_path / "kineto_step.timeline.md"
        await wait_for(pilot, lambda: target.exists() and target.stat().st_size > 0,
                       timeout_s=30)
        await app.workers.wait_for_complete()
    text = target.read_text()
    assert "## HTA's numbers (Holistic Trace Analysis 0.5.0 definitions)" in text
    assert "| 97.22 % | 2.61 % | 0.16 % | 39.55 ms |" in text
