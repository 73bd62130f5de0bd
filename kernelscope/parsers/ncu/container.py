"""Check the block structure of an Nsight Compute report before ncu_report sees it.

An ``.ncu-rep`` (and the pre-2020 ``.nsight-cuprof-report``) is ``NVR\\0``, a length-prefixed
file header, then blocks: a length-prefixed block header (protobuf: number of sources, number
of results, payload size, the process the block belongs to) followed by its payload, which is
that many length-prefixed source and result messages. ncu_report never reports a damaged
structure (a truncated file silently yields fewer kernels, and a report followed by zeros makes
it slow and huge), so the walk here checks every length against the file, and reads from each
result the process id and mangled kernel name that ncu_report does not expose.

The walk reads headers and the first bytes of each result only; it works on any binary
stream (a plain file is skipped through with ``seek``, a decompression stream by reading).
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

from kernelscope.parsers.errors import ReportError, safe_text

NCU_MAGIC = b"NVR\x00"
MAX_HEADER = 64 << 20  # no real header comes near this; more means the length is damaged
RESULT_HEAD = 4096  # bytes of each result message parsed for its process id and name
_SKIP_CHUNK = 1 << 20

# Field numbers in the messages (read from real reports, 2019 to 2026).
_BLOCK_SOURCES, _BLOCK_INFO, _BLOCK_PAYLOAD, _BLOCK_PROCESS = 1, 3, 5, 6
_INFO_VERSION = 8  # in a block's info: {1: component, 2: its version}
_PROCESS_PID, _PROCESS_HOST, _PROCESS_NAME = 1, 2, 3
_RESULT_MANGLED = 5


@dataclass(frozen=True)
class ProcessInfo:
    """The process a profiled result came from, as the report records it."""

    pid: int | None
    name: str
    host: str

    @property
    def short_name(self) -> str:
        """The executable's base name, as ncu's "Process Name" column prints it."""
        name = self.name.rstrip("\x00")
        return name.replace("\\", "/").rsplit("/", 1)[-1]


@dataclass(frozen=True)
class ResultInfo:
    """One profiled result (kernel, range, graph) in file order, with the process of the
    block it is stored in."""

    pid: int | None
    mangled: str | None
    process: ProcessInfo


@dataclass(frozen=True)
class Layout:
    """What the walk found: every result in file order, and the report's size in bytes."""

    results: tuple[ResultInfo, ...]
    size: int
    versions: dict[str, str] = field(default_factory=dict)
    """The versions the report records, by component ("Nsight Compute Target" is the ncu
    that took it, "CUDA Version" the driver's CUDA); empty in pre-2020 reports."""

    @property
    def ncu_version(self) -> str | None:
        """The Nsight Compute version that took the report, e.g. ``2025.1.0.0``."""
        text = self.versions.get("Nsight Compute Target", "")
        return text.split()[0] if text.strip() else None

    @property
    def processes(self) -> tuple[ProcessInfo, ...]:
        """The distinct processes of the results, in order of appearance."""
        seen: dict[int | None, ProcessInfo] = {}
        for r in self.results:
            seen.setdefault(r.pid, r.process)
        return tuple(seen.values())


