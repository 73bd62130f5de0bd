"""Help lists every key of the screen, the timeline and the tables; the palette offers the
views, gaps and kernels; e calls the app's export when there is one; q quits. (One walk of
them all.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import Input, Markdown, TabbedContent

from kernelscope.timeline.screens.timeline import TimelineScreen
from kernelscope.timeline.screens.timeline_views import TimelinePane
from kernelscope.timeline.screens.widgets.timeline_table import FrameTable
from kernelscope.tui.app import KernelscopeApp
from kernelscope.ui.help import HelpScreen

from .conftest import ZOO_SQLITE_XZ
from .helpers import make_app, settle, wait_until_open


async def palette_command(pilot: Pilot[object], words: str) -> None:
    """Open the palette, type ``words``, wait for its search (a worker) and run the first
    command it offers."""
    screen = pilot.app.screen
    await pilot.press("ctrl+p")
    await settle(pilot)
    assert pilot.app.screen.query(Input)
    await pilot.press(*words)
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    assert pilot.app.screen is screen


async def test_help_export_palette_and_quit(cache_dir: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(KernelscopeApp, "action_export", lambda self: calls.append("export"),
                        raising=False)
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
        await pilot.press("escape")
        await pilot.press("e")
        assert calls == ["export"]
        # the palette offers the views and the gaps
        screen = app.screen
        await palette_command(pilot, "View 6")
        assert screen.query_one("#tl-views", TabbedContent).active == "gaps"
        await palette_command(pilot, "next large gap")
        assert screen.query_one("#tl-views", TabbedContent).active == "timeline"
        assert screen.query_one(TimelinePane).selected is not None
        await pilot.press("2", "q")
    assert app.return_code == 0
