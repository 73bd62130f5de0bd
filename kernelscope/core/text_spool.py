"""Texts made per kernel in the reading pass, kept in a temporary file instead of memory.

The Markdown and JSON exports render each kernel's record as its detail is read (the detail
is then dropped), and write the records once every kernel is read (the families, shares and
ranking need them all). A record is 20-30 KB of text, so an 8,676-launch report would hold
~250 MB of them; kept in an anonymous temporary file, the process holds a few bytes a
kernel and reads each record back when it is written out.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, MutableMapping
from typing import Any


class TextSpool(MutableMapping[int, Any]):
    """A mapping from kernel ID to what ``analyse`` made of it: a string is written to the
    spool file (and read back on access), any other value is kept as it is."""

    def __init__(self) -> None:
        # Open as long as the spool lives; the file is removed when closed or collected.
        self._file = tempfile.TemporaryFile()  # noqa: SIM115
        self._end = 0
        self._texts: dict[int, tuple[int, int]] = {}  # id -> (offset, byte length)
        self._others: dict[int, Any] = {}

    def __setitem__(self, key: int, value: Any) -> None:
        if key in self:
            del self[key]
        if not isinstance(value, str):
            self._others[key] = value
            return
        data = value.encode("utf-8", "surrogatepass")
        self._file.seek(self._end)
        self._file.write(data)
        self._texts[key] = (self._end, len(data))
        self._end += len(data)

    def __getitem__(self, key: int) -> Any:
        place = self._texts.get(key)
        if place is None:
            return self._others[key]
        self._file.seek(place[0])
        return self._file.read(place[1]).decode("utf-8", "surrogatepass")

    def is_text(self, key: int) -> bool:
        """Whether ``key`` holds a string (without reading it back)."""
        return key in self._texts

    def __delitem__(self, key: int) -> None:
        if self._texts.pop(key, None) is None:
            del self._others[key]

    def __contains__(self, key: object) -> bool:
        return key in self._texts or key in self._others

    def __iter__(self) -> Iterator[int]:
        yield from self._texts
        yield from self._others

    def __len__(self) -> int:
        return len(self._texts) + len(self._others)

    def close(self) -> None:
        self._file.close()
