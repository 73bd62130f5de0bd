"""The Kineto trace in the TUI: the timeline screen with its lanes and record_function rows,
and a folder of ranks on its run screen."""

from __future__ import annotations

from pathlib import Path

from kernelscope.kinds.kineto.screens.kineto_session import KinetoTimelineScreen
from kernelscope.kinds.ranks.screens.ranks import KinetoRankTimelineScreen, RanksScreen
from kernelscope.tui.app import create_app
from tests.conftest import SAMPLES
from tests.timeline_tui.helpers import screen_text, wait_until_open
from tests.tui.helpers import settle

STEP = SAMPLES / "kineto" / "kineto_step.pt.trace.json.xz"


async def test_kineto_trace_opens_on_the_timeline_and_e_writes_htas_numbers(
        tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    app = create_app(STEP, cache_dir=tmp_path / "cache")
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until_open(pilot)
        assert isinstance(app.screen, KinetoTimelineScreen)
        assert app.screen.data is not None
        text = screen_text(app)
        assert "kineto_step.pt.trace.json.xz · NVIDIA H200 · 171 kernels · 53.20 ms" in text
        assert "causes: cpu-busy 25 · alloc 3 · unknown 3 ·" in text
        await pilot.press("2")
        text = screen_text(app)
        assert " NVIDIA H200 (0) " in text
        assert "ProfilerStep#2" in text  # record_function ranges are the NVTX rows
        await pilot.press("e")
        await settle(pilot)  # the export's worker has written it
    text = (tmp_path / "kineto_step.timeline.md").read_text()
    assert "## HTA's numbers (Holistic Trace Analysis 0.5.0 definitions)" in text
    assert "| 97.22 % | 2.61 % | 0.16 % | 39.55 ms |" in text


async def test_folder_of_ranks_shows_the_straggler(tmp_path: Path) -> None:
    app = create_app(SAMPLES / "kineto" / "ranks", cache_dir=tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)  # the run analysed (a worker) and its screen shown
        assert isinstance(app.screen, RanksScreen) and app.screen.run is not None
        assert "rank 2 arrives last at 4 of 4 collectives" in screen_text(app)
        # the heatmap opens the straggler's own Kineto timeline
        await pilot.press("4")  # the tab switch and its focus run within the key press
        await pilot.press("enter")
        await settle(pilot)  # the rank's trace read and its views mounted
        assert isinstance(app.screen, KinetoRankTimelineScreen) and app.screen.data is not None
        assert app.screen.path.name == "rank2.pt.trace.json.xz"
        text = screen_text(app)
        assert "· rank 2 (process 478)" in text  # the window's note
        assert " GPU utilisation " in text  # the lanes redrawn at their width, labels whole
