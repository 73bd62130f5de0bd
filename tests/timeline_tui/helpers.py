"""Helpers for the timeline tests: open the app on a report, read what the screen shows."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console, Group
from textual.app import App
from textual.css.query import NoMatches
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.screens.timeline import TimelineScreen
from kernelscope.timeline.screens.timeline_views import TimelinePane
from kernelscope.timeline.screens.timeline_views.overview import overview_renderables
from kernelscope.tui.app import KernelscopeApp, create_app
from kernelscope.ui.error import ErrorScreen
from tests.tui.helpers import drawn, screen_text, settle, tables_sized

__all__ = ["drawn", "screen_text", "settle"]


def make_app(path: Path, cache_dir: Path) -> KernelscopeApp:
    return create_app(path, cache_dir=cache_dir)


async def wait_until_open(pilot: Pilot[object]) -> None:
    """Wait until the report's opening worker has finished and what it posted is handled: the
    timeline shows its views, or the error screen is up (no clock: the app's workers)."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ErrorScreen) or (
        isinstance(screen, TimelineScreen) and screen.data is not None), type(screen).__name__


async def timeline_shown(pilot: Pilot[object]) -> TimelinePane:
    """Show the Timeline view (``2``) and return its pane once its window is drawn: the pane
    draws after its first layout (its Resize, after a refresh), which ``settle`` waits for."""
    await pilot.press("2")
    await settle(pilot)
    return pilot.app.screen.query_one(TimelinePane)


async def opened_timeline(pilot: Pilot[object]) -> TimelineScreen:
    """The timeline screen once the trace is read (the opening worker done) and its views are
    mounted."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, TimelineScreen) and screen.data is not None, type(screen).__name__
    return screen


async def until_drawn(pilot: Pilot[object], rounds: int = 50) -> None:
    """Settle, then let the message queues run empty until every table of the screen has
    measured its rows (a table sizes new rows only when its queue is empty: each ``drawn``
    empties them)."""
    await settle(pilot)
    for _ in range(rounds):
        if tables_sized(pilot.app):
            break
        await drawn(pilot)
    await settle(pilot)
    assert tables_sized(pilot.app), "a table drawn before it measured its rows"


def widget_text(widget: Widget) -> str:
    """All the text a widget renders, including what is scrolled out of view."""
    children = [child for child in widget.children if child.display]
    if children:
        return "\n".join(widget_text(child) for child in children)
    width, height = widget.outer_size
    lines = widget.render_lines(Region(0, 0, width, height))
    return "\n".join(strip.text.rstrip() for strip in lines)


def flat(text: str) -> str:
    """``text`` with every run of whitespace (line wraps too) made one space."""
    return " ".join(text.split())


def static_text(app: App[object], selector: str) -> str:
    """The text of a Static on the current screen ("" while that screen is not up yet)."""
    try:
        return widget_text(app.screen.query_one(selector, Static))
    except NoMatches:
        return ""


def error_message(app: App[object]) -> str:
    assert isinstance(app.screen, ErrorScreen), type(app.screen).__name__
    return app.screen.message


def overview_text(data: TimelineData, width: int = 160) -> str:
    """The Overview view's text for ``data`` at ``width`` columns, from the renderables the
    view shows (no app)."""
    console = Console(width=width, file=io.StringIO(), color_system=None)
    with console.capture() as capture:
        console.print(Group(*overview_renderables(data)))
    return capture.get()
