"""Where every result of a report lies, kept in a few bytes a result: a report may hold
100,000 launches, and the reader's memory must not grow with them more than it must.

``ResultIndex`` is the sequence of ``container.ResultInfo`` the block walk finds, stored as
columns (offset, size, kind, process) and handed out one ``ResultInfo`` at a time (it is
given the class, so this module needs nothing of ``container``).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

_Info = TypeVar("_Info", bound=tuple[Any, ...])
_new_tuple = tuple.__new__


class ResultIndex(Sequence[_Info], Generic[_Info]):
    """Every result of a report in file order: ~20 bytes each instead of a ~150-byte
    object. ``make``, a tuple class of (kind, offset, size, process), is the item handed
    out (made as a tuple: a NamedTuple's own ``__new__`` runs Python for each)."""

    def __init__(self, make: type[_Info]) -> None:
        self._make = make
        self._offsets = array("Q")
        self._sizes = array("Q")
        self._kind_of = bytearray()
        self._process_of = array("I")
        self._kinds: list[str] = []
        self._processes: list[Any] = []
        self._numbers: dict[tuple[int, int], int] = {}  # (0|1, id(object)) -> its index
        self._last: tuple[Any, Any, int, int] = (None, None, 0, 0)
        """The kind and process last appended, with their numbers (a block's results share
        them, and so do the blocks of one process)."""

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
        last = self._last
        if last[0] is not kind or last[1] is not process:
            last = self._last = (kind, process, self._number(self._kinds, 0, kind),
                                 self._number(self._processes, 1, process))
        self._offsets.append(offset)
        self._sizes.append(size)
        self._kind_of.append(last[2])
        self._process_of.append(last[3])

    def processes(self) -> list[Any]:
        """The process of each result, in order (without making each result's item)."""
        return list(map(self._processes.__getitem__, self._process_of))

    def __len__(self) -> int:
        return len(self._offsets)

    def _info(self, i: int) -> _Info:
        return _new_tuple(self._make, (self._kinds[self._kind_of[i]], self._offsets[i],
                                       self._sizes[i], self._processes[self._process_of[i]]))

    @overload
    def __getitem__(self, index: int) -> _Info: ...

    @overload
    def __getitem__(self, index: slice) -> list[_Info]: ...

    def __getitem__(self, index: int | slice) -> _Info | list[_Info]:
        if type(index) is int and 0 <= index < len(self._offsets):  # what a reader asks
            return self._info(index)
        if isinstance(index, slice):
            return [self._info(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("result index out of range")
        return self._info(index)

    def __iter__(self) -> Iterator[_Info]:
        return map(self._info, range(len(self)))
