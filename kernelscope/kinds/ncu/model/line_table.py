"""Each SASS instruction's source line, from the DWARF line table (``.debug_line``) of the
cubin a report embeds: nvcc writes one for code built with ``-lineinfo`` (or ``-G``). Read
with pyelftools, in this process; no disassembler and no NVIDIA binding needed.

A cubin's line table addresses each kernel from the start of its own ``.text.<function>``
section: each sequence begins with an address that a relocation (``.rela.debug_line``) ties
to that section's symbol. The relocations are applied here with the section's index in the
address's high bits, so every row names its function and its offset in it. Where one address
has several rows (an inlined call: the call site first, then the inlined function's line),
the first is kept, as Nsight Compute shows it. Not mapped: the inlined-at chain itself (only
the first row's line is given), and PTX lines (``.nv_debug_line_sass``).
"""

from __future__ import annotations

import bisect
import io
import posixpath
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

_SECTION_SHIFT = 40
"""Relocated addresses carry the section index above this bit, the offset below it."""
_OFFSET_MASK = (1 << _SECTION_SHIFT) - 1
_DAMAGED = (ValueError, IndexError, KeyError, TypeError, AttributeError, UnicodeDecodeError,
            struct.error)
"""What pyelftools raises on a cubin it cannot read (a damaged or unexpected one), with its
own ``ELFError`` and ``ConstructError``. pyelftools is imported where a cubin is read: a
report without SASS never needs it (~0.09 s of imports)."""


@dataclass(frozen=True)
class FunctionLines:
    """One function's rows: instruction offset → (file, line), sorted by offset; the size of
    its code (an offset past it is not the function's) and its load address where the cubin
    holds one (a cubin taken from a loaded image), else 0."""

    offsets: tuple[int, ...]
    places: tuple[tuple[str, int], ...]
    size: int
    address: int = 0

    def place(self, offset: int) -> tuple[str, int]:
        """The source file and line of the instruction at ``offset`` (("", 0) if none)."""
        i = bisect.bisect_right(self.offsets, offset) - 1
        if i < 0 or not 0 <= offset < self.size:
            return ("", 0)
        return self.places[i]


@dataclass(frozen=True)
class LineTables:
    """The line rows of every function of a cubin, by mangled name."""

    functions: dict[str, FunctionLines]

    def start(self, function: str, pcs: Sequence[int], entries: Entries) -> int | None:
        """Where the launch of ``function`` whose PCs with counters are ``pcs`` begins."""
        lines = self.functions.get(function)
        if lines is not None and lines.address:
            return lines.address
        return entries.kernel_start(pcs, lines.size if lines else 0)

    def places(
        self, function: str, pcs: Sequence[int], start: int | None
    ) -> dict[int, tuple[str, int]]:
        """The source line of each of ``pcs`` (device addresses) of a launch of ``function``
        that begins at ``start`` (:meth:`start`). A cubin with load addresses places every
        PC, those of the functions the kernel calls too; else only the kernel's own PCs are
        placed (``start`` None: unknown, nothing placed)."""
        lines = self.functions.get(function)
        if lines is None:
            return {}
        if lines.address:
            return self._by_address(pcs)
        if start is None:
            return {}
        out = {}
        for pc in pcs:
            place = lines.place(pc - start)
            if place[0]:
                out[pc] = place
        return out

    def _by_address(self, pcs: Sequence[int]) -> dict[int, tuple[str, int]]:
        loaded = sorted((f.address, f) for f in self.functions.values() if f.address)
        starts = [address for address, _ in loaded]
        out = {}
        for pc in pcs:
            i = bisect.bisect_right(starts, pc) - 1
            if i >= 0:
                place = loaded[i][1].place(pc - starts[i])
                if place[0]:
                    out[pc] = place
        return out


@dataclass(frozen=True)
class Entries:
    """What tells where a launch's kernel begins: the start PCs of the kernel and of the
    functions it calls (``launch__function_pcs``), instructions executed by PC, and the
    number of warps launched."""

    function_pcs: tuple[int, ...] = ()
    executed: dict[int, float] = field(default_factory=dict)
    warps: int = 0

    def kernel_start(self, pcs: Sequence[int], size: int) -> int | None:
        """The only function PC, or the one whose first instruction ran once per launched
        warp. A report without function PCs: the lowest PC with counters (a kernel's first
        instruction always runs) when every PC fits in the kernel's ``size``. None when it
        cannot be told."""
        if len(self.function_pcs) == 1:
            return self.function_pcs[0]
        if self.function_pcs:
            ran_once = [pc for pc in self.function_pcs if self.executed.get(pc) == self.warps]
            return ran_once[0] if len(ran_once) == 1 and self.warps > 0 else None
        if pcs and max(pcs) - min(pcs) < size:
            return min(pcs)
        return None


