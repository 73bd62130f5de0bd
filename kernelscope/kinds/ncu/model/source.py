"""A kernel's whole source and SASS with the metrics NCU keeps per instruction.

NCU's SourceCounters section stores per-PC (instanced, correlated by program counter) metrics:
executed instructions, warp-state samples in total and per stall reason, and for memory
instructions their L2 sectors and the excess over the ideal, and the shared-memory wavefronts
beyond the ideal (bank conflicts). :func:`read_kernel_source` reads them with every SASS
instruction of the kernel (also those never executed, which have no metrics) and, where the
kernel was built with ``-lineinfo`` and the report imported the source, the source files with
the same metrics summed per line. Plain objects; the Source page draws them.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kernelscope.kinds.ncu.model.file_format.bag import instances_of
from kernelscope.kinds.ncu.model.file_format.result import Result
from kernelscope.kinds.ncu.model.line_table import Entries
from kernelscope.kinds.ncu.model.sass import Instruction

SAMPLES = "smsp__pcsamp_sample_count"
EXECUTED = "inst_executed"
STALL_PREFIX = "smsp__pcsamp_warps_issue_stalled_"
MAX_INSTRUCTIONS = 200_000
"""A kernel bigger than this is listed up to it (its executed instructions always are)."""


@dataclass(frozen=True)
class SourceColumn:
    """A per-instruction metric shown as a column."""

    key: str
    title: str
    metric: str
    tooltip: str


FIXED_COLUMNS = (
    SourceColumn("executed", "Executed", EXECUTED, "Warp-level instructions executed"),
    SourceColumn("samples", "Samples", SAMPLES, "Warp state samples (where warps were)"),
    SourceColumn("l2_sectors", "L2 sectors", "memory_l2_theoretical_sectors_global",
                 "Global-memory L2 sectors the instruction requested"),
    SourceColumn("excess_sectors", "Excess sect.",
                 "derived__memory_l2_theoretical_sectors_global_excessive",
                 "L2 sectors beyond the ideal for the access size (uncoalesced accesses)"),
    SourceColumn("bank_conflicts", "Bank confl.",
                 "derived__memory_l1_wavefronts_shared_excessive",
                 "Shared-memory wavefronts beyond the ideal (bank conflicts)"),
)
TOP_STALLS = 3
"""The kernel's most sampled stall reasons also get a column each."""
HOT_SHARE = 0.01
"""A line or instruction is hot when it holds at least this share of the samples (or of the
executed instructions, without samples), among the ten hottest."""
HOT_COUNT = 10


@dataclass(frozen=True)
class ListingRow:
    """One source line or SASS instruction with its metric values (column key → value)."""

    text: str
    values: dict[str, float]
    file: str = ""
    line: int = 0
    pc: int | None = None
    hot: int = 0
    """Its rank among the hot rows (1 the hottest), 0 when not hot."""


@dataclass(frozen=True)
class SourceFile:
    """A source file of the kernel with its lines (every line, metrics where there are)."""

    path: str
    rows: tuple[ListingRow, ...]

    @property
    def name(self) -> str:
        return os.path.basename(self.path)


@dataclass(frozen=True)
class KernelSource:
    """Everything the Source page shows for one kernel."""

    columns: tuple[SourceColumn, ...]
    sass: tuple[ListingRow, ...]
    files: tuple[SourceFile, ...]
    totals: dict[str, float]
    has_line_info: bool
    stall_reasons: tuple[str, ...] = ()
    truncated: bool = False
    disassembled: bool = True
    """False when no disassembler was available: instructions are listed by address only
    (``sass.NO_DISASSEMBLER`` says how to get their text)."""
    _sass_of_line: dict[tuple[str, int], tuple[int, ...]] = field(default_factory=dict)

    def sass_rows_of(self, path: str, line: int) -> tuple[int, ...]:
        """Indices into ``sass`` of the instructions of source line ``path:line``."""
        return self._sass_of_line.get((path, line), ())

    def file_index(self, path: str) -> int | None:
        return next((i for i, f in enumerate(self.files) if f.path == path), None)


Disassembler = Callable[[list[int]], dict[int, Instruction]]
"""Given PCs, their SASS text and source lines (``sass.disassemble`` for one kernel)."""


def per_pc(result: Result, name: str) -> dict[int, float]:
    """An instanced metric keyed by PC (its correlation ids), NaN values left out."""
    raw = result.metric(name)
    if raw is None:
        return {}
    out: dict[int, float] = {}
    for key, value in instances_of(raw):
        if isinstance(key, int) and isinstance(value, (int, float)) and not math.isnan(value):
            out[key] = float(value)
    return out


def function_pcs(result: Result) -> tuple[int, ...]:
    """The start PCs of the result's kernel and of the functions it calls, in order
    (``launch__function_pcs``)."""
    raw = result.metric("launch__function_pcs")
    found = instances_of(raw) if raw is not None else []
    return tuple(sorted(int(v) for _, v in found if isinstance(v, (int, float))))


