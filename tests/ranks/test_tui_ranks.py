"""The ranks screen, driven with Pilot: views, the heatmap, drilling into a rank's timeline
and back, export, cancel and errors; SVG snapshots of the four views."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from textual.pilot import Pilot

from kernelscope.kinds.ranks.screens.ranks import RanksScreen, RankTimelineScreen
from kernelscope.timeline.screens.widgets.timeline_table import FrameTable
from kernelscope.tui.app import KernelscopeApp, create_app
from kernelscope.ui.error import ErrorScreen
from tests.timeline_tui.helpers import screen_text, settle, until_drawn
from tests.tui.helpers import kind_found

SIZE = (150, 40)


def make_app(directory: Path, cache_dir: Path) -> KernelscopeApp:
    return create_app([directory], cache_dir=cache_dir, workers=0)


async def wait_loaded(pilot: Pilot[object]) -> None:
    """Let the run's reading (a worker) finish and its views be mounted: then the ranks
    table is filled, or the error screen is up."""
    await settle(pilot)
    app = pilot.app
    assert isinstance(app.screen, ErrorScreen) or (
        isinstance(app.screen, RanksScreen) and app.screen.run is not None
        and app.screen.query_one("#rk-ranks-table").row_count > 0), type(app.screen).__name__


async def test_views_heatmap_and_a_rank_s_timeline(rank_dir: Path, cache_dir: Path):
    app = make_app(rank_dir, cache_dir)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        text = screen_text(app)
        assert "4 ranks" in text and "straggler: rank 2" in text
        assert "rank 2 arrives last at 7 of 8 collectives" in text
        table = app.screen.query_one("#rk-ranks-table")
        assert table.row_count == 4
        await pilot.press("2")
        text = screen_text(app)
        assert "Wait r0" in text and "clock_nanosleep" in text
        assert app.screen.query_one("#rk-steps-table").row_count == 8
        await pilot.press("3")
        assert "nvjet_sm90_tst_256x128" in screen_text(app)
        # the heatmap: zoom, pick a rank, drill into its timeline and back
        await pilot.press("4")
        heat = app.screen.query_one("#rk-heatmap")
        assert heat.selected_rank == 2  # the straggler is selected first
        assert "rank 2 *|" in screen_text(app)
        whole = heat.t1 - heat.t0
        await pilot.press("right", "right", "plus", "plus")
        assert heat.t1 - heat.t0 == pytest.approx(whole / 4, rel=0.01)
        await pilot.press("up")
        assert heat.selected_rank == 1
        window = (heat.t0, heat.t1)
        await pilot.press("enter")
        # the rank's trace read (a worker), its views mounted, and the window it opens on
        # (with its note, "rank 1") shown after their first draw (``call_after_refresh``)
        await until_drawn(pilot)
        assert isinstance(app.screen, RankTimelineScreen) and app.screen.data is not None
        screen = app.screen
        assert screen.path.name == "rank1.sqlite"
        offset = app.screen_stack[-2].run.clock.offsets_ns[1]
        assert screen.window == (window[0] - offset, window[1] - offset)
        assert "rank 1" in screen_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, RanksScreen)
        await pilot.press("0")
        assert heat.t1 - heat.t0 == whole


async def test_export_writes_markdown_into_the_working_directory(rank_dir: Path,
                                                                 cache_dir: Path, tmp_path,
                                                                 monkeypatch):
    monkeypatch.chdir(tmp_path)
    # Worker processes started from inside the app (whose stderr Textual captures).
    app = create_app([rank_dir], cache_dir=cache_dir, workers=2)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await pilot.press("e")
        await settle(pilot)  # the export's worker has written it
        target = tmp_path / f"{rank_dir.name}.ranks.md"
        text = target.read_text()
        assert "## Straggler: rank 2" in text


async def test_a_bad_trace_ends_on_the_error_screen(tmp_path: Path, rank_dir: Path,
                                                    cache_dir: Path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "rank0.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    (bad / "rank1.sqlite").write_bytes((rank_dir / "rank1.sqlite").read_bytes())
    app = make_app(bad, cache_dir)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert "rank0.sqlite" in app.screen.message
        assert app.fatal_error == app.screen.message  # the command line exits 2 with it


async def test_cancel_while_reading_ends_on_the_error_screen(rank_dir: Path, tmp_path: Path):
    app = create_app([rank_dir], cache_dir=tmp_path, workers=2)
    async with app.run_test(size=SIZE) as pilot:
        await kind_found(pilot)  # the ranks screen shows while it reads
        assert isinstance(app.screen, RanksScreen) and app.screen.opening
        await pilot.press("c")
        await settle(pilot)  # the reading worker stops and the error screen is up
        assert isinstance(app.screen, ErrorScreen)
        assert "cancelled" in app.screen.message
        assert app.fatal_error == app.screen.message


def opened_then(keys: Sequence[str]) -> Callable[[Pilot[object]], object]:
    async def run_before(pilot: Pilot[object]) -> None:
        await wait_loaded(pilot)
        for key in keys:
            await pilot.press(key)
        await until_drawn(pilot)

    return run_before


@pytest.mark.parametrize(("name", "keys"), [
    pytest.param("ranks", [], id="ranks"),
    pytest.param("straggler", ["2"], id="straggler"),
    pytest.param("families", ["3"], id="families"),
    pytest.param("heatmap", ["4", "plus"], id="heatmap"),
])
def test_view_snapshot(name: str, keys: list[str], snap_compare, rank_dir: Path,  # type: ignore[no-untyped-def]
                       cache_dir: Path) -> None:
    app = make_app(rank_dir, cache_dir)
    assert snap_compare(app, terminal_size=(120, 36), run_before=opened_then(keys))


async def test_80_columns_keep_rank_first_and_cells_whole(rank_dir: Path, cache_dir: Path):
    """At 80×24 the ranks table leaves out its optional columns instead of moving "Idle gaps
    by cause" before Rank and cutting Comm to ``309.``; the Families tab names every kernel
    apart and sorts by a column it shows."""
    app = make_app(rank_dir, cache_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened_then([])(pilot)
        lines = screen_text(app).splitlines()
        header = next(line for line in lines if "Step time" in line)
        assert header.split()[:6] == ["Rank", "▲", "Step", "time", "GPU", "busy"]
        assert "Idle gaps by cause" in header
        row = next(line for line in lines if line.startswith("      0 "))
        assert "309.52 ms" in row and "30.49 ms" in row
        await pilot.press("3")
        await until_drawn(pilot)
        text = screen_text(app)
        assert "sorted by Total ▼" in text
        table = app.screen.query_one("#rk-families-table", FrameTable)
        names = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert len(names) == 10 and len(set(names)) == 10
        assert names[0] == "nvjet_sm90_tst_256x12…z_coopA_NNT"
        assert "splitKreduce" in names
