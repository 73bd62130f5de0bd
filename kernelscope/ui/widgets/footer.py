"""Textual's Footer, drawn once for bindings that change several times in a row.

Textual's Footer composes its keys again each time the screen says its bindings changed, a
recompose for each signal. A screen shown for the first time says so twice (when it is shown,
and when its table takes the focus) before anything is painted: the kernel list's fourteen
keys were made, styled and mounted twice before its first rows (~0.015 s of CPU each time).
This footer composes its keys once for the signals that come before it has done so, from
the bindings as they are then.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer as TextualFooter


class Footer(TextualFooter):
    """A Footer that recomposes once for bindings changed several times before it did."""

    _recompose_due = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._recompose_due:
            self._recompose_due = True
            self.call_after_refresh(self._recompose_once)

    async def _recompose_once(self) -> None:
        self._recompose_due = False  # (a change from now on asks for another)
        await self.recompose()
