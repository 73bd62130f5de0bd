"""The kernel list's view logic, without Textual: which kernels it lists (the filter), in
which order (the sort), which columns fit the width and what each cell reads.

``KernelListScreen`` only wires this to its widgets: it hands the view the terminal's width
and the kernels as they arrive, and draws the ``Cell`` s and header labels the view gives.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from kernelscope.core.kernel_names import fit_names
from kernelscope.core.table import (
    SortState,
    SortValue,
    compile_filter,
    next_sort_key,
    sort_rows,
)
from kernelscope.kinds.ncu.model import KernelSummary
from kernelscope.kinds.ncu.screens.columns import (
    BASELINE_KEY,
    NAME_KEY,
    SHARE_KEY,
    TOP_FLAG_KEY,
    ColumnProvider,
)
from kernelscope.kinds.ncu.screens.kernel_state import KernelReportData
from kernelscope.render.severity import text_style
from kernelscope.render.table_fit import ColumnFit, fit_columns, fit_words

ID_KEY = "id"
CELL_GAP = 1
"""The space before each cell (the table itself pads none)."""
SCROLLBAR = 1
"""The top flag's style by severity (a kernel without a flag shows its cell dim)."""


class Cell(NamedTuple):
    """A cell as drawn: its text (with the space before it), and its style (a named tuple:
    a thousand rows make twelve thousand of them)."""

    text: str
    style: str = ""


