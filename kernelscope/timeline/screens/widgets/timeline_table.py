"""A sortable table of a polars frame, capped so a huge frame never becomes a huge widget.

``FrameView`` = an optional title, a ``FrameTable`` (a ``SizedTable`` of at most ``cap`` rows of
the frame, sorted by polars over *all* rows) and a status line: "showing N of M", the sort,
and a description of the highlighted row (e.g. a kernel's full name).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl
from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from kernelscope.core.kernel_names import ShortNames, fit_names
from kernelscope.core.table import next_sort_key
from kernelscope.core.units import NOT_AVAILABLE
from kernelscope.core.words import ellipsis
from kernelscope.render.table_fit import ColumnFit, fit_columns
from kernelscope.ui.keys import key_table
from kernelscope.ui.widgets.sized_table import SizedTable, TableColumn

DEFAULT_CAP = 1000
FLEX_MIN = 16
SCROLLBAR = 2

Row = dict[str, Any]


def listed_rows(frame: pl.DataFrame, sort_key: str, descending: bool, cap: int) -> pl.DataFrame:
    """The rows a table lists: ``frame`` sorted by ``sort_key`` over all its rows (the rules
    of ``core.table.sort_rows``, in polars: ties keep their order, empty cells last), then
    its first ``cap``."""
    if sort_key in frame.columns:
        frame = frame.sort(sort_key, descending=descending, nulls_last=True,
                           maintain_order=True)
    return frame.head(cap)


@dataclass(frozen=True)
class Column:
    """One displayed column: frame column ``key`` shown as ``title`` through ``fmt``."""

    key: str
    title: str
    fmt: Callable[[Any], str] = str
    numeric: bool = True
    max_width: int | None = None  # ellipsise longer text
    flex: bool = False  # takes the width the other columns leave (names)
    priority: int = 0
    """0: always shown; others are left out when the table is narrow, highest first."""
    kernel_names: bool = False
    """The cells are demangled kernel names, shown by their short names (``ShortNames`` over
    the names of this table: spelled out until they differ)."""

    def text(self, value: Any) -> str:
        return NOT_AVAILABLE if value is None else self.fmt(value)

    def cell(self, text: str) -> Text:
        if self.max_width is not None:
            text = ellipsis(text, self.max_width)
        return Text(text, justify="right" if self.numeric else "left", no_wrap=True)


class FrameTable(SizedTable):
    """The rows of a frame; ``s``/``S`` or a header click sort, ``enter`` chooses a row."""

    BINDINGS = key_table("table", (
        ("enter", "select_cursor", "Open", "open", True,
         "Open the highlighted row (a gap or a kernel) on the timeline."),
        ("s", "sort_next", "Sort", "sort", True,
         "Sort by the next column (clicking a column header sorts by it)."),
        ("S", "sort_reverse", "Reverse", "reverse", True, "Reverse the sort order."),
    ))

    class Chosen(Message):
        """``enter`` (or a click on the highlighted row) chose ``row``."""

        def __init__(self, table: FrameTable, row: Row) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> FrameTable:
            return self.table

    class Changed(Message):
        """The shown rows, sort or highlighted row changed (the status line follows)."""

        def __init__(self, table: FrameTable) -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> FrameTable:
            return self.table

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        sort: str,
        descending: bool = True,
        cap: int = DEFAULT_CAP,
        choosable: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.specs = tuple(columns)
        self.sort_key = sort
        self.descending = descending
        self.cap = cap
        self.choosable = choosable
        self.frame: pl.DataFrame | None = None
        self.shown: pl.DataFrame | None = None
        self._layout: dict[str, int] | None = None

    # -- contents --------------------------------------------------------------------------
    @property
    def total(self) -> int:
        return 0 if self.frame is None else self.frame.height

    def set_frame(self, frame: pl.DataFrame) -> None:
        """Show ``frame`` (any size: only the first ``cap`` rows of the sort are listed)."""
        self.frame = frame
        self.rebuild()

    def _spec(self, key: str) -> Column:
        return next((c for c in self.specs if c.key == key), self.specs[0])

    def _texts(self) -> list[list[str]]:
        keys = [s.key for s in self.specs]
        assert self.shown is not None
        names = self._short_names()
        return [
            [names[v] if spec.kernel_names and v is not None else spec.text(v)
             for spec, v in zip(self.specs, row, strict=True)]
            for row in self.shown.select(keys).iter_rows()
        ]

    def _short_names(self) -> ShortNames:
        """Short names of the kernels named in this table, unique among them."""
        assert self.frame is not None
        names = ShortNames()
        for spec in self.specs:
            if spec.kernel_names:
                names.add(str(v) for v in self.frame[spec.key].unique(maintain_order=True)
                          if v is not None)
        return names

    def _labels(self) -> list[str]:
        labels = []
        for spec in self.specs:
            label = spec.title
            if spec.key == self.sort_key:
                label += " ▼" if self.descending else " ▲"
            labels.append(label)
        return labels

    def rebuild(self) -> None:
        if self.frame is None:
            return
        self.shown = listed_rows(self.frame, self.sort_key, self.descending, self.cap)
        keep = self.cursor_row
        labels = self._labels()
        texts = self._texts()
        self._layout = self._plan(labels, texts)
        widths = self._layout or self._naturals(labels, texts)
        shown = [i for i, spec in enumerate(self.specs) if spec.key in widths]
        fitted = self._fitted_flex(texts)
        self.fill(
            [TableColumn(self.specs[i].key,
                         Text(labels[i], justify="right" if self.specs[i].numeric else "left"),
                         widths[self.specs[i].key]) for i in shown],
            ((str(n), [self.specs[i].cell(fitted.get(row_texts[i], row_texts[i])
                                          if self.specs[i].flex else row_texts[i])
                       for i in shown])
             for n, row_texts in enumerate(texts)),
        )
        if 0 < keep < len(texts):
            self.move_cursor(row=keep, animate=False)
        self.post_message(self.Changed(self))

    def _fitted_flex(self, texts: list[list[str]]) -> dict[str, str]:
        """The flexible column's texts fitted to its width, kept apart from each other:
        kernel names keep what tells them apart (``fit_names``), other texts their head
        unless two would then read alike."""
        flex = next((i for i, spec in enumerate(self.specs) if spec.flex), None)
        if flex is None or self._layout is None or self.specs[flex].key not in self._layout:
            return {}
        width = self._layout[self.specs[flex].key]
        distinct = list(dict.fromkeys(row[flex] for row in texts))
        if not self.specs[flex].kernel_names:
            heads = {text: ellipsis(text, width) for text in distinct}
            if len(set(heads.values())) == len(heads):
                return heads
        return fit_names(distinct, width)

    def _plan(self, labels: list[str], texts: list[list[str]]) -> dict[str, int] | None:
        """The columns shown and their widths for the table's width (None while it has no
        width yet: every column whole). The flexible column (names) keeps its place and
        takes what the others leave; optional columns (priority > 0) go first when the
        width is short, the least useful (highest priority) first."""
        width = self.size.width
        if width <= 0:
            return None
        fits = [ColumnFit(spec.key, natural, FLEX_MIN if spec.flex else None, spec.priority,
                          grows=spec.flex)
                for spec, natural in zip(self.specs, self._naturals(labels, texts).values(),
                                         strict=True)]
        return fit_columns(fits, width - SCROLLBAR, gap=2 * self.cell_padding)

    def _naturals(self, labels: list[str], texts: list[list[str]]) -> dict[str, int]:
        """Each column's natural width: its widest cell or its title."""
        return {spec.key: max([cell_len(label), *(cell_len(row[i]) for row in texts)])
                for i, (spec, label) in enumerate(zip(self.specs, labels, strict=True))}

    def on_mount(self) -> None:
        self.call_after_refresh(self._refit)

    def on_show(self) -> None:
        self.call_after_refresh(self._refit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._refit)

    def _refit(self) -> None:
        """Rebuild when the width the table has now asks for other columns or widths than
        the ones it was filled for (it may have been filled before its layout was final)."""
        if self.shown is not None and self._plan(self._labels(), self._texts()) != self._layout:
            self.rebuild()

    def row_at(self, index: int) -> Row | None:
        if self.shown is None or not 0 <= index < self.shown.height:
            return None
        return self.shown.row(index, named=True)

    @property
    def highlighted(self) -> Row | None:
        return self.row_at(self.cursor_row)

    # -- sorting ---------------------------------------------------------------------------
    @property
    def sort_title(self) -> str:
        return self._spec(self.sort_key).title

    def set_sort(self, key: str, descending: bool | None = None) -> None:
        """Sort by ``key``: numbers largest first, text A→Z, unless told otherwise."""
        spec = self._spec(key)
        self.sort_key = spec.key
        self.descending = spec.numeric if descending is None else descending
        self.rebuild()

    def action_sort_next(self) -> None:
        """Sort by the next column on screen (a column the width left out is skipped)."""
        keys = [c.key for c in self.specs if self._layout is None or c.key in self._layout]
        self.set_sort(next_sort_key(keys, self.sort_key))

    def action_sort_reverse(self) -> None:
        self.set_sort(self.sort_key, not self.descending)

    @on(SizedTable.HeaderSelected)
    def _header_selected(self, event: SizedTable.HeaderSelected) -> None:
        event.stop()
        key = str(event.column_key.value)
        if key == self.sort_key:
            self.action_sort_reverse()
        else:
            self.set_sort(key)

    @on(SizedTable.RowHighlighted)
    def _row_highlighted(self, event: SizedTable.RowHighlighted) -> None:
        self.post_message(self.Changed(self))

    @on(SizedTable.RowSelected)
    def _row_selected(self, event: SizedTable.RowSelected) -> None:
        event.stop()
        row = self.row_at(event.cursor_row)
        if row is not None and self.choosable:
            self.post_message(self.Chosen(self, row))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select_cursor":
            return self.choosable
        return True


