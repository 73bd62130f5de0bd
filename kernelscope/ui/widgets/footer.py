"""Textual's Footer, drawn once for bindings that change several times in a row.

Textual's Footer composes its keys again each time the screen says its bindings changed, a
recompose for each signal. A screen shown for the first time says so twice (when it is shown,
and when its table takes the focus) before anything is painted: the kernel list's fourteen
keys were made, styled and mounted twice before its first rows (~0.015 s of CPU each time).
This footer composes its keys once for the signals that come before it has done so, from
the bindings as they are then, and not at all when the keys it would show are those it shows
(the kernel list's first batch of rows said so once more: ~0.012 s before its list was
complete).
"""

from __future__ import annotations

from textual.app import ComposeResult
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

    _composed: tuple[object, ...] | None = None
    """The keys the footer shows (``_shown_keys`` when it composed them); None: none yet."""

    def compose(self) -> ComposeResult:
        self._composed = self._shown_keys() if self._bindings_ready else None
        yield from super().compose()

    async def _recompose_once(self) -> None:
        self._recompose_due = False  # (a change from now on asks for another)
        if not self.is_attached:  # (its screen closed meanwhile)
            return
        if self._composed is None or self._shown_keys() != self._composed:
            await self.recompose()

    def _shown_keys(self) -> tuple[object, ...]:
        """What the footer's keys are made of: each shown binding (and the palette's) with
        whether it is enabled and its tooltip."""
        palette = self.app.COMMAND_PALETTE_BINDING
        return tuple((binding, enabled, tooltip)
                     for key, (_, binding, enabled, tooltip) in self.screen.active_bindings.items()
                     if binding.show or key == palette)
