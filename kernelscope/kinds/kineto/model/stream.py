"""Reading a Kineto (PyTorch profiler) chrome trace in pieces, so memory stays bounded.

A trace is one JSON object: a few small members (``deviceProperties``, ``distributedInfo``,
``baseTimeNanoseconds``, …) and ``traceEvents``, an array holding nearly all of its bytes.
The members around the array are parsed whole; the array is cut into pieces of about
``PIECE_BYTES`` at an event boundary (a ``}`` then ``,`` then ``{``) and each piece is parsed
as an array of its own (by the ``parse`` the caller gives: orjson by default). A cut inside
a string or a nested object makes that piece's parse fail; the reader then cuts at an earlier
boundary (or reads on), so a piece is only ever accepted as whole events (``model.py`` also
cuts without that check, to parse pieces in parallel, and reads again with it when a piece
fails). Plain, gzip, xz and zstd files are read as streams, their decompression capped as
a kernel report's is (``core/compressed.py``: ``unpack_limit``).

Bounds: the event list is refused (one sentence) when more than ``MAX_EVENT_BYTES`` of it
hold no event boundary that parses (one event named by a 64 MiB string, or a gigabyte of
padding between two events): a real event takes a few kilobytes, and without the bound each
new chunk would rescan and copy the growing buffer (quadratic time).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

import orjson

from kernelscope.core.compressed import (
    compression_of,
    decompress_errors,
    open_stream,
    too_large,
    unpack_limit,
)
from kernelscope.core.errors import ReportError, safe_text

PIECE_BYTES = 512 << 10
"""About how many bytes of events are parsed at once. Parsing holds several times a piece's
size for a while (polars' parse tree, or orjson's objects); pieces of half a megabyte kept
the peak lowest and took the least time, measured on 128 MB (docs/kineto.md)."""
HEADER_LIMIT = 64 << 20
"""The most bytes read while looking for ``traceEvents`` (the members before it are small)."""
_EVENTS_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
_KEY_SPAN = 4096
"""How much of the bytes before a chunk its key search looks back at (the key with the
whitespace a pretty-printer puts around its colon)."""
_BOUNDARY = re.compile(rb"\}\s*,\s*\{")
_RETRIES = 8
TRAILER_LIMIT = 1 << 20
"""The most bytes the members after the event array may take (Kineto writes a few)."""
TRAILER_TRIES = 256
"""The most ``]`` tried as the array's end (the members after it hold few lists)."""
_AFTER_ARRAY = re.compile(rb"\s*[,}]")
MAX_EVENT_BYTES = 16 << 20
"""The most bytes of the event list read past a piece without a whole event ending."""


T = TypeVar("T")


def parse_events(text: bytes) -> list[dict[str, Any]]:
    """The events of ``text`` (a JSON array of objects) as Python dicts; ValueError when it
    is not one."""
    events = orjson.loads(text)
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise ValueError("not an array of objects")
    return events


@dataclass
class TraceHeader:
    """The trace's members other than ``traceEvents``."""

    members: dict[str, Any] = field(default_factory=dict)


def looks_like_kineto(head: bytes) -> bool:
    """Whether the first decompressed bytes can begin a Kineto trace: a JSON object (after
    any whitespace) whose text holds ``traceEvents`` or the members Kineto writes first."""
    text = head.lstrip()
    if not text.startswith(b"{"):
        return False
    return any(key in text for key in (b'"traceEvents"', b'"schemaVersion"',
                                       b'"deviceProperties"', b'"distributedInfo"'))


def read_head(path: Path, size: int = 1 << 16) -> bytes:
    """The first ``size`` decompressed bytes of ``path``."""
    with _open(path) as fh:
        return fh.read(size)


class _Capped:
    """A decompressed stream that refuses to give more than ``limit`` bytes."""

    def __init__(self, stream: IO[bytes], limit: int, path: Path) -> None:
        self.stream, self.limit, self.path, self.given = stream, limit, path, 0

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.given += len(data)
        if self.given > self.limit:
            raise too_large(self.path, self.limit)
        return data


class _Opened:
    def __init__(self, path: Path) -> None:
        self.raw = open(path, "rb")  # noqa: SIM115 (closed by __exit__)
        kind = compression_of(self.raw.read(6))
        self.raw.seek(0)
        self.stream: IO[bytes] = self.raw if kind is None else open_stream(self.raw, kind)
        self.reader: IO[bytes] | _Capped = self.stream if kind is None else _Capped(
            self.stream, unpack_limit(path), path)

    def __enter__(self) -> IO[bytes] | _Capped:
        return self.reader

    def __exit__(self, *exc: object) -> None:
        if self.stream is not self.raw:
            self.stream.close()
        self.raw.close()


def _open(path: Path) -> _Opened:
    try:
        return _Opened(path)
    except OSError as exc:
        raise ReportError(f"{safe_text(path)} cannot be read ({exc.strerror or exc}).") from exc


