"""The overview shows the model's numbers: devices, span, GPU busy %, top kernels, findings;
number keys, tab, escape and a click on a tab switch views. The overview's numbers are read
from the renderables the view shows (a plain test); the screen's title and keys through Pilot."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import TabbedContent

from kernelscope.timeline.analysis.findings import findings
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.model.model import TimelineReport
from kernelscope.timeline.screens.timeline import VIEW_IDS, TimelineScreen

from .conftest import ZOO_SQLITE_XZ
from .helpers import flat, make_app, overview_text, screen_text, static_text, wait_until_open


def test_overview_numbers_are_the_models(zoo_report: TimelineReport,
                                        zoo_data: TimelineData) -> None:
    shown = flat(overview_text(zoo_data, 120))
    assert "98.8 % of 122.4 ms" in shown  # the GPU's busy share of its span
    assert "NVIDIA H200 (GPU 0, 132 SMs)" in shown
    assert "1.020 s recorded" in shown
    assert "hist_contended" in shown and "59.6 %" in shown  # the top kernel and its share
    found = findings(zoo_report)
    assert found, "the zoo trace has findings"
    for finding in found:
        assert flat(finding.title) in shown
        assert finding.severity.upper() in shown
    assert f"{len(found)} warning" in shown
    # The first offending item of a finding is listed (the first sync memcpy's duration).
    assert "32.27 ms" in shown


async def test_title_keys_and_tabs_switch_views(zoo_report: TimelineReport,
                                               cache_dir: Path) -> None:
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until_open(pilot)
        assert isinstance(app.screen, TimelineScreen)
        assert "98.8 % of 122.4 ms" in flat(static_text(app, "#overview-body"))
        title = screen_text(app).splitlines()[0]
        assert "zoo.sqlite.xz" in title
        assert f"{zoo_report.kernels.height} kernels" in title
        tabs = app.screen.query_one("#tl-views", TabbedContent)
        assert tabs.active == "overview"
        for number, view_id in enumerate(VIEW_IDS, start=1):
            await pilot.press(str(number))
            assert tabs.active == view_id
        await pilot.press("tab")
        assert tabs.active == VIEW_IDS[0]
        await pilot.press("shift+tab")
        assert tabs.active == VIEW_IDS[-1]
        # escape walks back through the views shown before.
        await pilot.press("3", "6")
        await pilot.press("escape")
        assert tabs.active == "kernels"
        await pilot.press("escape")
        assert tabs.active == VIEW_IDS[-1]
        await pilot.click("#--content-tab-gaps")
        assert tabs.active == "gaps"
        assert "GPU idle gaps" in screen_text(app)
