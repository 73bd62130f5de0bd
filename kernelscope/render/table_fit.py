"""Which columns of a table fit a terminal width, and how wide each is.

The kernel list and ``kernelscope summary`` share this: columns have a priority; the required
ones (priority 0) are always shown, the kernel name gets a fair share of the width (up to its
longest value), the optional ones fill what is left in priority order, and what is still left
goes back to the name. Columns that can be cut (the name, the top flag) shrink to their minimum
before a required column would be dropped. Output that is not a terminal is never fitted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

NAME_SHARE = 0.34
"""The name's share of the width before optional columns are added."""


class ColumnFit(NamedTuple):
    """A column to place: its natural width (widest of header and cells), the width it may be
    cut to (``minimum`` = ``natural`` for columns that are never cut) and its priority (0:
    always shown; higher numbers are dropped first)."""

    key: str
    natural: int
    minimum: int | None = None
    priority: int = 0
    grows: bool = False
    """The column that takes a fair share and then what is left (the name)."""

    @property
    def least(self) -> int:
        return self.natural if self.minimum is None else min(self.minimum, self.natural)


def fit_columns(columns: Sequence[ColumnFit], width: int, gap: int = 2) -> dict[str, int]:
    """The columns shown for a table ``width`` characters wide and their widths (content only;
    ``gap`` is added per column for padding or separators), in the order given."""
    required = [c for c in columns if c.priority == 0]
    optional = sorted((c for c in columns if c.priority > 0), key=lambda c: c.priority)
    widths = {c.key: c.natural for c in required}
    grower = next((c for c in required if c.grows), None)
    room = width - gap * len(required)
    if grower is not None:
        fair = max(grower.least, round(width * NAME_SHARE))
        widths[grower.key] = min(grower.natural, fair)
    _shrink(required, widths, room)
    used = sum(widths.values())
    for column in optional:
        if used + column.natural + gap <= room - gap * _added(widths, required):
            widths[column.key] = column.natural
            used += column.natural
    left = room - gap * _added(widths, required) - sum(widths.values())
    if grower is not None and left > 0:
        widths[grower.key] = min(grower.natural, widths[grower.key] + left)
    return {c.key: widths[c.key] for c in columns if c.key in widths}


def _added(widths: dict[str, int], required: Sequence[ColumnFit]) -> int:
    return len(widths) - len(required)


def _shrink(required: Sequence[ColumnFit], widths: dict[str, int], room: int) -> None:
    """Cut the cuttable required columns until they fit ``room``: the others (the top flag)
    down to their minimum first, then the growing one (the name)."""
    for column in sorted((c for c in required if c.least < c.natural), key=lambda c: c.grows):
        over = sum(widths.values()) - room
        if over <= 0:
            return
        widths[column.key] = max(column.least, widths[column.key] - over)


def fit_words(text: str, width: int) -> str:
    """``text`` cut to ``width`` at a word boundary (``-``, ``_`` or a space) when one leaves
    most of it, else mid-word, with a trailing ``…``: ``✖ uncoalesced-global-access`` in 16
    columns is ``✖ uncoalesced-…``."""
    if width <= 0 or len(text) <= width:
        return text
    if width == 1:
        return "…"
    room = text[: width - 1]
    cut = max(room.rfind("-"), room.rfind("_"), room.rfind(" "))
    if cut >= (width - 1) * 2 // 3:
        return text[: cut + 1] + "…"
    return room + "…"


__all__ = ["ColumnFit", "fit_columns", "fit_words"]
