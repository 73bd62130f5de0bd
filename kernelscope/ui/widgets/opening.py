"""The panel a screen shows while its worker reads a report: what is being read, a progress
bar, the latest step and how to cancel; and the throttle for the worker's progress posts."""

from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.containers import Center, Vertical
from textual.dom import DOMNode
from textual.widgets import ProgressBar, Static

PROGRESS_EVERY_S = 0.1


def opening_panel(prefix: str, text: str) -> ComposeResult:
    """``#PREFIX-loading-center`` (remove it once loaded) holding ``#PREFIX-opening``,
    ``#PREFIX-progress``, ``#PREFIX-progress-text`` and ``#PREFIX-cancel-hint``."""
    with Center(id=f"{prefix}-loading-center"), Vertical(id=f"{prefix}-loading"):
        yield Static(text, id=f"{prefix}-opening", markup=False)
        yield ProgressBar(id=f"{prefix}-progress", show_eta=False)
        yield Static("", id=f"{prefix}-progress-text", markup=False)
        yield Static("Press c or escape to cancel.", id=f"{prefix}-cancel-hint")


def show_progress(node: DOMNode, prefix: str, text: str, fraction: float | None) -> None:
    """Update the panel of :func:`opening_panel` (``fraction`` None: not known)."""
    bar = node.query_one(f"#{prefix}-progress", ProgressBar)
    if fraction is None:
        bar.update(total=None)
    else:
        bar.update(total=100, progress=round(fraction * 100))
    node.query_one(f"#{prefix}-progress-text", Static).update(text)


class ProgressThrottle:
    """Says whether a worker's progress step is worth posting: the first and last always,
    the others at most every ``every_s`` seconds."""

    def __init__(self, every_s: float = PROGRESS_EVERY_S) -> None:
        self.every_s = every_s
        self._last = 0.0

    def due(self, fraction: float | None) -> bool:
        now = time.monotonic()
        if now - self._last < self.every_s and fraction not in (0.0, 1.0):
            return False
        self._last = now
        return True
