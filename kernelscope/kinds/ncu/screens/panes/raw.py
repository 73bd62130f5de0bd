"""Pane 8 — Raw: every metric the report holds for the kernel with its unit, as NCU's Raw
page lists them, filtered by a substring or a regular expression on the name.

The metrics are read in the detail screen's worker (``NcuReport.all_metrics``, ~0.1 s a
kernel); the table holds the rows that match (a report has a few thousand metrics a kernel).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterator

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input, Static

from kernelscope.core.units import fmt_number
from kernelscope.kinds.ncu.model import KernelDetail, Metric
from kernelscope.kinds.ncu.model.panes import RAW
from kernelscope.kinds.ncu.screens.panes.base import FullHeightPane
from kernelscope.ui.widgets.sized_table import SizedTable, TableColumn

KEPT = 4
"""How many kernels' metrics the pane keeps (stepping back with p is instant)."""
VALUE_WIDTH = 22
UNIT_WIDTH = 12


def metric_filter(text: str) -> re.Pattern[str] | None:
    """The filter for ``text``: a case-insensitive regular expression when it is one, else
    the text as a plain substring (``l1tex__t_sectors(`` is not a valid expression); None
    for no filter."""
    if not text:
        return None
    try:
        return re.compile(text, re.IGNORECASE)
    except re.error:
        return re.compile(re.escape(text), re.IGNORECASE)


def raw_columns(metrics: dict[str, Metric]) -> list[TableColumn]:
    """The table's columns, values first: whatever the width, the numbers show; long names
    are cut on the right. The names' column is as wide as the kernel's longest name, so it
    stays put while the filter changes."""
    return [
        TableColumn("value", Text("Value", justify="right"), VALUE_WIDTH),
        TableColumn("unit", Text("Unit"), UNIT_WIDTH),
        TableColumn("name", Text("Metric"), max([len("Metric"), *map(cell_len, metrics)])),
    ]


def matching(metrics: dict[str, Metric], pattern: re.Pattern[str] | None) -> list[Metric]:
    """The metrics whose name matches, by name."""
    return [m for name, m in sorted(metrics.items())
            if pattern is None or pattern.search(name)]


def raw_rows(shown: list[Metric]) -> Iterator[tuple[Text, Text, Text]]:
    """The table's cells of each metric shown: value (as ``ncu --page raw`` prints it), unit,
    name."""
    for m in shown:
        yield (Text(fmt_number(m.value), justify="right", overflow="ellipsis"),
               Text(m.unit, overflow="ellipsis"), Text(m.name))


def raw_count(shown: list[Metric], metrics: dict[str, Metric],
              pattern: re.Pattern[str] | None) -> Text:
    """The line above the table: how many metrics show, of how many, and the filter."""
    count = Text(f"{len(shown):,} of {len(metrics):,} metrics", style="bold")
    if pattern is not None:
        count.append(f" matching /{pattern.pattern}/", style="")
    count.append(" · base units, as ncu --page raw --print-units base", style="dim")
    return count


class MetricsNeeded(Message):
    """The Raw pane needs every metric of ``kernel_id`` (read them in a worker)."""

    def __init__(self, kernel_id: int) -> None:
        super().__init__()
        self.kernel_id = kernel_id


class FilterInput(Input):
    """The filter field: escape clears it and goes back to the table."""

    BINDINGS = [
        Binding("escape", "leave", "Clear filter", id="raw.clear",
                tooltip="Clear the filter and go back to the metrics."),
    ]

    def action_leave(self) -> None:
        self.value = ""
        pane = next((a for a in self.ancestors if isinstance(a, RawPane)), None)
        if pane is not None:
            pane.query_one(SizedTable).focus()


class RawPane(FullHeightPane):
    spec = RAW
    tab_label = "Raw"

    DEFAULT_CSS = """
    RawPane #raw-table {
        height: 1fr;
        scrollbar-size-vertical: 1;
    }
    RawPane #raw-filter {
        background: $boost;
        margin: 0;
    }
    """

    BINDINGS = [
        Binding("slash", "filter", "Filter", id="raw.filter",
                tooltip="Filter the metrics by a substring or a regular expression on the name."),
        Binding("escape", "clear_filter", "Clear filter", id="raw.clear-filter",
                tooltip="Clear the filter (without one, escape goes back to the kernels)."),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._metrics: OrderedDict[int, dict[str, Metric]] = OrderedDict()
        self.pattern: re.Pattern[str] | None = None

    def compose_content(self) -> ComposeResult:
        yield FilterInput(placeholder="/ filter: substring or regex on the metric name "
                          "(escape clears)", id="raw-filter", compact=True)
        yield Static("", id="raw-count")
        yield SizedTable(id="raw-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one(SizedTable).fill(raw_columns({}), ())

    def on_focus(self) -> None:
        self.query_one(SizedTable).focus()

    @property
    def metrics(self) -> dict[str, Metric] | None:
        return self._metrics.get(self.detail.id) if self.detail is not None else None

    def update_content(self, detail: KernelDetail) -> None:
        if detail.id in self._metrics:
            self._fill()
            return
        self.query_one("#raw-count", Static).update(
            Text("Reading every metric of this kernel…", style="dim italic"))
        self.query_one(SizedTable).clear()
        self.post_message(MetricsNeeded(detail.id))

    def show_metrics(self, kernel_id: int, metrics: dict[str, Metric]) -> None:
        """Keep the metrics a worker read; show them if they are the current kernel's."""
        self._metrics[kernel_id] = metrics
        while len(self._metrics) > KEPT:
            self._metrics.popitem(last=False)
        if self.detail is not None and self.detail.id == kernel_id:
            self._fill()

    def _fill(self) -> None:
        metrics = self.metrics
        if metrics is None:
            return
        shown = matching(metrics, self.pattern)
        self.query_one(SizedTable).fill(
            raw_columns(metrics), ((None, cells) for cells in raw_rows(shown)))
        self.query_one("#raw-count", Static).update(raw_count(shown, metrics, self.pattern))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape clears a filter first; without one it goes on to the screen (back)."""
        if action == "clear_filter":
            return bool(self.query_one("#raw-filter", Input).value)
        return True

    def action_clear_filter(self) -> None:
        self.query_one("#raw-filter", Input).value = ""

    @on(Input.Changed, "#raw-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.pattern = metric_filter(event.value)
        self._fill()
        self.refresh_bindings()

    @on(Input.Submitted, "#raw-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.query_one(SizedTable).focus()

    def action_filter(self) -> None:
        self.query_one("#raw-filter", Input).focus()

