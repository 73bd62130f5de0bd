"""SVG snapshots of every view of the zoo trace (120×36) and of the timeline at 80×24: one
per layout (the timeline zoomed is timeline_cursor's layout; its window is test_timeline_view's).

Review the report before accepting changes: ``pytest tests/timeline_tui --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from textual.pilot import Pilot

from kernelscope.timeline.screens.timeline_views import TimelinePane

from .conftest import ZOO_SQLITE_XZ
from .helpers import make_app, settle, until_drawn, wait_until_open

WIDE = (120, 36)
NARROW = (80, 24)


def opened_then(keys: Sequence[str]) -> Callable[[Pilot[object]], object]:
    async def run_before(pilot: Pilot[object]) -> None:
        await wait_until_open(pilot)
        for key in keys:
            await pilot.press(key)
        await until_drawn(pilot)

    return run_before


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        pytest.param("overview", [], id="overview"),
        pytest.param("timeline_gap", ["2", "g", "g"], id="timeline_gap"),
        # The cursor on the third event of the first stream, zoomed onto it: names drawn in
        # the lanes where they fit, the details line below.
        pytest.param("timeline_cursor", ["2", "right", "right", "enter"],
                     id="timeline_cursor"),
        pytest.param("kernels", ["3"], id="kernels"),
        pytest.param("cpu_calls", ["4"], id="cpu_calls"),
        pytest.param("nvtx", ["5"], id="nvtx"),
        pytest.param("gaps", ["6"], id="gaps"),
        pytest.param("copies", ["7"], id="copies"),
    ],
)
def test_view_snapshot(name: str, keys: list[str], snap_compare, cache_dir: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    assert snap_compare(app, terminal_size=WIDE, run_before=opened_then(keys))


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        pytest.param("timeline_gap", ["2", "g"], id="timeline_gap"),
        pytest.param("overview", [], id="overview"),
    ],
)
def test_narrow_snapshot(name: str, keys: list[str], snap_compare, cache_dir: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app(ZOO_SQLITE_XZ, cache_dir)
    assert snap_compare(app, terminal_size=NARROW, run_before=opened_then(keys))


def test_metric_lanes_snapshot(snap_compare, cache_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """The timeline of the GPU-metrics trace, zoomed onto its GPU work: the four metric lanes
    under the utilisation sparkline and their values at the cursor."""
    from .conftest import NSYS_SAMPLES

    app = make_app(NSYS_SAMPLES / "gpu_metrics.sqlite.xz", cache_dir)

    async def run_before(pilot: Pilot[object]) -> None:
        # Zoomed x32 on the cursor (the first kernel), then the cursor 48 events on, into the
        # eager steps: the values line reads the metrics at its kernel. The steps go through
        # the pane's action for → (test_cursor presses the key), one redraw each, no frame.
        await wait_until_open(pilot)
        await pilot.press("2", *["plus"] * 5)
        pane = pilot.app.screen.query_one(TimelinePane)
        for _ in range(48):
            pane.action_cursor(1)
        await settle(pilot)
        await until_drawn(pilot)

    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)
