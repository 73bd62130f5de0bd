"""The timeline view: lanes, zoom and pan change the window shown, g/G step through the large
gaps and the side panel explains each one with the model's cause: one walk of keys. (The
window's arithmetic is test_viewport.py's; the panel below the lanes at 80×24 is the
timeline_gap narrow snapshot's.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from kernelscope.timeline.analysis.gap_cause_catalog import gap_cause
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.screens.timeline_views import TimelinePane
from kernelscope.timeline.screens.timeline_views import timeline as pane_module

from .conftest import ZOO_SQLITE_XZ
from .helpers import (
    flat,
    make_app,
    screen_text,
    settle,
    static_text,
    timeline_shown,
    wait_until_open,
)


async def test_showing_the_timeline_draws_its_window_once_at_the_lanes_width(
        cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not first at no width and then again for the pane's Resize, its lanes column's and the
    tab shown, all after one refresh: one draw (a 300,000-kernel trace's took ~35 ms each)."""
    widths: list[int] = []
    real = pane_module.drawn_lanes

    def drawn_lanes(data, view, *args, **kwargs):  # type: ignore[no-untyped-def]
        widths.append(view.width)
        return real(data, view, *args, **kwargs)

    monkeypatch.setattr(pane_module, "drawn_lanes", drawn_lanes)
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        assert widths == []  # the overview is shown first; the timeline is filled when shown
        await timeline_shown(pilot)
        assert widths == [97]  # the zoo's lanes on a 120-column terminal (test_cursor's)
        # resized while another view is shown: drawn once more, at its new width, when shown
        await pilot.press("1")
        await pilot.resize_terminal(160, 40)
        await settle(pilot)
        assert widths == [97]
        await timeline_shown(pilot)
    assert widths == [97, 137]


def window_shown(app) -> str:  # type: ignore[no-untyped-def]
    return static_text(app, "#tl-range").split(" · ")[0].strip()


async def test_lanes_zoom_pan_and_gaps(zoo_data: TimelineData, cache_dir: Path) -> None:
    assert len(zoo_data.large_gaps) == 5
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        await timeline_shown(pilot)
        assert isinstance(app.focused, TimelinePane)
        lanes = static_text(app, "#tl-lanes")
        for lane in zoo_data.index.lanes:
            assert lane.label.strip()[:20] in lanes
        head = static_text(app, "#tl-head")
        assert "GPU utilisation" in head
        assert "0.00 s" in head and "1.00 s" in head  # the 1.02 s capture
        assert window_shown(app) == "0.00 s → 1.02 s"

        # zoom and pan change the window
        pane = app.screen.query_one(TimelinePane)
        full = (pane.viewport.t0, pane.viewport.t1)
        whole = window_shown(app)
        await pilot.press("plus")
        assert pane.viewport.t1 - pane.viewport.t0 == (full[1] - full[0]) // 2
        zoomed = window_shown(app)
        assert zoomed != whole
        assert "509.9 ms" in static_text(app, "#tl-range")  # half of 1,019.8 ms
        await pilot.press("i")
        assert pane.viewport.t1 - pane.viewport.t0 == (full[1] - full[0]) // 4
        before = pane.viewport.t0
        await pilot.press("l")  # ←/→ move the cursor; h/l (and shift+←/→) pan
        assert pane.viewport.t0 > before
        panned = window_shown(app)
        assert panned != zoomed
        await pilot.press("h")
        assert pane.viewport.t0 == before
        await pilot.press("minus", "o")
        assert (pane.viewport.t0, pane.viewport.t1) == full
        await pilot.press("plus", "l", "0")
        assert (pane.viewport.t0, pane.viewport.t1) == full
        assert window_shown(app) == whole

        await gaps_step_and_explain(pilot, pane, zoo_data)


async def gaps_step_and_explain(pilot: Pilot[object], pane: TimelinePane,
                                zoo_data: TimelineData) -> None:
    """g/G step through the large gaps; the panel explains each one; escape closes it."""
    app = pilot.app
    gaps = zoo_data.large_gaps
    assert not app.screen.query_one("#tl-gap-panel").display
    for i in (0, 1):
        await pilot.press("g")
        assert pane.selected == gaps[i]
        assert pane.viewport.t0 <= gaps[i].start_ns < gaps[i].end_ns <= pane.viewport.t1
        panel = flat(static_text(app, "#tl-gap-body"))
        explanation = zoo_data.explanation(gaps[i])
        assert explanation is not None
        assert f"Gap {i + 1} of {len(gaps)}" in panel
        assert f"idle for {('143.2 us', '162.2 us')[i]}" in panel
        assert f"Cause {explanation.cause}" in panel
        assert flat(gap_cause(explanation.cause).description) in panel
        for activity in explanation.cpu[:3]:
            assert activity.name in panel
    await pilot.press("G")
    assert pane.selected == gaps[0]
    await pilot.press("G")  # nothing before the first gap: stays
    assert pane.selected == gaps[0]
    await pilot.press("escape")  # closes the panel, stays on the timeline
    assert pane.selected is None
    assert not app.screen.query_one("#tl-gap-panel").display
    assert "Timeline" in screen_text(app)
