"""Shared pieces of the table views: nsys-style columns and the base of a table view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual.containers import Vertical

from kernelscope.core.units import fmt_float, fmt_int, fmt_mb
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.screens.widgets.timeline_table import Column, FrameTable, FrameView, Row


def pct_column(key: str = "Time (%)") -> Column:
    return Column(key, key, lambda v: fmt_float(v, 1))


def duration_columns(count: str) -> list[Column]:
    """``Time (%)`` … ``StdDev (ns)`` as ``nsys stats`` prints them (``count`` is the name of
    its count column: Instances, Num Calls, Count)."""
    return [
        pct_column(),
        Column("Total Time (ns)", "Total Time (ns)", fmt_int),
        Column(count, count, fmt_int),
        Column("Avg (ns)", "Avg (ns)", fmt_float),
        Column("Med (ns)", "Med (ns)", fmt_float, priority=3),
        Column("Min (ns)", "Min (ns)", fmt_int, priority=2),
        Column("Max (ns)", "Max (ns)", fmt_int, priority=1),
        Column("StdDev (ns)", "StdDev (ns)", fmt_float, priority=4),
    ]


def size_columns() -> list[Column]:
    """``cuda_gpu_mem_size_sum``'s columns (MB = 10^6 bytes)."""
    return [
        Column("Total (MB)", "Total (MB)", fmt_mb),
        Column("Count", "Count", fmt_int),
        Column("Avg (MB)", "Avg (MB)", fmt_mb),
        *(Column(k, k, fmt_mb, priority=p) for k, p in (("Med (MB)", 3), ("Min (MB)", 2),
                                                        ("Max (MB)", 1), ("StdDev (MB)", 4))),
    ]


def name_column(key: str = "Name", *, kernel_names: bool = False) -> Column:
    """The name column: it takes the width the others leave; kernel names are shown by
    their short names (the whole name is on the status line)."""
    return Column(key, key, str, numeric=False, flex=True, kernel_names=kernel_names)


def describe_by(column: str) -> Callable[[Row], str]:
    """How the status line names a row of a table: by its ``column``."""

    def describe(row: Row) -> str:
        return str(row.get(column, ""))

    return describe


def time_summary(title: str, count: str, name: str = "Name", *, noun: str, table_id: str,
                 kernel_names: bool = False, **options: Any) -> FrameView:
    """A table of an ``nsys stats`` time summary: the duration columns (``count``: the name
    of its count column) and the name column ``name``, by total time, rows described by
    their name; ``options``: the other ``FrameView`` options."""
    return FrameView(
        title, [*duration_columns(count), name_column(name, kernel_names=kernel_names)],
        sort="Total Time (ns)", noun=noun, describe=describe_by(name), table_id=table_id,
        **options,
    )


class TableView(Vertical):
    """A view made of one or more FrameViews; ``show`` fills them from the data."""

    VIEW_ID: ClassVar[str]
    """The widget id of the view."""

    DEFAULT_CSS = """
    TableView {
        height: 1fr;
    }
    TableView > .table-note {
        height: auto;
        max-height: 6;
        padding: 0 1;
    }
    """

    def __init__(self) -> None:
        super().__init__(id=self.VIEW_ID)

    def show(self, data: TimelineData) -> None:
        raise NotImplementedError

    @property
    def first_table(self) -> FrameTable:
        return self.query(FrameView).first().table
