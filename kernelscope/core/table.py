"""The one table component's rules, without Textual: how rows sort and filter, and which way
a column sorts first.

Every sortable table of the product (the kernel list, the timeline's frame tables) follows
these rules, so a column sorts the same way wherever it is shown:

- numbers sort before text, numerically; text sorts case-insensitively;
- an unknown value (None) sorts last in either direction;
- ties keep the rows' own order (their IDs) in either direction;
- a numeric column sorts largest first, a text column A→Z (``first_direction``);
- ``s`` moves to the next column on screen, wrapping round (``next_sort_key``).

A filter is a regular expression, case-insensitive unless it holds a capital
(``compile_filter``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

RowT = TypeVar("RowT")
SortValue = str | int | float | None


def sort_token(value: SortValue) -> tuple[int, float | str]:
    """The key a known value sorts by: numbers first (numerically), then text (A→Z, case
    ignored)."""
    if isinstance(value, (int, float)):
        return (0, float(value))
    return (1, str(value).lower())


def sort_rows(
    rows: Iterable[RowT],
    value: Callable[[RowT], SortValue],
    order: Callable[[RowT], int],
    *,
    reverse: bool = False,
) -> list[RowT]:
    """``rows`` sorted on ``value`` (``reverse``: largest first), rows without a value last
    and ties in ``order`` (their ID) either way."""
    keyed = [(value(row), row) for row in rows]
    present = [(v, row) for v, row in keyed if v is not None]
    missing = [row for v, row in keyed if v is None]
    present.sort(key=lambda item: order(item[1]))
    # Sorting is stable, also when reversed: ties keep the order just given.
    present.sort(key=lambda item: sort_token(item[0]), reverse=reverse)
    return [row for _, row in present] + missing


def first_direction(sample: SortValue) -> bool:
    """Whether a column whose values look like ``sample`` sorts largest first (numbers do)."""
    return isinstance(sample, (int, float))


def next_sort_key(shown: Sequence[str], current: str) -> str:
    """The column ``s`` sorts by next: the one after ``current`` among the ``shown`` ones
    (the first when ``current`` is not shown)."""
    position = shown.index(current) if current in shown else -1
    return shown[(position + 1) % len(shown)]


def compile_filter(text: str) -> re.Pattern[str] | None:
    """The filter's regex (case-insensitive unless it has a capital); None for no filter.
    The one rule of every kernel-name filter: the TUI's and ``-k`` (``errors.kernel_filter``).

    Raises ``re.error`` for an invalid expression.
    """
    if not text:
        return None
    flags = 0 if any(ch.isupper() for ch in text) else re.IGNORECASE
    return re.compile(text, flags)


@dataclass
class SortState:
    """What a table sorts by: a column key and a direction."""

    key: str
    reverse: bool = False

    @property
    def arrow(self) -> str:
        """The header's mark: ▼ largest (or Z) first, ▲ smallest first."""
        return "▼" if self.reverse else "▲"

    def flip(self) -> None:
        self.reverse = not self.reverse

    def choose(self, key: str, sample: SortValue, reverse: bool | None = None) -> None:
        """Sort by ``key`` (in its first direction unless ``reverse`` says)."""
        self.key = key
        self.reverse = first_direction(sample) if reverse is None else reverse


__all__ = [
    "SortState",
    "SortValue",
    "compile_filter",
    "first_direction",
    "next_sort_key",
    "sort_rows",
    "sort_token",
]
