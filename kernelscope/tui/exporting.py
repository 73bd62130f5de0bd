"""The TUI's export (``e``): the same Markdown as ``kernelscope export``.

``e`` writes the current scope to a file in the working directory: the screen shown says which
scope it shows (a kernel in the detail, the whole kernel report, the timeline) and renders it
(``screens.session.ReportScreen``). An existing file is only replaced after a yes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.screen import Screen

from kernelscope.ui.session import ExportJob, ReportScreen


def exporting_screen(screen: Screen[Any]) -> ReportScreen[Any] | None:
    """``screen`` when it has something to export now, else None."""
    if isinstance(screen, ReportScreen) and screen.can_export():
        return screen
    return None


def copying_screen(screen: Screen[Any]) -> ReportScreen[Any] | None:
    """``screen`` when it has something to copy now, else None."""
    if isinstance(screen, ReportScreen) and screen.can_copy():
        return screen
    return None


def export_job(screen: Screen[Any], directory: Path) -> ExportJob | None:
    """The scope the user is looking at, and the file it goes to (None: nothing to export)."""
    shown = exporting_screen(screen)
    return shown.export_job(directory) if shown is not None else None
