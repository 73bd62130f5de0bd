"""Nsight Systems' session: the shared timeline screen, reading the report (``.nsys-rep``,
``.sqlite`` or either compressed) with this kind's opener."""

from __future__ import annotations

from kernelscope.kinds.nsys.model.opener import open_report
from kernelscope.timeline.screens.timeline_session import TimelineSession


class NsysSession(TimelineSession):
    """An Nsight Systems report (or its SQLite export) in the TUI."""

    opener = staticmethod(open_report)
