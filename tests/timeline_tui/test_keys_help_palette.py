"""Help lists every key of the screen, the timeline and the tables; the palette offers the
views, gaps and kernels; e calls the app's export when there is one; q quits."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.binding import Binding
from textual.widgets import Input, Markdown, TabbedContent

from kernelscope.timeline.screens.timeline import TimelineScreen
from kernelscope.timeline.screens.timeline_views import TimelinePane
from kernelscope.timeline.screens.widgets.timeline_table import FrameTable
from kernelscope.tui.app import KernelscopeApp
from kernelscope.ui.help import HelpScreen

from .conftest import ZOO_SQLITE_XZ
from .helpers import make_app, wait_for, wait_until_open


async def test_help_lists_every_key(cache_dir: Path) -> None:
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        markdown = app.screen.markdown
        assert "Step 0" in markdown
        bindings = [*TimelineScreen.BINDINGS, *TimelinePane.BINDINGS, *FrameTable.BINDINGS]
        for binding in Binding.make_bindings(bindings):
            assert binding.tooltip, binding
            assert f"`{app.get_key_display(binding)}`" in markdown, binding.key
            assert binding.description in markdown
        assert "Command palette" in markdown
        assert app.screen.query_one(Markdown)
        await pilot.press("escape")
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)


async def test_palette_switches_views_and_opens_gaps(cache_dir: Path) -> None:
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        screen = app.screen
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: bool(app.screen.query(Input)))
        await pilot.press(*"View 6")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.query_one("#tl-views", TabbedContent).active == "gaps"
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: bool(app.screen.query(Input)))
        await pilot.press(*"next large gap")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.query_one("#tl-views", TabbedContent).active == "timeline"
        assert screen.query_one(TimelinePane).selected is not None


async def test_export_key_calls_the_apps_export(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(KernelscopeApp, "action_export", lambda self: calls.append("export"),
                        raising=False)
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        await pilot.press("e")
        assert calls == ["export"]


async def test_q_quits(cache_dir: Path) -> None:
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        await pilot.press("2", "q")
        await pilot.pause()
    assert app.return_code == 0
