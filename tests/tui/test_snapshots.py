"""SVG snapshots of every screen and pane (pytest-textual-snapshot).

They use the committed sample ``samples/ncu/zoo_a.ncu-rep.xz`` (not the bundled default, which
may change) and navigate in ``run_before``, waiting for workers, so no timing shows.
Review changes with ``pytest tests/tui --snapshot-report`` before ``--snapshot-update``.
Each layout is guarded once: the wide kernel list by the sorted and filtered one, the Raw page
by its filtered view, the Source page by its SASS view at 120 columns and its source view at 80
(its text at 120 is test_pages's).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from kernelscope.kinds.ncu.model import sass
from kernelscope.tui.app import create_app

from .helpers import SAMPLES, keys

ZOO = SAMPLES / "ncu" / "zoo_a.ncu-rep.xz"
WIDE = (120, 36)
SMALL = (80, 24)

pytestmark = pytest.mark.skipif(not ZOO.exists(), reason=f"no sample {ZOO}")


def detail(kernel_id: int, pane: str) -> Callable[[Pilot[object]], Awaitable[None]]:
    return keys("g", *str(kernel_id), "enter", "enter", pane)


def test_family_view_expanded(snap_compare) -> None:
    """The family view of 150 identical launches and a one-off kernel, the family expanded."""
    small = SAMPLES / "ncu" / "small_family.ncu-rep.xz"
    assert snap_compare(create_app(small), run_before=keys("f", "enter"), terminal_size=WIDE)


def test_kernel_list_sorted_and_filtered(snap_compare) -> None:
    run = keys("s", "s", "slash", "t", "r", "a", "n", "s")
    assert snap_compare(create_app(ZOO), run_before=run, terminal_size=WIDE)


@pytest.mark.parametrize(
    ("kernel_id", "pane"),
    [(4, "0"), (2, "1"), (2, "2"), (4, "3"), (1, "4"), (4, "5"), (4, "7")],
    ids=["diagnosis", "launch", "sol", "occupancy", "memory", "stalls", "rules"],
)
def test_detail_pane(snap_compare, kernel_id: int, pane: str) -> None:
    assert snap_compare(create_app(ZOO), run_before=detail(kernel_id, pane), terminal_size=WIDE)


def test_raw_filtered(snap_compare) -> None:
    """The Raw page (its layout guarded here, not twice) filtered by a regex, the filter
    field focused. The field gets its text at once: typing it refills the table at each key
    (test_keys_and_chrome presses them)."""
    opened = keys("g", "4", "enter", "enter", "8", "slash")

    async def run(pilot: Pilot[object]) -> None:
        await opened(pilot)
        field = pilot.app.focused
        assert isinstance(field, Input)
        field.value = "^dram__"
        await keys()(pilot)

    assert snap_compare(create_app(ZOO), run_before=run, terminal_size=WIDE)


@pytest.mark.skipif(not sass.binding_available(),
                    reason="the SASS text needs ncu-report (the disassembler)")
def test_source_sass(snap_compare) -> None:
    """The Source page after enter on the hottest line: its SASS, every instruction marked."""
    assert snap_compare(create_app(ZOO), run_before=keys(
        "g", "4", "enter", "enter", "6", "enter"), terminal_size=WIDE)


def test_source_small(snap_compare) -> None:
    assert snap_compare(create_app(ZOO), run_before=detail(2, "6"), terminal_size=SMALL)


def test_kernel_list_small(snap_compare) -> None:
    assert snap_compare(create_app(ZOO), run_before=keys(), terminal_size=SMALL)


def test_detail_small(snap_compare) -> None:
    assert snap_compare(create_app(ZOO), run_before=detail(4, "5"), terminal_size=SMALL)


def test_help(snap_compare) -> None:
    assert snap_compare(create_app(ZOO), run_before=keys("question_mark"), terminal_size=WIDE)


def test_error_screen(snap_compare) -> None:
    app = create_app(Path("/nonexistent/report.ncu-rep"))
    assert snap_compare(app, run_before=keys(), terminal_size=SMALL)