class FrameView(Vertical):
    """A titled FrameTable with its status line."""

    DEFAULT_CSS = """
    FrameView {
        height: 1fr;
    }
    FrameView > .frame-title {
        height: 1;
        padding: 0 1;
        text-style: bold;
        background: $boost;
    }
    FrameView > FrameTable {
        height: 1fr;
    }
    FrameView > .frame-status {
        height: 1;
        padding: 0 1;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(
        self,
        title: str,
        columns: Sequence[Column],
        *,
        sort: str,
        descending: bool = True,
        cap: int = DEFAULT_CAP,
        noun: str = "rows",
        describe: Callable[[Row], str] | None = None,
        choosable: bool = False,
        id: str | None = None,
        table_id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.title_text = title
        self.noun = noun
        self.describe = describe
        self.table = FrameTable(columns, sort=sort, descending=descending, cap=cap,
                                choosable=choosable, id=table_id)

    def compose(self) -> ComposeResult:
        if self.title_text:
            yield Static(self.title_text, classes="frame-title", markup=False)
        yield self.table
        yield Static("", classes="frame-status", markup=False)

    def set_frame(self, frame: pl.DataFrame) -> None:
        self.table.set_frame(frame)

    def status_text(self) -> str:
        table = self.table
        shown = 0 if table.shown is None else table.shown.height
        order = "▼" if table.descending else "▲"
        parts = []
        if shown < table.total:
            parts.append(f"showing {shown:,} of {table.total:,} {self.noun}")
        else:
            parts.append(f"{table.total:,} {self.noun}")
        parts.append(f"sorted by {table.sort_title} {order}")
        row = table.highlighted
        if row is not None and self.describe is not None:
            parts.append(self.describe(row))
        return " · ".join(parts)

    @on(FrameTable.Changed)
    def _changed(self, event: FrameTable.Changed) -> None:
        if event.table is self.table and self.is_mounted:
            self.query_one(".frame-status", Static).update(self.status_text())
