"""Progress and cancel hooks shared by the slow steps of opening a report.

A *progress* hook is called as ``progress(message, fraction)`` where ``fraction`` is in
[0, 1] or None when the step cannot tell how far it is. A *cancel* hook is a
``threading.Event`` or a callable returning True once the user asked to stop. Both are called
from the thread doing the work, so a UI must post them to its own thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from kernelscope.core.errors import ReportError

ProgressHook = Callable[[str, "float | None"], None]
CancelHook = threading.Event | Callable[[], bool]


class OpenCancelled(ReportError):
    """Raised when the cancel hook fired; the partial work has been removed."""


def is_cancelled(cancel: CancelHook | None) -> bool:
    """True when ``cancel`` (an Event or a callable) says to stop."""
    if cancel is None:
        return False
    if isinstance(cancel, threading.Event):
        return cancel.is_set()
    return bool(cancel())


def report_progress(progress: ProgressHook | None, message: str, fraction: float | None) -> None:
    """Call ``progress`` if there is one."""
    if progress is not None:
        progress(message, fraction)
