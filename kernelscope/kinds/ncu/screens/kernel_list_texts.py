"""A kernel list row's texts before fitting (``KernelListView.full_texts``): each column's
``cell_text(cell_value(summary))``, the name column's the report's short name, made inline
for the columns whose methods are the plain ``ColumnProvider`` ones (a thousand rows make
fourteen thousand texts as the list completes, on the UI thread)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kernelscope.core.units import NOT_AVAILABLE, fmt_number
from kernelscope.kinds.ncu.model import KernelSummary
from kernelscope.kinds.ncu.screens.columns import (
    NAME_KEY,
    TOP_FLAG_KEY,
    CellValue,
    ColumnProvider,
)

TextMaker = tuple[
    ColumnProvider | None,
    Callable[[KernelSummary], CellValue] | None,
    Callable[[CellValue], str] | None,
]
"""How a column's text is made (``text_makers``)."""
PLAIN_VALUE = ColumnProvider.cell_value
PLAIN_TEXT = ColumnProvider.cell_text


def text_makers(columns: Sequence[ColumnProvider]) -> list[TextMaker]:
    """Per column: the column (None for the name), its value function where ``cell_value``
    only calls it, and the text of a known value where ``cell_text`` is the plain one (else
    None: the column's methods are called)."""
    return [
        (None, None, None) if column.key == NAME_KEY else
        (column,
         column.value if type(column).cell_value is PLAIN_VALUE else None,
         (column.text or _plain_text) if type(column).cell_text is PLAIN_TEXT else None)
        for column in columns
    ]


def row_texts(makers: Sequence[TextMaker], summary: KernelSummary,
              short_name: Callable[[KernelSummary], str]) -> tuple[list[str], list[bool]]:
    """The row's texts, and whether each value is a number (its cell is right-aligned; a
    top flag never is)."""
    texts: list[str] = []
    numbers: list[bool] = []
    for column, value_of, text_of in makers:
        if column is None:
            texts.append(short_name(summary))
            numbers.append(False)
            continue
        if value_of is None:
            value = column.cell_value(summary)
        else:
            try:
                value = value_of(summary)
            except Exception:  # (as ``cell_value``: a failing column shows unknown)
                value = None
        if text_of is None:
            texts.append(column.cell_text(value))
        elif value is None:
            texts.append(NOT_AVAILABLE)
        else:
            texts.append(text_of(value))
        numbers.append(isinstance(value, (int, float)) and column.key != TOP_FLAG_KEY)
    return texts, numbers


def _plain_text(value: CellValue) -> str:
    """A known value's text where its column has no text function (``cell_text``)."""
    return value if isinstance(value, str) else fmt_number(value)  # type: ignore[arg-type]
