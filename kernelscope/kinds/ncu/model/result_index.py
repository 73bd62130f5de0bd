"""Where every result of a report lies, kept in a few bytes a result: a report may hold
100,000 launches, and the reader's memory must not grow with them more than it must.

``ResultIndex`` is the sequence of ``container.ResultInfo`` the block walk finds, stored as
columns (offset, size, kind, process) and handed out one ``ResultInfo`` at a time (it is
given the class, so this module needs nothing of ``container``).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

_Info = TypeVar("_Info")


class ResultIndex(Sequence[_Info], Generic[_Info]):
    """Every result of a report in file order: ~20 bytes each instead of a ~150-byte
    object. ``make(kind, offset, size, process)`` builds the item handed out."""

    def __init__(self, make: Callable[[str, int, int, Any], _Info]) -> None:
        self._make = make
        self._offsets = array("Q")
        self._sizes = array("Q")
        self._kind_of = bytearray()
        self._process_of = array("I")
        self._kinds: list[str] = []
        self._processes: list[Any] = []
        self._numbers: dict[tuple[int, int], int] = {}  # (0|1, id(object)) -> its index

    def _number(self, table: list[Any], which: int, value: Any) -> int:
        """``value``'s index in ``table``, added on first sight (each is one object, shared
        by the results of a block)."""
        key = (which, id(value))
        number = self._numbers.get(key)
        if number is None:
            number = self._numbers[key] = len(table)
            table.append(value)
        return number

    def append(self, kind: str, offset: int, size: int, process: Any) -> None:
        self._offsets.append(offset)
        self._sizes.append(size)
        self._kind_of.append(self._number(self._kinds, 0, kind))
        self._process_of.append(self._number(self._processes, 1, process))

    def __len__(self) -> int:
        return len(self._offsets)

    def _info(self, i: int) -> _Info:
        return self._make(self._kinds[self._kind_of[i]], self._offsets[i], self._sizes[i],
                          self._processes[self._process_of[i]])

    @overload
    def __getitem__(self, index: int) -> _Info: ...

    @overload
    def __getitem__(self, index: slice) -> list[_Info]: ...

    def __getitem__(self, index: int | slice) -> _Info | list[_Info]:
        if isinstance(index, slice):
            return [self._info(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("result index out of range")
        return self._info(index)

    def __iter__(self) -> Iterator[_Info]:
        return map(self._info, range(len(self)))
