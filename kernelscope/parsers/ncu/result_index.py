"""Where every result of a report lies, kept in a few bytes a result: a report may hold
100,000 launches, and the reader's memory must not grow with them more than it must.

``ResultIndex`` is the sequence of ``container.ResultInfo`` the block walk finds, stored as
columns (offset, size, kind, process) and handed out one ``ResultInfo`` at a time.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import overload

from kernelscope.parsers.ncu.container import CMDLIST, GRAPH, KERNEL, RANGE, ProcessInfo, ResultInfo

KINDS = (KERNEL, RANGE, CMDLIST, GRAPH)
_CODE = {kind: code for code, kind in enumerate(KINDS)}


class ResultIndex(Sequence[ResultInfo]):
    """Every result of a report in file order: ~15 bytes each instead of a ~150-byte
    object."""

    def __init__(self) -> None:
        self._offsets = array("Q")
        self._sizes = array("Q")
        self._kinds = bytearray()
        self._process_of = array("I")
        self._processes: list[ProcessInfo] = []
        self._process_ids: dict[int, int] = {}  # id(ProcessInfo) -> its index

    def append(self, kind: str, offset: int, size: int, process: ProcessInfo) -> None:
        number = self._process_ids.get(id(process))
        if number is None:
            number = self._process_ids[id(process)] = len(self._processes)
            self._processes.append(process)
        self._offsets.append(offset)
        self._sizes.append(size)
        self._kinds.append(_CODE[kind])
        self._process_of.append(number)

    def __len__(self) -> int:
        return len(self._offsets)

    def _info(self, i: int) -> ResultInfo:
        return ResultInfo(KINDS[self._kinds[i]], self._offsets[i], self._sizes[i],
                          self._processes[self._process_of[i]])

    @overload
    def __getitem__(self, index: int) -> ResultInfo: ...

    @overload
    def __getitem__(self, index: slice) -> list[ResultInfo]: ...

    def __getitem__(self, index: int | slice) -> ResultInfo | list[ResultInfo]:
        if isinstance(index, slice):
            return [self._info(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("result index out of range")
        return self._info(index)

    def __iter__(self) -> Iterator[ResultInfo]:
        return map(self._info, range(len(self)))