def iter_event_pieces(
    path: Path, header: TraceHeader, piece_bytes: int = PIECE_BYTES,
    on_piece: Callable[[int], None] | None = None,
    parse: Callable[[bytes], T] = parse_events,  # type: ignore[assignment]
) -> Iterator[T]:
    """The events of ``path``, whole events at a time, each piece (the text of a JSON array)
    as ``parse`` reads it (ValueError when the text is not an array of events: the cut is then
    moved); ``header.members`` is filled with the other members once the array has been read.
    Raises ReportError (one sentence) for a file that is not a complete JSON trace.
    ``on_piece(bytes_read)`` runs after every piece."""
    name = safe_text(path)
    try:
        with _open(path) as fh:
            before, rest = _find_events(fh, name)
            read = len(before) + len(rest)
            buffer = rest
            eof = False
            while not eof:
                chunk = fh.read(piece_bytes)
                eof = not chunk
                read += len(chunk)
                buffer += chunk
                if eof:
                    break
                if len(buffer) < piece_bytes:
                    continue
                events, buffer = _split_piece(buffer, parse)
                if events is not None:
                    yield events
                    if on_piece is not None:
                        on_piece(read)
                elif len(buffer) > piece_bytes + MAX_EVENT_BYTES:
                    raise ReportError(
                        f"{name} holds more than {MAX_EVENT_BYTES >> 20} MiB of its "
                        "traceEvents array without a whole event (one event that long, or "
                        "padding), more than a PyTorch profiler trace holds.")
            last, after = _last_piece(buffer, name, parse)
            if last is not None:
                yield last
            header.members = _members(before, after, name)
    except decompress_errors() as exc:
        if isinstance(exc, ReportError):
            raise
        raise ReportError(f"{name} is compressed but could not be decompressed ({exc}).") from exc


def _find_events(fh: IO[bytes] | _Capped, name: str) -> tuple[bytes, bytes]:
    """(the bytes before the ``traceEvents`` array's ``[``, the bytes read after it). Each
    chunk is searched with the end of the one before (where a key may begin): not all the
    bytes read again."""
    parts: list[bytes] = []
    size = 0
    tail = b""
    while size < HEADER_LIMIT:
        chunk = fh.read(1 << 20)
        window = tail + chunk
        found = _EVENTS_KEY.search(window)
        if found is not None:
            data = b"".join(parts) + chunk
            start = size - len(tail) + found.start()
            return data[:start], data[size - len(tail) + found.end():]
        parts.append(chunk)
        size += len(chunk)
        tail = window[-_KEY_SPAN:]
        if not chunk:
            break
    data = b"".join(parts)
    if data.lstrip().startswith(b"{"):
        raise ReportError(f"{name} is a JSON object without a traceEvents array, not a "
                          "PyTorch profiler trace.")
    raise ReportError(f"{name} is not a PyTorch profiler trace (no JSON object with "
                      "traceEvents).")


def _split_piece(buffer: bytes, parse: Callable[[bytes], T]) -> tuple[T | None, bytes]:
    """Parse the longest prefix of ``buffer`` ending at an event boundary that parses."""
    end = len(buffer)
    for _ in range(_RETRIES):
        cut = _last_boundary(buffer, end)
        if cut is None:
            return None, buffer
        try:
            events = parse(b"".join((b"[", memoryview(buffer)[: cut + 1], b"]")))
        except ValueError:
            end = cut
            continue
        rest = buffer[cut + 1:]
        return events, rest[rest.index(b"{"):]
    return None, buffer


def _last_boundary(buffer: bytes, end: int) -> int | None:
    """The offset of the ``}`` of the last ``}, {`` boundary starting before ``end``."""
    pos = buffer.rfind(b"{", 0, end)
    while pos > 0:
        close = buffer.rfind(b"}", 0, pos)
        if close < 0:
            return None
        if _BOUNDARY.fullmatch(buffer, close, pos + 1):
            return close
        pos = buffer.rfind(b"{", 0, pos)
    return None


def _last_piece(buffer: bytes, name: str, parse: Callable[[bytes], T]
                ) -> tuple[T | None, bytes]:
    """The events left in ``buffer`` and the bytes after the array's closing ``]``: the
    last ``]`` after which the rest closes the object (checked on the small rest first)."""
    end = len(buffer)
    floor = max(0, len(buffer) - TRAILER_LIMIT)
    tries = 0 if not buffer.rstrip().endswith(b"}") else TRAILER_TRIES  # else cut short
    while tries > 0 and (close := buffer.rfind(b"]", floor, end)) >= 0:
        end = close
        tries -= 1
        if not _AFTER_ARRAY.match(buffer, close + 1) or not _closes_object(buffer[close + 1:]):
            continue
        if not buffer[:close].strip():
            return None, buffer[close + 1:]
        try:
            return (parse(b"".join((b"[", memoryview(buffer)[:close], b"]"))),
                    buffer[close + 1:])
        except ValueError:
            continue
    raise ReportError(f"{name} is truncated or not valid JSON (its traceEvents array does "
                      "not end).")


def _closes_object(rest: bytes) -> bool:
    """Whether ``rest`` (what follows the array) is more members and the object's ``}``."""
    tail = rest.strip()
    if tail == b"}":
        return True
    if not tail.startswith(b","):
        return False
    try:
        return isinstance(orjson.loads(b"{" + tail[1:]), dict)
    except orjson.JSONDecodeError:
        return False


def _members(before: bytes, after: bytes, name: str) -> dict[str, Any]:
    """The object's other members: ``before`` ends just before ``"traceEvents"``, ``after``
    starts just after the array."""
    text = before.rstrip()
    if text.endswith(b","):
        text = text[:-1]
    tail = after.lstrip()
    if tail.startswith(b","):
        tail = tail[1:]
    joined = text + (b"," if text.rstrip() != b"{" and tail.lstrip() != b"}" else b"") + tail
    try:
        members = orjson.loads(joined)
    except orjson.JSONDecodeError as exc:
        raise ReportError(f"{name} is truncated or not valid JSON ({exc}).") from exc
    if not isinstance(members, dict):
        raise ReportError(f"{name} is not a JSON object, not a PyTorch profiler trace.")
    return members
