"""A virtualised listing of a kernel's source lines or SASS instructions with their metrics.

A ``ScrollView`` that draws only the lines on screen (``render_line``), so a cuBLAS kernel's
8,000 instructions cost what 30 do. The first line is the header; each row has a hot mark,
its line number or address, the text (cut to fit; the whole row is described under the
listing) and one column per metric. ``↑``/``↓``, page keys, ``home``/``end`` move the cursor,
``←``/``→`` scroll sideways, ``]``/``[`` go to the next/previous hot row, and ``enter`` asks
the page to jump to the row's counterpart (a source line's instructions, an instruction's
source line). Instructions are numbered by their offset (hex) from the kernel's first one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from kernelscope.kinds.ncu.model.source import ListingRow, SourceColumn

HOT_STYLE = Style(color="red", bold=True)
LINKED_STYLE = Style(bgcolor="#30305a")
CURSOR_STYLE = Style(reverse=True, bold=True)
HEADER_STYLE = Style(bold=True, underline=True)
DIM = Style(dim=True)
VALUE_WIDTH = 7
TEXT_MIN = 30
TEXT_MAX = 100


def compact_count(value: float | None) -> str:
    """``13,003``; ``11.5M`` and ``2.43G`` from a hundred thousand up; empty for none."""
    if value is None:
        return ""
    if abs(value) >= 1e9:
        return f"{value / 1e9:.2f}G"
    if abs(value) >= 1e5:
        return f"{value / 1e6:.2f}M" if abs(value) < 1e8 else f"{value / 1e6:.0f}M"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.1f}"


@dataclass(frozen=True)
class ListingLayout:
    """Column widths for one terminal width."""

    number: int
    text: int
    values: int

    @property
    def width(self) -> int:
        return 3 + self.number + 1 + self.text + self.values


class SourceListing(ScrollView, can_focus=True):
    """Rows of a source file or of the SASS, with a cursor."""

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False, tooltip="Move the cursor up a line."),
        Binding("down,j", "cursor(1)", "Down", show=False,
                tooltip="Move the cursor down a line."),
        Binding("pageup", "page(-1)", "Page up", show=False, tooltip="Move the cursor a page up."),
        Binding("pagedown", "page(1)", "Page down", show=False,
                tooltip="Move the cursor a page down."),
        Binding("home", "first", "First", show=False, tooltip="Go to the first line."),
        Binding("end", "last", "Last", show=False, tooltip="Go to the last line."),
        Binding("right_square_bracket", "hot(1)", "Next hot", id="source.next-hot",
                tooltip="Go to the next hot line (marked ●)."),
        Binding("left_square_bracket", "hot(-1)", "Prev hot", id="source.prev-hot",
                tooltip="Go to the previous hot line."),
        Binding("enter", "jump", "Jump", id="source.jump",
                tooltip="From a source line to its SASS instructions, or from an instruction to "
                "its source line."),
    ]

    class Moved(Message):
        """The cursor moved to row ``index``."""

        def __init__(self, listing: SourceListing, index: int) -> None:
            super().__init__()
            self.listing = listing
            self.index = index

    class Jump(Message):
        """``enter`` on row ``index``."""

        def __init__(self, listing: SourceListing, index: int) -> None:
            super().__init__()
            self.listing = listing
            self.index = index

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.rows: Sequence[ListingRow] = ()
        self.columns: Sequence[SourceColumn] = ()
        self.shares: dict[str, float] = {}
        self.cursor = 0
        self.linked: frozenset[int] = frozenset()
        self.sass = False
        self.base_pc = 0
        self._layout = ListingLayout(4, TEXT_MIN, 0)
        self._cache: dict[int, list[Segment]] = {}
        self._centred = False
        """The cursor was centred and has not moved since: a resize centres it again."""

    # -- contents --------------------------------------------------------------------------
    def show_rows(
        self,
        rows: Sequence[ListingRow],
        columns: Sequence[SourceColumn],
        *,
        sass: bool,
        totals: dict[str, float] | None = None,
        cursor: int = 0,
        linked: Sequence[int] = (),
    ) -> None:
        """Show ``rows`` (SASS instructions when ``sass``, else source lines), the cursor on
        row ``cursor`` and the rows ``linked`` (those of the row jumped from) marked."""
        self.rows, self.columns, self.sass = rows, columns, sass
        self.shares = {key: value for key, value in (totals or {}).items() if value}
        self.linked = frozenset(linked)
        self.cursor = max(0, min(cursor, len(rows) - 1))
        self._relayout()
        self._centred = True
        self._scroll_to_cursor(center=True)
        # Once laid out (the listing may have just been shown), centre the cursor again.
        self.call_after_refresh(self._scroll_to_cursor, True)
        self.post_message(self.Moved(self, self.cursor))

    def _relayout(self) -> None:
        last = self.rows[-1] if self.rows else None
        first = self.rows[0] if self.rows else None
        self.base_pc = first.pc if first is not None and first.pc is not None else 0
        if self.sass:
            digits = len(f"{last.pc - self.base_pc:x}") if last is not None and last.pc else 4
            number = max(digits, len("Offset"))
        else:
            number = max(len(str(last.line)) if last is not None else 1, len("Line"))
        values = len(self.columns) * (VALUE_WIDTH + 1) + (VALUE_WIDTH + 1)  # + "% samples"
        room = self.size.width - 3 - number - 1 - values - 1
        longest = max((len(r.text.strip() if self.sass else r.text) for r in self.rows),
                       default=0)
        text = max(TEXT_MIN, min(TEXT_MAX, room, longest)) if room > TEXT_MIN else TEXT_MIN
        self._layout = ListingLayout(number, text, values)
        self._cache.clear()
        self.virtual_size = Size(self._layout.width, len(self.rows) + 1)
        self.refresh()

    def on_resize(self) -> None:
        if self.rows:
            self._relayout()
            if self._centred:
                # Centred for a height the listing no longer has (the pane settled its
                # layout after the rows came): centre it for this one.
                self._scroll_to_cursor(center=True)

    # -- drawing ---------------------------------------------------------------------------
    def _header(self) -> list[Segment]:
        layout = self._layout
        head = "  " + " " + ("Offset" if self.sass else "Line").rjust(layout.number)[
            -layout.number:] + " " + ("SASS" if self.sass else "Source").ljust(layout.text)
        parts = [head, " " + "Samp %".rjust(VALUE_WIDTH)]
        parts.extend(" " + c.title[:VALUE_WIDTH].rjust(VALUE_WIDTH) for c in self.columns)
        return [Segment("".join(parts), HEADER_STYLE)]

    def _row_segments(self, index: int) -> list[Segment]:
        cached = self._cache.get(index)
        if cached is not None:
            return cached
        row = self.rows[index]
        layout = self._layout
        mark = f"●{row.hot}" if 0 < row.hot < 10 else ("● " if row.hot else "  ")
        number = (f"{row.pc - self.base_pc:x}" if self.sass and row.pc is not None
                  else str(row.line))
        text = row.text.strip() if self.sass else row.text.expandtabs(4)
        if len(text) > layout.text:
            text = text[: layout.text - 1] + "…"
        samples = row.values.get("samples")
        total = self.shares.get("samples")
        share = f"{100 * samples / total:.1f}" if samples and total else ""
        counted = bool(row.values)
        segments = [
            Segment(mark + " ", HOT_STYLE if row.hot else DIM),
            Segment(number.rjust(layout.number) + " ", DIM),
            Segment(text.ljust(layout.text), Style() if counted or self.sass else DIM),
            Segment(" " + share.rjust(VALUE_WIDTH), HOT_STYLE if row.hot else Style()),
        ]
        for column in self.columns:
            segments.append(Segment(" " + compact_count(row.values.get(column.key))
                                    .rjust(VALUE_WIDTH)))
        self._cache[index] = segments
        return segments

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        if y == 0:
            return Strip(self._header()).crop(scroll_x, scroll_x + width).extend_cell_length(
                width)
        index = scroll_y + y - 1
        if not 0 <= index < len(self.rows):
            return Strip.blank(width)
        segments = self._row_segments(index)
        if index == self.cursor and self.has_focus:
            segments = [Segment(s.text, (s.style or Style()) + CURSOR_STYLE) for s in segments]
        elif index == self.cursor:
            segments = [Segment(s.text, (s.style or Style()) + Style(reverse=True))
                        for s in segments]
        elif index in self.linked:
            segments = [Segment(s.text, (s.style or Style()) + LINKED_STYLE) for s in segments]
        return Strip(segments).crop(scroll_x, scroll_x + width).extend_cell_length(width)

    # -- the cursor ------------------------------------------------------------------------
    def move_to(self, index: int, *, center: bool = False) -> None:
        if not self.rows:
            return
        self.cursor = max(0, min(index, len(self.rows) - 1))
        self._centred = center
        self._scroll_to_cursor(center=center)
        self.refresh()
        self.post_message(self.Moved(self, self.cursor))

    def _scroll_to_cursor(self, center: bool = False) -> None:
        visible = max(1, self.size.height - 1)
        top = int(self.scroll_y)
        if center:
            self.scroll_to(y=max(0, self.cursor - visible // 2), animate=False, force=True)
        elif self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, force=True)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False, force=True)

    def action_cursor(self, step: int) -> None:
        self.move_to(self.cursor + step)

    def action_page(self, step: int) -> None:
        self.move_to(self.cursor + step * max(1, self.size.height - 2))

    def action_first(self) -> None:
        self.move_to(0)

    def action_last(self) -> None:
        self.move_to(len(self.rows) - 1)

    def action_hot(self, step: int) -> None:
        """The next (or previous) hot row after the cursor, wrapping around."""
        hot = [i for i, r in enumerate(self.rows) if r.hot]
        if not hot:
            self.app.bell()
            self.notify("No hot line here: no line of this listing holds counted samples or "
                        "instructions.", timeout=3)
            return
        after = [i for i in hot if (i > self.cursor if step > 0 else i < self.cursor)]
        target = (after[0] if step > 0 else after[-1]) if after else (
            hot[0] if step > 0 else hot[-1])
        self.move_to(target, center=True)

    def action_jump(self) -> None:
        if self.rows:
            self.post_message(self.Jump(self, self.cursor))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


__all__ = ["SourceListing", "compact_count"]