class KernelListView:
    """The list of one kernel report: filter, sort, columns and cells, for a given width."""

    def __init__(self, state: KernelReportData, columns: Sequence[ColumnProvider]) -> None:
        self.state = state
        self.columns = tuple(columns)
        self.sort = SortState(ID_KEY)
        self.filter_text = ""
        self.pattern: re.Pattern[str] | None = None
        self.listed: list[KernelSummary] = []
        """The kernels the filter keeps, in the sort's order."""
        self.index: dict[int, int] = {}
        """Each listed kernel's row, by ID."""
        self.widths: dict[str, int] = {}
        """The columns shown (by key) and their widths, for the current terminal width."""
        self._texts: dict[int, list[str]] = {}
        self._numbers: dict[int, list[bool]] = {}
        """Per kernel, whether each column's value is a number (its cell is right-aligned)."""
        self._natural: dict[str, int] = {}
        self._least: dict[str, int] = {}
        self._fitted_names: dict[str, str] = {}
        self._cells: dict[int, list[Cell]] = {}
        self._numeric: dict[str, bool] = {}

    # -- columns ---------------------------------------------------------------------------
    def column(self, key: str) -> ColumnProvider:
        """The column ``key`` (the first column when there is none)."""
        return next((c for c in self.columns if c.key == key), self.columns[0])

    @property
    def shown_columns(self) -> list[ColumnProvider]:
        """The columns on screen, in their order."""
        return [column for column in self.columns if column.key in self.widths]

    def set_baseline_column(self, column: ColumnProvider | None) -> None:
        """Show ``column`` (the change against the baseline) last and sort by it, or drop
        it (and its sort)."""
        self.columns = tuple(c for c in self.columns if c.key != BASELINE_KEY)
        if column is not None:
            self.columns = (*self.columns, column)
        self._numeric.pop(BASELINE_KEY, None)
        self.forget_texts()
        self._least.clear()
        if column is not None:
            self.set_sort(BASELINE_KEY, reverse=False)
        elif self.sort.key == BASELINE_KEY:
            self.set_sort(ID_KEY)

    def forget_texts(self) -> None:
        """Drop every cell's text and the widths measured on them (short names or time
        shares changed)."""
        self._texts.clear()
        self._numbers.clear()
        self._natural.clear()
        self._cells.clear()

    def full_texts(self, summary: KernelSummary) -> list[str]:
        """The row's texts before fitting (the short name, the whole top flag)."""
        texts = self._texts.get(summary.id)
        if texts is None:
            self._make_texts([summary])
            texts = self._texts[summary.id]
        return texts

    def _make_texts(self, summaries: Sequence[KernelSummary]) -> list[list[str]]:
        """Work out the texts of ``summaries`` (none known yet) and whether each value is a
        number, column by column: one column's functions run over every row in turn (a
        thousand rows took ~0.02 s row by row, ~0.013 s so); returns the texts by column."""
        text_columns: list[list[str]] = []
        number_columns: list[list[bool]] = []
        never = [False] * len(summaries)
        for column in self.columns:
            if column.key == NAME_KEY:
                text_columns.append(list(map(self.state.short_name, summaries)))
                number_columns.append(never)
                continue
            values = list(map(column.cell_value, summaries))
            text_columns.append(list(map(column.cell_text, values)))
            # (``_is_number``, a column at a time)
            number_columns.append(never if column.key == TOP_FLAG_KEY
                                  else [isinstance(v, (int, float)) for v in values])
        rows = zip(summaries, zip(*text_columns, strict=True), zip(*number_columns, strict=True),
                   strict=True)
        for summary, texts, numbers in rows:
            self._texts[summary.id] = list(texts)
            self._numbers[summary.id] = list(numbers)
        return text_columns

    def note_widths(self, summaries: Sequence[KernelSummary] | None = None) -> None:
        """Widen the columns' natural widths for ``summaries``' texts (for every kernel
        loaded when no width is known yet or ``summaries`` is None)."""
        if summaries is None or not self._natural:
            summaries = self.state.summaries
        natural, least = self._natural, self._least
        for column in self.columns:
            natural.setdefault(column.key, len(column.title) + 2)
            if column.compact is not None:
                least.setdefault(column.key, len(column.title) + 2)
        known = self._texts
        rows = [known[summary.id] for summary in summaries if summary.id in known]
        made = self._make_texts([summary for summary in summaries if summary.id not in known])
        # Column by column (C loops measure each column's texts).
        for position, (column, texts) in enumerate(zip(self.columns, made, strict=True)):
            if rows:
                texts = [*texts, *(row[position] for row in rows)]
            if not texts:
                continue
            key = column.key
            natural[key] = max(natural[key], *map(len, texts))
            if column.compact is not None:
                least[key] = max(least[key], *map(len, map(column.compact, texts)))

    def plan(self, width: int) -> dict[str, int]:
        """The columns that fit a screen ``width`` wide and their widths."""
        if not self._natural:
            self.note_widths()
        fits = [
            ColumnFit(
                column.key,
                self._natural.get(column.key, len(column.title) + 2),
                minimum=column.minimum if column.compact is None else self._least[column.key],
                priority=column.priority,
                grows=column.key == NAME_KEY,
            )
            for column in self.columns
        ]
        return fit_columns(fits, width - SCROLLBAR, gap=CELL_GAP)

    def lay_out(self, width: int) -> None:
        """Take the columns and widths for ``width``; every cell is drawn again."""
        self.widths = self.plan(width)
        self._cells.clear()
        self._fitted_names = fit_names(
            (self.state.short_name(s) for s in self.state.summaries),
            self.widths.get(NAME_KEY, 0),
        )

    # -- rows ------------------------------------------------------------------------------
    def matches(self, summary: KernelSummary) -> bool:
        """Whether the filter keeps ``summary``: its names or a searchable column match."""
        pattern = self.pattern
        if pattern is None:
            return True
        identity = summary.identity
        names = any(
            pattern.search(text) for text in (identity.demangled, identity.function)
        ) or bool(pattern.search(self.state.short_name(summary)))
        return names or any(
            pattern.search(text)
            for text in (column.search_text(summary) for column in self.columns)
            if text
        )

    def set_filter(self, text: str) -> None:
        """Filter by the regex ``text`` ("" for none). Raises ``re.error`` when it does not
        compile (and keeps the filter it had)."""
        self.pattern = compile_filter(text)
        self.filter_text = text

    def refill(self) -> None:
        """List the loaded kernels the filter keeps, in the sort's order."""
        self._set_listed(self.ordered([s for s in self.state.summaries if self.matches(s)]))

    def reorder(self) -> None:
        """Put the listed kernels in the sort's order again."""
        self._set_listed(self.ordered(self.listed))

    def _set_listed(self, listed: list[KernelSummary]) -> None:
        self.listed = listed
        self.index = {s.id: i for i, s in enumerate(listed)}

    def append(self, batch: Sequence[KernelSummary]) -> tuple[list[KernelSummary], bool]:
        """List the kernels of ``batch`` the filter keeps, at the end; returns them, and
        whether the list is still in its sort's order (no reorder needed)."""
        last = self.listed[-1].id if self.listed else -1
        in_order = True
        added = []
        for summary in batch:
            if self.matches(summary):
                in_order = in_order and summary.id > last
                last = max(last, summary.id)
                self.index[summary.id] = len(self.listed)
                self.listed.append(summary)
                added.append(summary)
        return added, in_order and self.sort.key == ID_KEY and not self.sort.reverse

    def ordered(self, rows: list[KernelSummary]) -> list[KernelSummary]:
        """``rows`` in the sort's order (ties and unknown values as ``core.table`` says)."""
        column = self.column(self.sort.key)
        if column.key == ID_KEY:
            return sorted(rows, key=lambda s: s.id, reverse=self.sort.reverse)
        def by_short_name(s: KernelSummary) -> SortValue:
            return None if column.sort_value(s) is None else self.state.short_name(s)

        value = by_short_name if column.key == NAME_KEY else column.sort_value
        return sort_rows(rows, value, lambda s: s.id, reverse=self.sort.reverse)

    def neighbor(self, kernel_id: int, step: int) -> int | None:
        """The kernel ``step`` rows away in the list's order (report order if it is hidden)."""
        position = self.index.get(kernel_id)
        if position is None:
            other = kernel_id + step
            return other if self.state.summary(other) is not None else None
        target = position + step
        return self.listed[target].id if 0 <= target < len(self.listed) else None

    def position(self, kernel_id: int) -> tuple[int, int] | None:
        """(1-based row, rows) of the kernel in the list, None when it is filtered out."""
        position = self.index.get(kernel_id)
        return None if position is None else (position + 1, len(self.listed))

    # -- cells -----------------------------------------------------------------------------
    def cells(self, summary: KernelSummary) -> list[Cell]:
        """The row's cells for the shown columns (computed once per kernel and layout)."""
        cells = self._cells.get(summary.id)
        if cells is None:
            cells = self._cells[summary.id] = self._make_cells(summary)
        return cells

    def shown_position(self, key: str) -> int | None:
        """Column ``key``'s place among the shown columns (in ``cells``); None when it is
        not shown."""
        return next((i for i, c in enumerate(self.shown_columns) if c.key == key), None)


    def _make_cells(self, summary: KernelSummary) -> list[Cell]:
        texts = self.full_texts(summary)
        numbers = self._numbers[summary.id]
        widths = self.widths
        return [self._make_cell(column, texts[i], numbers[i], summary)
                for i, column in enumerate(self.columns) if column.key in widths]

    def _make_cell(
        self, column: ColumnProvider, text: str, number: bool, summary: KernelSummary
    ) -> Cell:
        width = self.widths[column.key]
        if column.key == NAME_KEY:
            return Cell(" " + self._fitted_names.get(text, text))
        if len(text) > width and column.compact is not None:
            text = column.compact(text)
        if len(text) > width:
            text = fit_words(text, width)
        if number or column.key == SHARE_KEY:
            return Cell(" " + text.rjust(width))
        return Cell(" " + text, self._style(column, summary))

    def _style(self, column: ColumnProvider, summary: KernelSummary) -> str:
        if column.key != TOP_FLAG_KEY:
            return ""
        diagnosis = self.state.listed_diagnosis(summary)
        if diagnosis is None:  # (being made: n/a)
            return "dim"
        from kernelscope.kinds.ncu.analysis.diagnosis.verdict import top_flag

        flag = top_flag(diagnosis)
        return text_style(flag.severity) if flag is not None else "dim"

    def renew_column(self, key: str, summaries: Sequence[KernelSummary] | None = None) -> None:
        """Compute column ``key``'s texts, natural width and cells again (the time shares,
        once every kernel is loaded), of ``summaries`` only when given (the first rows'
        diagnoses: the widths then only grow); the other columns keep theirs."""
        position = next((i for i, c in enumerate(self.columns) if c.key == key), None)
        if position is None:
            return
        column = self.columns[position]
        shown = next((i for i, c in enumerate(self.shown_columns) if c.key == key), None)
        natural = least = len(column.title) + 2
        if summaries is not None:
            natural = self._natural.get(key, natural)
            least = self._least.get(key, least)
        for summary in self.state.summaries if summaries is None else summaries:
            texts = self._texts.get(summary.id)
            if texts is None:
                text = self.full_texts(summary)[position]
            else:
                value = column.cell_value(summary)
                text = texts[position] = column.cell_text(value)
                self._numbers[summary.id][position] = _is_number(column, value)
            natural = max(natural, len(text))
            if column.compact is not None:
                least = max(least, len(column.compact(text)))
            cells = self._cells.get(summary.id)
            if cells is not None and shown is not None:
                number = self._numbers[summary.id][position]
                cells[shown] = self._make_cell(column, text, number, summary)
        if self._natural:  # (else the first plan measures every column)
            self._natural[key] = natural
            if column.compact is not None:
                self._least[key] = least

    def label(self, column: ColumnProvider) -> Cell:
        """A header: the title and the sort arrow (space for it is always kept, so a header's
        width never changes); numbers are right-aligned."""
        arrow = self.sort.arrow if column.key == self.sort.key else " "
        label = f"{column.title} {arrow}"
        if self._is_numeric(column) or column.key == SHARE_KEY:
            return Cell(" " + label.rjust(self.widths.get(column.key, len(label))))
        return Cell(" " + label)

    def _is_numeric(self, column: ColumnProvider) -> bool:
        numeric = self._numeric.get(column.key)
        if numeric is None:
            sample = self._sample_value(column)
            numeric = isinstance(sample, (int, float))
            if sample is not None:  # known for good once a value is seen
                self._numeric[column.key] = numeric
        return numeric

    def top_flag_cut(self, summary: KernelSummary) -> bool:
        """Whether the top flag column is hidden or too narrow for ``summary``'s flag."""
        position = next((i for i, c in enumerate(self.columns) if c.key == TOP_FLAG_KEY), None)
        shown = self.full_texts(summary)[position] if position is not None else ""
        return len(shown) > self.widths.get(TOP_FLAG_KEY, 0)

    # -- sorting ---------------------------------------------------------------------------
    def _sample_value(self, column: ColumnProvider, sort: bool = False) -> SortValue:
        """The column's first known value (its type decides alignment and sort direction)."""
        get = column.sort_value if sort else column.cell_value
        return next((v for s in self.state.summaries if (v := get(s)) is not None), None)

    def set_sort(self, key: str, reverse: bool | None = None) -> None:
        """Sort by column ``key``; numbers default to largest first, text to A→Z (the ID,
        report order)."""
        sample = None if key == ID_KEY else self._sample_value(self.column(key), sort=True)
        self.sort.choose(key, sample, reverse)

    def sort_next(self) -> None:
        """Sort by the next column on screen (one the width left out is skipped)."""
        self.set_sort(next_sort_key([c.key for c in self.shown_columns], self.sort.key))

    def info(self, total: int) -> list[str]:
        """The info line's parts: how many kernels are listed, and the sort."""
        return [f"{len(self.listed):,} of {total:,} kernels", self.sort_line()]

    def sort_line(self) -> str:
        """What the list is sorted by, for the info line."""
        column = self.column(self.sort.key)
        hidden = "" if column.key in self.widths else " (a column too wide to show here)"
        return f"sorted by {column.title} {self.sort.arrow}{hidden}"


def _is_number(column: ColumnProvider, value: object) -> bool:
    """Whether a cell of ``value`` is right-aligned as a number (a top flag never is)."""
    return isinstance(value, (int, float)) and column.key != TOP_FLAG_KEY