def launch_entries(result: Result, starts: tuple[int, ...] | None = None) -> Entries:
    """What tells where the result's kernel begins (``line_table.Entries``): its function
    PCs (``starts`` where known: :func:`function_pcs`), instructions executed by PC and its
    warps (grid size × warps per block)."""
    starts = function_pcs(result) if starts is None else starts
    grid, block = result.value("launch__grid_size"), result.value("launch__block_size")
    warps = 0
    if isinstance(grid, (int, float)) and isinstance(block, (int, float)) and grid == grid:
        warps = int(grid) * -(-int(block) // 32)
    return Entries(starts, per_pc(result, EXECUTED), warps)


def _step(pcs: list[int]) -> int:
    """The instruction size: the smallest gap between known PCs (16 bytes since Volta)."""
    gaps = [b - a for a, b in itertools.pairwise(pcs) if b > a]
    return min(gaps) if gaps else 16


def _mark_hot(rows: list[ListingRow], key: str) -> list[ListingRow]:
    total = sum(r.values.get(key, 0.0) for r in rows)
    if total <= 0:
        return rows
    ranked = sorted(
        (i for i, r in enumerate(rows) if r.values.get(key, 0.0) >= HOT_SHARE * total),
        key=lambda i: -rows[i].values.get(key, 0.0),
    )[:HOT_COUNT]
    out = list(rows)
    for rank, i in enumerate(ranked, start=1):
        row = rows[i]
        out[i] = ListingRow(row.text, row.values, row.file, row.line, row.pc, rank)
    return out


def read_kernel_source(
    result: Result, texts: dict[str, list[str]], disassemble: Disassembler
) -> KernelSource | None:
    """The whole SASS (and source, with line info) of the result with its per-instruction
    metrics; None when the report holds no per-instruction counters for it. ``texts`` are
    the source files the report embeds (lines by path)."""
    names = result.metric_names()
    stall_names = [n for n in names if n.startswith(STALL_PREFIX)
                   and not n.endswith("_not_issued")]
    per_metric = {c.metric: per_pc(result, c.metric) for c in FIXED_COLUMNS}
    per_stall = {n: per_pc(result, n) for n in stall_names}
    known = set().union(*(set(v) for v in per_metric.values()))
    if not known:
        return None
    stall_totals = {n: sum(v.values()) for n, v in per_stall.items()}
    top = [n for n, t in sorted(stall_totals.items(), key=lambda kv: -kv[1]) if t > 0][:TOP_STALLS]
    columns = [c for c in FIXED_COLUMNS if any(per_metric[c.metric].values())]
    columns += [
        SourceColumn(f"stall:{n}", n.removeprefix(STALL_PREFIX), n,
                     f"Samples of warps stalled on {n.removeprefix(STALL_PREFIX)}")
        for n in top
    ]
    values_of = {**per_metric, **{n: per_stall[n] for n in top}}
    pcs = sorted(known)
    step = _step(pcs)
    span = range(pcs[0], pcs[-1] + step, step)
    truncated = len(span) > MAX_INSTRUCTIONS
    listed = sorted(set(pcs) | set(span[:MAX_INSTRUCTIONS]))
    found = disassemble(listed)
    sass: list[ListingRow] = []
    for pc in listed:
        ins = found.get(pc)
        if (ins is None or not ins.text) and pc not in known:
            continue
        values = {c.key: values_of[c.metric][pc] for c in columns if pc in values_of[c.metric]}
        where = ("", 0) if ins is None else (ins.file, ins.line)
        sass.append(ListingRow(ins.text if ins else "", values, *where, pc))
    has_line_info = any(r.file for r in sass)
    hot_key = "samples" if any(c.key == "samples" for c in columns) else "executed"
    sass = _mark_hot(sass, hot_key)
    files, of_line = _files(texts, sass, columns, hot_key)
    totals = {c.key: sum(r.values.get(c.key, 0.0) for r in sass) for c in columns}
    return KernelSource(
        columns=tuple(columns), sass=tuple(sass), files=files, totals=totals,
        has_line_info=has_line_info, stall_reasons=tuple(top), truncated=truncated,
        disassembled=any(i.text for i in found.values()), _sass_of_line=of_line,
    )


def _files(
    texts: dict[str, list[str]],
    sass: Iterable[ListingRow],
    columns: list[SourceColumn],
    hot_key: str,
) -> tuple[tuple[SourceFile, ...], dict[tuple[str, int], tuple[int, ...]]]:
    """Each source file with every line and the metrics of its instructions summed."""
    per_line: dict[tuple[str, int], dict[str, float]] = {}
    of_line: dict[tuple[str, int], list[int]] = {}
    for i, row in enumerate(sass):
        if not row.file:
            continue
        key = (row.file, row.line)
        of_line.setdefault(key, []).append(i)
        acc = per_line.setdefault(key, {})
        for name, value in row.values.items():
            acc[name] = acc.get(name, 0.0) + value
    # The files instructions map to (a header the kernel includes but never runs is left out,
    # unless no file has counted lines at all).
    counted_paths = list(dict.fromkeys(f for f, _ in per_line))
    paths = counted_paths or list(texts)
    # Files with counted lines first (the kernel's own file before the headers it includes).
    weight = {p: sum(v.get(hot_key, 0.0) for (f, _), v in per_line.items() if f == p)
              for p in paths}
    paths.sort(key=lambda p: (-weight[p], p))
    files = []
    for path in paths:
        lines = texts.get(path)
        counted = sorted(ln for f, ln in per_line if f == path)
        if not lines and not counted:
            continue
        count = max(len(lines or ()), counted[-1] if counted else 0)
        rows = [
            ListingRow((lines[n - 1] if lines and n <= len(lines) else ""),
                       per_line.get((path, n), {}), path, n)
            for n in range(1, count + 1)
        ]
        files.append(SourceFile(path, tuple(_mark_hot(rows, hot_key))))
    return tuple(files), {k: tuple(v) for k, v in of_line.items()}


__all__ = ["FIXED_COLUMNS", "KernelSource", "ListingRow", "SourceColumn", "SourceFile",
           "function_pcs", "launch_entries", "per_pc", "read_kernel_source"]
