"""A Static whose content is drawn for the widget's size (plotext charts): drawn when it gets
new content, and again when it is resized, but not twice for the same content and size."""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from rich.console import RenderableType
from textual.events import Resize
from textual.widgets import Static

ContentT = TypeVar("ContentT")


class SizedDrawing(Static, Generic[ContentT]):
    """Subclasses say how to ``draw`` their content at a size; below ``min_size`` (or with no
    content) the widget is blank."""

    min_size: ClassVar[tuple[int, int]] = (1, 1)

    def __init__(self, content: ContentT | None = None, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self._content = content
        self._drawn: tuple[ContentT, int, int] | None = None

    @property
    def content(self) -> ContentT | None:
        return self._content

    def show(self, content: ContentT | None) -> None:
        """Show ``content`` (None clears it); drawn now and again once the widget has its size."""
        self._content = content
        self._draw()
        self.call_after_refresh(self._draw)

    def draw(self, content: ContentT, width: int, height: int) -> RenderableType:
        raise NotImplementedError

    def on_resize(self, event: Resize) -> None:
        self._draw()

    def _draw(self) -> None:
        width, height = self.size.width, self.size.height
        content = self._content
        if content is None or width < self.min_size[0] or height < self.min_size[1]:
            self._drawn = None
            self.update("")
            return
        drawn = self._drawn
        if drawn is not None and drawn[0] is content and drawn[1:] == (width, height):
            return
        self._drawn = (content, width, height)
        self.update(self.draw(content, width, height))
