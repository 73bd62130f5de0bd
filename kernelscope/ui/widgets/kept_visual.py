"""A Rich renderable shown in a Static, measured and drawn once per width.

A Static of ``height: auto`` whose content changes height is laid out twice by Textual: once
for the new content and once more because its scroll container's virtual size changed; each
layout measures the content again (rendering it) and draws it again. For a long renderable
(the Diagnosis pane: a few dozen wrapped lines) that was most of the time from the next-kernel
key to the repainted screen. ``KeptRichVisual`` keeps what it measured and drew for as long as
it is the Static's content: ``static.update(KeptRichVisual(static, renderable))``.
"""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, RichVisual
from textual.widget import Widget

KEPT_RENDERS = 4
"""Drawings kept per content (a width or style change draws again; the oldest is dropped)."""


class KeptRichVisual(RichVisual):
    """A RichVisual that remembers its height per width and its lines per width, height and
    style (a text selection is drawn afresh every time)."""

    def __init__(self, widget: Widget, renderable: RenderableType) -> None:
        super().__init__(widget, renderable)
        self._heights: dict[int, int] = {}
        self._drawn: dict[tuple[Any, ...], list[Strip]] = {}

    def get_height(self, rules: RulesMap, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            height = self._heights[width] = super().get_height(rules, width)
        return height

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        if options.selection is not None:
            return super().render_strips(width, height, style, options)
        key = (width, height, style)
        strips = self._drawn.get(key)
        if strips is None:
            strips = super().render_strips(width, height, style, options)
            if len(self._drawn) >= KEPT_RENDERS:
                self._drawn.pop(next(iter(self._drawn)))
            self._drawn[key] = strips
        return strips
