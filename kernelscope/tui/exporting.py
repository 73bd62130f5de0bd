"""The TUI's export (``e``): the same Markdown as ``kernelscope export``.

``e`` writes the current scope to a file in the working directory: the open report's session
says which scope the screen shows (a kernel in the detail, the whole kernel report, the
timeline) and renders it. An existing file is only replaced after a yes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.screen import Screen

from kernelscope.screens.session import ExportJob, ReportSession


def export_job(
    session: ReportSession | None, screen: Screen[Any], directory: Path
) -> ExportJob | None:
    """The scope the user is looking at, and the file it goes to (None: nothing is open)."""
    if session is None:
        return None
    return session.export_job(screen, directory)


def render_job(session: ReportSession | None, job: ExportJob, screen: Screen[Any]) -> str:
    """The Markdown of ``job`` (call from a thread worker: a report export reads every kernel)."""
    if session is None:
        raise RuntimeError("no report is open")
    return session.render_export(job, screen)
