"""The block walk of an Nsight Compute report: the index the reader works from.

An ``.ncu-rep`` (and the pre-2020 ``.nsight-cuprof-report``) is ``NVR\\0``, a size-prefixed
FileHeader, then blocks: a size-prefixed BlockHeader (the counts of SourceData messages and of
kernel, range, cmdlist and graph results, the string table, the session details, the payload
size, the process) followed by its payload, that many size-prefixed messages in that order.
The walk reads every header and records where each message lies (offset and size), so a
result is decoded only when it is needed and memory stays bounded by one message. It checks
every length against the file: a truncated report, one followed by other data, or a
decompression bomb gets one sentence naming the user's file.

Facts found on real reports (2019 to 2026): a block's string table is appended to the ones
before it (a range report stores five derived metric names in a later block, and the result
before that block already uses their ids past the first table's end), so names resolve only
once every header is read; a SourceData's reference repeats in each process and in blocks
that hold it without its cubin, so the one with a cubin is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any, NamedTuple

from google.protobuf.message import DecodeError

from kernelscope.core.errors import ReportError, safe_text
from kernelscope.kinds.ncu.model.block_reader import StreamReader, TooLarge, Truncated
from kernelscope.kinds.ncu.model.file_format.schema import BlockHeader, FileHeader
from kernelscope.kinds.ncu.model.result_index import ResultIndex

NCU_MAGIC = b"NVR\x00"
MAX_HEADER = 64 << 20  # no real header comes near this; more means the length is damaged
KERNEL, RANGE, CMDLIST, GRAPH = "kernel", "range", "cmdlist", "graph"
"""The kinds of result, in the order a block stores them after its sources."""


class ProcessInfo(NamedTuple):
    """The process a profiled result came from, as the report records it."""

    pid: int | None
    name: str
    host: str

    @property
    def short_name(self) -> str:
        """The executable's base name, as ncu's "Process Name" column prints it."""
        name = self.name.rstrip("\x00")
        return name.replace("\\", "/").rsplit("/", 1)[-1]


NO_PROCESS = ProcessInfo(None, "", "")


class ResultInfo(NamedTuple):
    """Where one profiled result (kernel, range, cmdlist, graph) lies in the file, and the
    process of the block it is stored in."""

    kind: str
    offset: int
    size: int
    process: ProcessInfo

    @property
    def pid(self) -> int | None:
        return self.process.pid


class SourceInfo(NamedTuple):
    """Where one SourceData message (a module's cubin and source files) lies."""

    offset: int
    size: int


class BlockInfo(NamedTuple):
    """Where one block lies: its header (after the length), the end of its payload, and
    its SourceData messages as (offset, size, reference)."""

    header_offset: int
    header_size: int
    end: int
    sources: tuple[tuple[int, int, int], ...]


@dataclass
class Layout:
    """What the walk found: every result in file order, the string table, the sources by
    (process id, reference), the session details of the report and its size in bytes."""

    results: Sequence[ResultInfo]
    size: int
    versions: dict[str, str] = field(default_factory=dict)
    """The versions the report records, by component ("Nsight Compute Target" is the ncu
    that took it, "CUDA Version" the driver's CUDA); empty in pre-2020 reports."""
    strings: list[str] = field(default_factory=list)
    sources: dict[tuple[int | None, int], SourceInfo] = field(default_factory=dict)
    session: Any = None
    """The first block's session details (the schema's SessionDetails), or None."""
    format_version: int = 0
    blocks: Sequence[BlockInfo] = ()
    file_header: tuple[int, int] = (0, 0)
    """Where the FileHeader lies (offset and size)."""

    @property
    def ncu_version(self) -> str | None:
        """The Nsight Compute version that took the report, e.g. ``2025.1.0.0``."""
        text = self.versions.get("Nsight Compute Target", "")
        return text.split()[0] if text.strip() else None

    @property
    def ncu_version_numbers(self) -> tuple[int, ...] | None:
        """The version as numbers (``(2025, 1, 0, 0)``); None when the report does not say
        (pre-2020 reports and some later ones)."""
        text = self.ncu_version
        if text is None:
            return None
        try:
            return tuple(int(part) for part in text.split("."))
        except ValueError:
            return None

    @property
    def processes(self) -> tuple[ProcessInfo, ...]:
        """The distinct processes of the results, in order of appearance."""
        seen: dict[int | None, ProcessInfo] = {}
        for r in self.results:
            seen.setdefault(r.pid, r.process)
        return tuple(seen.values())


class _BlockFacts(NamedTuple):
    """What the walk takes from a block header besides its strings and session details: the
    kind of each message (None for a SourceData), the payload's size and the process. A
    report's blocks repeat a few headers byte for byte (a block a launch, of a few sizes),
    so the walk decodes each once (``_Walk.known``)."""

    kinds: tuple[str | None, ...]
    payload_size: int
    process: ProcessInfo


MAX_KNOWN_HEADERS = 4096
"""The distinct block headers a walk remembers (it forgets them all at this bound)."""
_new_block = tuple.__new__  # a BlockInfo made without its Python ``__new__`` (once a block)


class _Damaged(Exception):
    def __init__(self, what: str, offset: int) -> None:
        super().__init__(what)
        self.what = what
        self.offset = offset


def _process(header: Any, cache: dict[bytes, ProcessInfo]) -> ProcessInfo:
    if not header.HasField("process"):
        return NO_PROCESS
    raw = header.process.SerializeToString()
    found = cache.get(raw)
    if found is None:
        p = header.process
        pid = p.process_id if p.HasField("process_id") else None
        found = cache[raw] = ProcessInfo(pid, p.process_name, p.hostname)
    return found


class _Walk:
    """The state of one walk: what it has found so far."""

    def __init__(self) -> None:
        self.results: ResultIndex[ResultInfo] = ResultIndex(ResultInfo)
        self.strings: list[str] = []
        self.sources: dict[tuple[int | None, int], SourceInfo] = {}
        self.versions: dict[str, str] = {}
        self.session: Any = None
        self.processes: dict[bytes, ProcessInfo] = {}
        self.blocks: list[BlockInfo] = []
        self.block_sources: list[tuple[int, int, int]] = []
        self.known: dict[bytes, _BlockFacts] = {}
        """The facts of each block header met so far without strings or session details."""

    def layout(self, size: int, format_version: int, file_header: tuple[int, int]) -> Layout:
        """What the walk found in a report of ``size`` bytes (format ``format_version``)."""
        return Layout(self.results, size, self.versions, self.strings, self.sources,
                      self.session, format_version, self.blocks, file_header)

    def _decoded(self, raw: bytes, start: int) -> _BlockFacts:
        """The facts of the block header ``raw``, its string table and session details taken
        in; remembered by its bytes when it has neither (what the walk does with such a
        header is all in its facts)."""
        try:
            header = BlockHeader.FromString(raw)
        except DecodeError:
            raise _Damaged("an unreadable block header", start) from None
        strings = header.string_table.strings
        self.strings.extend(strings)
        has_session = header.HasField("session_details")
        if has_session:
            details = header.session_details
            if self.session is None:
                self.session = details
            for info in details.version_info:
                self.versions.setdefault(info.provider, info.version)
        kinds = (
            (None,) * header.num_sources
            + (KERNEL,) * header.num_results
            + (RANGE,) * header.num_range_results
            + (CMDLIST,) * header.num_cmdlist_results
            + (GRAPH,) * header.num_graph_results
        )
        facts = _BlockFacts(kinds, header.payload_size, _process(header, self.processes))
        if not strings and not has_session:
            if len(self.known) >= MAX_KNOWN_HEADERS:
                self.known.clear()
            self.known[raw] = facts
        return facts

    def block(self, reader: StreamReader) -> None:
        start = reader.offset
        size = reader.u32("a block header")
        if size == 0 or size > MAX_HEADER:
            raise _Damaged("a block header of impossible length", start)
        raw = reader.exact(size, "a block header")
        facts = self.known.get(raw)
        kinds, payload_size, process = facts if facts is not None else self._decoded(raw, start)
        header_end = reader.offset
        end = reader.offset + payload_size
        index = 0
        self.block_sources = []
        while reader.offset < end:
            msg_start = reader.offset
            if end - msg_start < 4:
                raise _Damaged("a block whose messages do not fill its payload", start)
            msg_size = reader.u32("a message length")
            if reader.offset + msg_size > end:
                raise _Damaged("a message longer than its block", msg_start)
            if index >= len(kinds):
                raise _Damaged("a block with more messages than its header counts", start)
            kind = kinds[index]
            if kind is None:
                self._source(reader, msg_size, process)
            else:
                self.results.append(kind, reader.offset, msg_size, process)
                reader.skip(msg_size, "a result message")
            index += 1
        if index < len(kinds):
            raise _Damaged("a block with fewer messages than its header counts", start)
        self.blocks.append(_new_block(BlockInfo, (start + 4, header_end - start - 4, end,
                                                  tuple(self.block_sources))))

    def _source(self, reader: StreamReader, size: int, process: ProcessInfo) -> None:
        """Record a SourceData message by its reference (field 1, read from its first
        bytes), keeping the largest of those that share one (the one with the cubin)."""
        offset = reader.offset
        head = reader.exact(min(size, 16), "a source message")
        reader.skip(size - len(head), "a source message")
        reference = _reference(head)
        self.block_sources.append((offset, size, reference))
        key = (process.pid, reference)
        known = self.sources.get(key)
        if known is None or known.size < size:
            self.sources[key] = SourceInfo(offset, size)


def _reference(head: bytes) -> int:
    """The varint field 1 a SourceData message starts with (0 when it does not)."""
    if not head or head[0] != 0x08:
        return 0
    value, shift = 0, 0
    for byte in head[1:]:
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value
    return 0


def read_layout(stream: IO[bytes], display: str, *, limit: int | None = None) -> Layout:
    """Walk the report in ``stream`` (positioned at its first byte); raise ReportError with one
    sentence naming ``display`` when the structure is damaged, truncated, followed by other
    data, or (for a decompression stream) larger than ``limit`` bytes."""
    reader = StreamReader(stream, limit)
    walk = _Walk()
    name = safe_text(display)
    version, file_header = 0, (0, 0)
    try:
        if reader.read(4) != NCU_MAGIC:
            raise ReportError(f"{name} is not an Nsight Compute report (.ncu-rep).")
        head = reader.u32("the file header")
        if head > MAX_HEADER:
            raise _Damaged("a file header of impossible length", 4)
        file_header = (reader.offset, head)
        try:
            version = FileHeader.FromString(reader.exact(head, "the file header")).version
        except DecodeError:
            raise _Damaged("an unreadable file header", 8) from None
        while not reader.at_end():
            block_start = reader.offset
            try:
                walk.block(reader)
            except _Damaged as exc:
                if exc.offset == block_start and walk.results:
                    tail = reader.offset - block_start + reader.rest()
                    raise ReportError(
                        f"{name} is damaged: its last {tail:,} bytes, from byte "
                        f"{block_start:,} on, are not report data."
                    ) from None
                raise
    except Truncated as exc:
        raise ReportError(
            f"{name} is truncated: it ends inside {exc.what} that starts at byte "
            f"{exc.offset:,}, so part of the report is missing."
        ) from None
    except _Damaged as exc:
        raise ReportError(f"{name} is damaged: {exc.what} at byte {exc.offset:,}.") from None
    except TooLarge as exc:
        raise ReportError(
            f"{name} decompresses to more than {exc.limit:,} bytes, more than a report of its "
            "size can hold; set KERNELSCOPE_MAX_UNPACKED_MB to allow more."
        ) from None
    reader.settle()
    return walk.layout(reader.offset, version, file_header)