def read_line_tables(cubin: bytes) -> LineTables:
    """Every function's line rows in ``cubin``; none when it has no line table (built without
    ``-lineinfo``) or one pyelftools cannot read."""
    if not cubin:
        return LineTables({})
    from elftools.common.exceptions import ELFError
    from elftools.construct import ConstructError
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(io.BytesIO(cubin))
        section = elf.get_section_by_name(".debug_line")
        if section is None:
            return LineTables({})
        data, sections = _relocated(elf, bytearray(section.data()))
        rows = _rows(bytes(data), elf.little_endian)
    except (ELFError, ConstructError, *_DAMAGED):
        return LineTables({})
    out: dict[str, FunctionLines] = {}
    for index, found in rows.items():
        name, size, address = sections.get(index, ("", 0, 0))
        if not name.startswith(".text.") or not found:
            continue
        offsets = sorted(found)
        out[name.removeprefix(".text.")] = FunctionLines(
            tuple(offsets), tuple(found[o] for o in offsets), size, address)
    return LineTables(out)


def _function_addresses(elf: ELFFile, symbols: SymbolTableSection) -> dict[int, int]:
    """Section index → the address of the function it holds (0 in a cubin not loaded)."""
    out: dict[int, int] = {}
    for symbol in symbols.iter_symbols():
        index = symbol["st_shndx"]
        if symbol["st_info"]["type"] == "STT_FUNC" and isinstance(index, int):
            out[index] = min(out.get(index, symbol["st_value"]), symbol["st_value"])
    return out


def _relocated(
    elf: ELFFile, data: bytearray
) -> tuple[bytearray, dict[int, tuple[str, int, int]]]:
    """``data`` (the line table) with each relocated address set to its section's index in
    the high bits and the offset in the section below them; the sections' names, sizes and
    load addresses."""
    from elftools.elf.relocation import RelocationSection
    from elftools.elf.sections import SymbolTableSection

    relocations = elf.get_section_by_name(".rela.debug_line") or elf.get_section_by_name(
        ".rel.debug_line")
    sections: dict[int, tuple[str, int, int]] = {}
    if not isinstance(relocations, RelocationSection):
        return data, sections
    symbols = elf.get_section(relocations["sh_link"])
    if not isinstance(symbols, SymbolTableSection):
        return data, sections
    addresses = _function_addresses(elf, symbols)
    order = "<Q" if elf.little_endian else ">Q"
    for relocation in relocations.iter_relocations():
        symbol = symbols.get_symbol(relocation["r_info_sym"])
        index = symbol["st_shndx"]
        at = relocation["r_offset"]
        if not isinstance(index, int) or at + 8 > len(data):
            continue
        addend = relocation["r_addend"] if relocation.is_RELA() else _rel_addend(
            struct.unpack_from(order, data, at)[0], symbol["st_value"])
        base = symbol["st_value"] - addresses.get(index, 0)
        if symbol["st_info"]["type"] == "STT_SECTION":
            base = 0
        offset = (base + addend) & _OFFSET_MASK
        struct.pack_into(order, data, at, (index << _SECTION_SHIFT) | offset)
        if index not in sections:
            target = elf.get_section(index)
            sections[index] = (target.name, int(target["sh_size"]), addresses.get(index, 0))
    return data, sections


def _rel_addend(stored: int, value: int) -> int:
    """A REL relocation's addend: the bytes it patches, which a cubin taken from a loaded image
    already hold relocated (the symbol's address added)."""
    return stored - value if value and stored >= value else stored


def _rows(data: bytes, little_endian: bool) -> dict[int, dict[int, tuple[str, int]]]:
    """Section index → offset → (file, line), from every line program of the table; the
    first row of an address kept."""
    from elftools.common.utils import struct_parse
    from elftools.dwarf.lineprogram import LineProgram
    from elftools.dwarf.structs import DWARFStructs

    stream = io.BytesIO(data)
    out: dict[int, dict[int, tuple[str, int]]] = {}
    offset = 0
    while offset + 4 <= len(data):
        (length,) = struct.unpack_from("<I" if little_endian else ">I", data, offset)
        dwarf64 = length == 0xFFFFFFFF
        structs = DWARFStructs(little_endian=little_endian, dwarf_format=64 if dwarf64 else 32,
                               address_size=8)
        header = struct_parse(structs.Dwarf_lineprog_header, stream, offset)
        end = offset + header["unit_length"] + (12 if dwarf64 else 4)
        if end <= offset or end > len(data):
            break
        program = LineProgram(header, stream, structs, stream.tell(), end)
        paths = _paths(header)
        for entry in program.get_entries():
            state = entry.state
            if state is None or state.end_sequence or not 0 < state.file <= len(paths):
                continue
            rows = out.setdefault(state.address >> _SECTION_SHIFT, {})
            rows.setdefault(state.address & _OFFSET_MASK, (paths[state.file - 1], state.line))
        offset = end
    return out


def _paths(header: Any) -> list[str]:
    """The line program's file names, each joined to its directory and normalised as Nsight
    Compute shows them (``/usr/local/cuda/bin/../targets`` → ``/usr/local/cuda/targets``;
    Windows separators, which the table may hold escaped, as ``/``)."""
    directories = [_slashes(_text(d)) for d in header["include_directory"]]
    out = []
    for entry in header["file_entry"]:
        name = _slashes(_text(entry.name))
        index = entry.dir_index or 0
        if not _ABSOLUTE.match(name) and 0 < index <= len(directories):
            name = posixpath.join(directories[index - 1], name)
        out.append(posixpath.normpath(name))
    return out


_ABSOLUTE = re.compile(r"/|[A-Za-z]:/")


def _slashes(path: str) -> str:
    return path.replace("\\\\", "/").replace("\\", "/")


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)

