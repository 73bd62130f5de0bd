"""Texts made per kernel in the reading pass, held in memory up to a budget and past it in a
temporary file.

The Markdown and JSON exports render each kernel's record as its detail is read (the detail
is then dropped), and write the records once every kernel is read (the families, shares and
ranking need them all). A record is 10-30 KB of text, so an 8,676-launch report would hold
~250 MB of them: the first :data:`MEMORY_BUDGET` characters of records stay in memory (a
1,000-launch report's 26 MB: no file, no copy out and back), the rest go to an anonymous
temporary file, of which the process holds a few bytes a kernel and reads each record back
when it is written out.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import IO, Any

MEMORY_BUDGET = 32 << 20
"""The characters of text a spool holds in memory before it writes texts to its file."""


class TextSpool(MutableMapping[int, Any]):
    """A mapping from kernel ID to what ``analyse`` made of it: a string is held in memory
    while the held strings fit ``budget`` characters, else written to the spool file (and
    read back on access); any other value is kept as it is."""

    def __init__(self, budget: int = MEMORY_BUDGET) -> None:
        self._budget = budget
        self._held: dict[int, str] = {}
        self._held_chars = 0
        self._file: IO[bytes] | None = None  # opened when the first text does not fit
        self._end = 0
        self._texts: dict[int, tuple[int, int]] = {}  # id -> (offset, byte length)
        self._others: dict[int, Any] = {}

    def __setitem__(self, key: int, value: Any) -> None:
        if key in self:
            del self[key]
        if not isinstance(value, str):
            self._others[key] = value
        elif self._held_chars + len(value) <= self._budget:
            self._held[key] = value
            self._held_chars += len(value)
        else:
            self._spill(key, value)

    def _spill(self, key: int, value: str) -> None:
        if self._file is None:
            import tempfile  # only a report of many large records comes here

            # Open as long as the spool lives; the file is removed when closed or collected.
            self._file = tempfile.TemporaryFile()  # noqa: SIM115
        data = value.encode("utf-8", "surrogatepass")
        self._file.seek(self._end)
        self._file.write(data)
        self._texts[key] = (self._end, len(data))
        self._end += len(data)

    def __getitem__(self, key: int) -> Any:
        held = self._held.get(key)
        if held is not None:
            return held
        place = self._texts.get(key)
        if place is None:
            return self._others[key]
        assert self._file is not None  # a text was written to it
        self._file.seek(place[0])
        return self._file.read(place[1]).decode("utf-8", "surrogatepass")

    def is_text(self, key: int) -> bool:
        """Whether ``key`` holds a string (without reading it back)."""
        return key in self._held or key in self._texts

    @property
    def spilled(self) -> int:
        """How many texts went to the file."""
        return len(self._texts)

    def __delitem__(self, key: int) -> None:
        held = self._held.pop(key, None)
        if held is not None:
            self._held_chars -= len(held)
        elif self._texts.pop(key, None) is None:
            del self._others[key]

    def __contains__(self, key: object) -> bool:
        return key in self._held or key in self._texts or key in self._others

    def __iter__(self) -> Iterator[int]:
        yield from self._held
        yield from self._texts
        yield from self._others

    def __len__(self) -> int:
        return len(self._held) + len(self._texts) + len(self._others)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
