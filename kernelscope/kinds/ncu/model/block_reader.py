"""Exact reads and forward skips on the stream a report's block walk reads (``container``),
counting the offset; a read past the stream's end, or past a decompression stream's limit,
is an exception the walk turns into one sentence about the user's file.

A report file (seekable) is read with its own ``read`` and ``seek``; a stream that cannot seek
(decompression) is read ahead by a byte to find its end and skipped by reading. The walk
makes a few reads a block for each of a report's thousands of blocks, so the plain file's
reads go straight to the stream (what the other cases add is looked at once a read).
"""

from __future__ import annotations

import os
import stat
import struct
from typing import IO

SKIP_CHUNK = 1 << 20
_U32 = struct.Struct("<I").unpack_from


def _regular_file(stream: IO[bytes]) -> int | None:
    """The descriptor of ``stream`` when it is a regular file that can be read at offsets."""
    if not hasattr(os, "pread"):  # not on Windows
        return None
    try:
        fd = stream.fileno()
        return fd if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except (AttributeError, OSError, ValueError):
        return None


class Truncated(Exception):
    """The stream ended inside ``what``, which starts at ``offset``."""

    def __init__(self, what: str, offset: int) -> None:
        super().__init__(what)
        self.what = what
        self.offset = offset


class TooLarge(Exception):
    """A decompression stream went past ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


class StreamReader:
    """Exact reads and forward skips on a binary stream, counting the offset."""

    def __init__(self, stream: IO[bytes], limit: int | None) -> None:
        self.stream = stream
        self.offset = 0
        self.limit = limit
        self._ahead = b""  # bytes read to look ahead and not consumed yet
        self._end: int | None = None  # a seekable stream's end, less where the walk began
        try:
            self.seekable = bool(stream.seekable())
        except (AttributeError, OSError):
            self.seekable = False
        self._plain = self.seekable and limit is None
        """Whether a read is the stream's own (nothing is looked ahead on a seekable
        stream) and no limit is checked."""
        self._fd = _regular_file(stream) if self._plain else None
        """A plain report file's descriptor, read at offsets (``os.pread``: a call a read,
        where a buffered read after a skip's seek costs twice as much), else None."""
        self._base = stream.tell() if self._fd is not None else 0
        """Where the walk began in that file (its position is left alone until the end)."""

    def _check_limit(self, upto: int) -> None:
        if self.limit is not None and upto > self.limit:
            raise TooLarge(self.limit)

    def read(self, n: int) -> bytes:
        if self.limit is not None:
            self._check_limit(self.offset + n)
        if self._ahead:
            data, self._ahead = self._ahead[:n], self._ahead[n:]
            if len(data) < n:
                data += self.stream.read(n - len(data))
        elif self._fd is not None:
            data = os.pread(self._fd, n, self._base + self.offset)
        else:  # nothing looked ahead (a seekable file, always): the stream's own bytes
            data = self.stream.read(n)
        self.offset += len(data)
        return data

    def exact(self, n: int, what: str) -> bytes:
        start = self.offset
        if self._fd is not None:
            data = os.pread(self._fd, n, self._base + start)
            self.offset = start + len(data)
        elif self._plain:
            data = self.stream.read(n)
            self.offset = start + len(data)
        else:
            data = self.read(n)
        if len(data) < n:
            raise Truncated(what, start)
        return data

    def u32(self, what: str) -> int:
        """A little-endian 32-bit length (:meth:`exact` of 4 bytes)."""
        return _U32(self.exact(4, what))[0]  # type: ignore[no-any-return]

    def _left(self) -> int:
        """The bytes after the stream's position (:meth:`_find_end`'s end less the offset)."""
        end = self._end
        return (end if end is not None else self._find_end()) - self.offset

    def _find_end(self) -> int:
        """The stream's end less where the walk started, found once (a report file does not
        change while it is walked): the stream's position is that start plus what the walk
        has read and skipped."""
        here = self.stream.tell()
        began = self._base if self._fd is not None else here - self.offset
        end = self._end = self.stream.seek(0, 2) - began
        self.stream.seek(here)
        return end

    def settle(self) -> None:
        """Leave the stream where the walk ended, as reading it through would (a file read
        at offsets was not moved)."""
        if self._fd is not None:
            self.stream.seek(self._base + self.offset)

    def skip(self, n: int, what: str) -> None:
        start = self.offset
        if self.limit is not None:
            self._check_limit(self.offset + n)
        if self.seekable:
            end = self._end  # _left, read here (once a block)
            left = (end if end is not None else self._find_end()) - start
            if left < n:
                self.offset += left
                raise Truncated(what, start)
            if self._fd is None:
                self.stream.seek(n, 1)
            self.offset = start + n
            return
        left = n
        while left:
            chunk = self.read(min(left, SKIP_CHUNK))
            if not chunk:
                raise Truncated(what, start)
            left -= len(chunk)

    def at_end(self) -> bool:
        if self.seekable:  # _left, read here (once a block)
            end = self._end
            return (end if end is not None else self._find_end()) <= self.offset
        if not self._ahead:
            self._ahead = self.stream.read(1)
        return not self._ahead

    def rest(self) -> int:
        """The number of bytes left after the current offset (reads a stream to its end)."""
        if self.seekable:
            return self._left()
        count = len(self._ahead)
        while True:
            self._check_limit(self.offset + count)
            chunk = self.stream.read(SKIP_CHUNK)
            if not chunk:
                return count
            count += len(chunk)
