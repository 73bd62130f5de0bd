"""Metric tables: NCU's own section header tables, and labelled value lists for the panes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from kernelscope.core.units import NOT_AVAILABLE
from kernelscope.kinds.ncu.model import KernelDetail
from kernelscope.kinds.ncu.render.metric_text import metric_label, split_metric

DERIVED = "derived"
"""The note on a value kernelscope computed from NCU's metrics because NCU does not report it."""

TWO_COLUMN_WIDTH = 104
"""From this width on, a section table lays its metrics out in two column pairs, like NCU."""


@dataclass(frozen=True)
class Row:
    """A labelled value: ``note`` is a short remark beside it; ``how`` says how a derived
    value was computed (printed under the table)."""

    label: str
    value: str
    unit: str = ""
    note: str = ""
    style: str = ""
    how: str = ""


def metric_row(detail: KernelDetail, name: str, label: str | None = None) -> Row:
    """A row holding NCU's value of ``name`` (``n/a`` when the report lacks it)."""
    metric = detail.metric(name)
    value, unit = split_metric(metric)
    label = label or metric_label(metric, name)
    return Row(label, value, "" if _says_again(label, unit) else unit)


def _says_again(label: str, unit: str) -> bool:
    """Whether ``unit`` only repeats the label (``SMs`` beside ``SMs``, ``registers/thread``
    beside ``Registers per thread``): the value reads better alone."""
    said = label.removeprefix("# ").lower()
    return bool(unit) and unit.replace("/", " per ").lower() == said


def derived_row(label: str, value: str, unit: str = "", how: str = "") -> Row:
    """A row for a value computed from NCU's metrics; the note says so."""
    return Row(label, value, unit, DERIVED, how=how)


def rows_table(rows: Iterable[Row], *, title: str | None = None) -> Table:
    """Label, value, unit and note in four columns; how derived values were computed below."""
    rows = list(rows)
    hows = [f"{row.label}: {DERIVED} — {row.how}." for row in rows if row.how]
    table = Table(
        box=None,
        padding=(0, 1),
        show_header=False,
        title=title,
        title_justify="left",
        title_style="bold",
        caption="\n".join(hows) or None,
        caption_justify="left",
        caption_style="dim italic",
    )
    table.add_column("label", style="", no_wrap=True)
    table.add_column("value", justify="right", no_wrap=True, style="bold")
    table.add_column("unit", no_wrap=True)
    table.add_column("note", style="dim italic", overflow="fold")
    for row in rows:
        table.add_row(row.label, Text(row.value, style=row.style or ""), row.unit, row.note)
    return table


class SectionTable:
    """NCU's header table of one section: label, value and unit per metric, in NCU's order.

    Laid out in two column pairs, like NCU's GUI, when the width allows it.
    """

    def __init__(self, detail: KernelDetail, section: str, title: str | None = None):
        self.rows = [metric_row(detail, name) for name in detail.section_metrics.get(section, ())]
        self.title = title or detail.sections.get(section, section)

    def _table(self, pairs: int) -> Table:
        table = Table(
            box=None,
            padding=(0, 1),
            title=self.title,
            title_justify="left",
            title_style="bold",
            show_header=False,
            expand=False,
        )
        for _ in range(pairs):
            table.add_column("label", no_wrap=True, style="")
            table.add_column("value", justify="right", no_wrap=True, style="bold")
            table.add_column("unit", no_wrap=True, min_width=4)
        for start in range(0, len(self.rows), pairs):
            cells: list[str | Text] = []
            for row in self.rows[start : start + pairs]:
                cells.extend([row.label, row.value, row.unit])
            cells.extend([""] * (3 * pairs - len(cells)))
            table.add_row(*cells)
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self.rows:
            yield Text(f"{self.title}: {NOT_AVAILABLE}", style="dim")
            return
        yield self._table(2 if options.max_width >= TWO_COLUMN_WIDTH else 1)


def grid_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str | Text]],
    *,
    title: str | None = None,
    notes: Sequence[str] = (),
    left: int = 1,
) -> Table:
    """A plain table with a header row; the first ``left`` columns left-aligned, the others
    (numbers) right-aligned."""
    table = Table(
        box=None,
        padding=(0, 1),
        title=title,
        title_justify="left",
        title_style="bold",
        header_style="bold",
        caption="\n".join(notes) or None,
        caption_justify="left",
        caption_style="dim italic",
    )
    for i, header in enumerate(headers):
        table.add_column(header, justify="left" if i < left else "right", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    return table
