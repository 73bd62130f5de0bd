"""SVG snapshots of the diff screens (pytest-textual-snapshot), on the committed samples."""

from __future__ import annotations

from pathlib import Path

from kernelscope.tui.app import create_app
from tests.diff.conftest import ncu
from tests.tui.helpers import keys

WIDE = (120, 36)


def ladder() -> object:
    return create_app([Path(ncu("gemm_regtile")), Path(ncu("gemm_wmma"))], subcommand="diff")


def test_diff_screen(snap_compare) -> None:
    assert snap_compare(ladder(), run_before=keys(), terminal_size=WIDE)


def test_diff_pair(snap_compare) -> None:
    assert snap_compare(ladder(), run_before=keys("enter"), terminal_size=WIDE)