class _Damaged(Exception):
    def __init__(self, what: str, offset: int) -> None:
        super().__init__(what)
        self.what = what
        self.offset = offset


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = 0
    value = 0
    while True:
        if i >= len(buf) or shift > 63:
            raise ValueError("varint")
        byte = buf[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def _scan(buf: bytes) -> Iterator[tuple[int, int | bytes]]:
    """The top-level (field number, value) pairs of a protobuf message, in order; raises
    ValueError at the first damaged field."""
    i = 0
    end = len(buf)
    while i < end:
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ValueError("field 0")
        if wire == 0:
            value, i = _varint(buf, i)
            yield number, value
        elif wire == 2:
            size, i = _varint(buf, i)
            if i + size > end:
                raise ValueError("length")
            yield number, buf[i : i + size]
            i += size
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        else:
            raise ValueError("wire type")
        if i > end:
            raise ValueError("fixed")


def fields(buf: bytes) -> list[tuple[int, int | bytes]]:
    """The top-level (field number, value) pairs of a protobuf message; ValueError when it
    is damaged."""
    return list(_scan(buf))


def first_field(buf: bytes, number: int) -> int | bytes | None:
    """The value of the first field ``number`` of a message read only in part (None when
    it is not among the complete fields of ``buf``): the scan stops there (a result's mangled
    name comes early in a message of kilobytes)."""
    try:
        for found, value in _scan(buf):
            if found == number:
                return value
    except ValueError:
        return None
    return None


def _text(value: int | bytes | None) -> str:
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else ""


def _process(value: int | bytes | None) -> ProcessInfo:
    if not isinstance(value, bytes):
        return ProcessInfo(None, "", "")
    return _process_of(value)


@functools.lru_cache(maxsize=64)
def _process_of(value: bytes) -> ProcessInfo:
    """The process of a block header (every block of a process repeats the same bytes)."""
    try:
        items = dict(fields(value))
    except ValueError:
        return ProcessInfo(None, "", "")
    pid = items.get(_PROCESS_PID)
    return ProcessInfo(
        pid if isinstance(pid, int) else None,
        _text(items.get(_PROCESS_NAME)),
        _text(items.get(_PROCESS_HOST)),
    )


class _Reader:
    """Exact reads and forward skips on a binary stream, counting the offset."""

    def __init__(self, stream: IO[bytes], limit: int | None) -> None:
        self.stream = stream
        self.offset = 0
        self.limit = limit
        self._ahead = b""  # bytes read to look ahead and not consumed yet
        try:
            self.seekable = bool(stream.seekable())
        except (AttributeError, OSError):
            self.seekable = False

    def _check_limit(self, upto: int) -> None:
        if self.limit is not None and upto > self.limit:
            raise _TooLarge(self.limit)

    def read(self, n: int) -> bytes:
        self._check_limit(self.offset + n)
        data, self._ahead = self._ahead[:n], self._ahead[n:]
        if len(data) < n:
            data += self.stream.read(n - len(data))
        self.offset += len(data)
        return data

    def exact(self, n: int, what: str) -> bytes:
        start = self.offset
        data = self.read(n)
        if len(data) < n:
            raise _Truncated(what, start)
        return data

    def _left(self) -> int:
        here = self.stream.tell()
        end = self.stream.seek(0, 2)
        self.stream.seek(here)
        return end - here

    def skip(self, n: int, what: str) -> None:
        start = self.offset
        self._check_limit(self.offset + n)
        if self.seekable:
            left = self._left()
            if left < n:
                self.offset += left
                raise _Truncated(what, start)
            self.stream.seek(n, 1)
            self.offset += n
            return
        left = n
        while left:
            chunk = self.read(min(left, _SKIP_CHUNK))
            if not chunk:
                raise _Truncated(what, start)
            left -= len(chunk)

    def at_end(self) -> bool:
        if self.seekable:
            return self._left() <= 0
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
            chunk = self.stream.read(_SKIP_CHUNK)
            if not chunk:
                return count
            count += len(chunk)


class _Truncated(Exception):
    def __init__(self, what: str, offset: int) -> None:
        super().__init__(what)
        self.what = what
        self.offset = offset


class _TooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


def _u32(reader: _Reader, what: str) -> int:
    return int(struct.unpack("<I", reader.exact(4, what))[0])


def _version(value: int | bytes | None, versions: dict[str, str]) -> None:
    if isinstance(value, bytes):
        for key, text in _version_pairs(value):
            versions.setdefault(key, text)


@functools.lru_cache(maxsize=64)
def _version_pairs(value: bytes) -> tuple[tuple[str, str], ...]:
    """The (component, version) pairs of a block's info (the same bytes in every block)."""
    pairs: list[tuple[str, str]] = []
    try:
        for number, item in fields(value):
            if number == _INFO_VERSION and isinstance(item, bytes):
                pair = dict(fields(item))
                key, text = pair.get(1), pair.get(2)
                if isinstance(key, bytes) and isinstance(text, bytes):
                    pairs.append((_text(key), _text(text)))
    except ValueError:
        pass
    return tuple(pairs)


def _block(reader: _Reader, results: list[ResultInfo], versions: dict[str, str]) -> None:
    start = reader.offset
    size = _u32(reader, "a block header")
    if size == 0 or size > MAX_HEADER:
        raise _Damaged("a block header of impossible length", start)
    raw = reader.exact(size, "a block header")
    try:
        header = dict(fields(raw))
    except ValueError:
        raise _Damaged("an unreadable block header", start) from None
    n_sources = header.get(_BLOCK_SOURCES, 0)
    payload = header.get(_BLOCK_PAYLOAD, 0)
    if not isinstance(n_sources, int) or not isinstance(payload, int):
        raise _Damaged("an unreadable block header", start)
    process = _process(header.get(_BLOCK_PROCESS))
    _version(header.get(_BLOCK_INFO), versions)
    end = reader.offset + payload
    # The payload is a run of length-prefixed messages: the block's sources, then its results
    # (kernel results are counted in one header field, range results in another, so the
    # messages are read until the payload ends rather than counted).
    index = 0
    while reader.offset < end:
        msg_start = reader.offset
        if end - msg_start < 4:
            raise _Damaged("a block whose messages do not fill its payload", start)
        msg_size = _u32(reader, "a message length")
        if reader.offset + msg_size > end:
            raise _Damaged("a message longer than its block", msg_start)
        if index < n_sources:
            reader.skip(msg_size, "a source message")
        else:
            head_len = min(msg_size, RESULT_HEAD)
            head = reader.exact(head_len, "a result message")
            reader.skip(msg_size - head_len, "a result message")
            mangled = first_field(head, _RESULT_MANGLED)
            results.append(
                ResultInfo(
                    process.pid, _text(mangled) if isinstance(mangled, bytes) else None, process
                )
            )
        index += 1
    if index < n_sources:
        raise _Damaged("a block with fewer messages than its header counts", start)


def read_layout(stream: IO[bytes], display: str, *, limit: int | None = None) -> Layout:
    """Walk the report in ``stream`` (positioned at its first byte); raise ReportError with one
    sentence naming ``display`` when the structure is damaged, truncated, followed by other
    data, or (for a decompression stream) larger than ``limit`` bytes."""
    reader = _Reader(stream, limit)
    results: list[ResultInfo] = []
    versions: dict[str, str] = {}
    name = safe_text(display)
    try:
        if reader.read(4) != NCU_MAGIC:
            raise ReportError(f"{name} is not an Nsight Compute report (.ncu-rep).")
        head = _u32(reader, "the file header")
        if head > MAX_HEADER:
            raise _Damaged("a file header of impossible length", 4)
        reader.exact(head, "the file header")
        while not reader.at_end():
            block_start = reader.offset
            try:
                _block(reader, results, versions)
            except _Damaged as exc:
                if exc.offset == block_start and results:
                    tail = reader.offset - block_start + reader.rest()
                    raise ReportError(
                        f"{name} is damaged: its last {tail:,} bytes, from byte "
                        f"{block_start:,} on, are not report data."
                    ) from None
                raise
    except _Truncated as exc:
        raise ReportError(
            f"{name} is truncated: it ends inside {exc.what} that starts at byte "
            f"{exc.offset:,}, so part of the report is missing."
        ) from None
    except _Damaged as exc:
        raise ReportError(f"{name} is damaged: {exc.what} at byte {exc.offset:,}.") from None
    except _TooLarge as exc:
        raise ReportError(
            f"{name} decompresses to more than {exc.limit:,} bytes, more than a report of its "
            "size can hold; set KERNELSCOPE_MAX_UNPACKED_MB to allow more."
        ) from None
    return Layout(results=tuple(results), size=reader.offset, versions=versions)
