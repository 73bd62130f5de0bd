"""Read one kernel's list-pass summary from a decoded result (no polars)."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, overload

from kernelscope.core.errors import ReportError
from kernelscope.core.kernel_identity import KernelIdentity
from kernelscope.core.memo import Memo
from kernelscope.kinds.ncu.model.container import GRAPH, RANGE, ProcessInfo, ResultInfo
from kernelscope.kinds.ncu.model.file_format.result import Result
from kernelscope.kinds.ncu.model.measured import unmeasured_reason
from kernelscope.kinds.ncu.model.metrics import Metric, finite, read_metrics
from kernelscope.kinds.ncu.model.model import (
    SIZE_METRICS,
    KernelDetail,
    KernelSummary,
    RuleResult,
    launch_dims,
)
from kernelscope.kinds.ncu.model.panes import DIM_METRICS, KEY_METRICS
from kernelscope.kinds.ncu.model.result_index import ResultIndex
from kernelscope.kinds.ncu.model.rule_results import RuleResults

Origin = tuple[int | None, str]
"""The (process id, process name) a kernel came from; (None, "") when the report says not."""
NO_ORIGIN: Origin = (None, "")
RANGE_PREFIX = "range"

ROW_METRICS: tuple[str, ...] = (
    *(m for _, m in KEY_METRICS),
    *DIM_METRICS,
    *SIZE_METRICS,
    "launch__context_id",
    "launch__stream_id",
)

_LITERAL_CAST = re.compile(
    r"\((?:bool|(?:(?:un)?signed )?(?:char|short|int|long|long long)|unsigned)\)(-?\d+)"
)


@functools.lru_cache(maxsize=4096)
def cli_demangled(name: str) -> str:
    """The demangled name as the ncu CLI prints it: ``f<(int)32>`` becomes ``f<32>``
    (remembered: a report's launches repeat a few names)."""
    return _LITERAL_CAST.sub(r"\1", name)


def origins_of(results: Sequence[ResultInfo]) -> list[Origin]:
    """Each result's (process id, process name), from the block it is stored in: one tuple
    per process, shared by its results (a report may hold 100,000 launches); read from the
    walk's index without making each result's item."""
    processes = (results.processes() if isinstance(results, ResultIndex)
                 else [r.process for r in results])
    by_process: dict[ProcessInfo, Origin] = {}
    found = []
    for process in processes:
        origin = by_process.get(process)
        if origin is None:
            origin = by_process[process] = (process.pid, process.short_name)
        found.append(origin)
    return found


def _domain_names(state: Any) -> dict[int, str]:
    names = {int(d.id): d.name for d in state.domains}
    names.setdefault(int(state.default_domain), "")
    return names


def nvtx_ranges(result: Result) -> list[tuple[str, list[str]]]:
    """The NVTX ranges open around a result, per domain in the report's order: the
    launching thread's push/pop stack (outermost first), then the start/end ranges."""
    state = result.nvtx()
    if state is None:
        return []
    names = _domain_names(state)
    tid = int(getattr(result.lean, "thread_id", 0))
    threads = [t for t in state.threads if int(t.tid) == tid] or list(state.threads)[:1]
    ranges: dict[int, list[str]] = {}
    for thread in threads:
        for domain in thread.push_pop_domains:
            ranges.setdefault(int(domain.id), []).extend(r.name for r in domain.stack)
    for domain in state.start_end_domains:
        ranges.setdefault(int(domain.id), []).extend(r.name for r in domain.ranges)
    return [(names.get(i, ""), found) for i, found in ranges.items() if found]


def _innermost_nvtx(result: Result) -> str | None:
    """The innermost NVTX range open around ``result`` (push/pop first, then start/end),
    as ``domain@range`` outside the default domain; None without NVTX."""
    found = None
    for dom, names in nvtx_ranges(result):
        found = names[-1] if dom in ("", "<default domain>") else f"{dom}@{names[-1]}"
    return found


def range_name(result: Result, ordinal: int) -> str:
    """The name a range-replay result is listed under, ``range<NAME>``: NAME is its NVTX
    range (``--replay-mode app-range --nvtx``), else the cudaProfilerStart/Stop range it is
    (``ordinal`` counts ranges from 1). The brackets keep a name with spaces whole where
    lists shorten names."""
    nvtx = _innermost_nvtx(result)
    if nvtx:
        return f"{RANGE_PREFIX}<{nvtx}>"
    return f"{RANGE_PREFIX}<cudaProfilerStart/Stop {ordinal}>"


def action_names(result: Result, kernel_id: int = 0) -> tuple[str, str, str]:
    """(function name, demangled name as the CLI prints it, mangled name). A range-replay
    result is named after its range (see :func:`range_name`), a graph ``graph<N>``."""
    if result.kind == RANGE:
        name = range_name(result, kernel_id + 1)
        return name, name, name
    if result.kind == GRAPH:
        name = f"graph<{kernel_id}>"
        return name, name, name
    name, demangled, mangled = result.names()
    if not name:
        raise ReportError(f"Kernel {kernel_id} of the report cannot be read: it is damaged.")
    return name, cli_demangled(demangled), mangled


def _int_or_none(m: Metric | None) -> int | None:
    if m is None:
        return None
    value = m.value
    if type(value) is int:  # an id: finite's float of it, as an int
        return int(float(value))
    number = finite(value)
    return int(number) if number is not None else None


def identity_of(
    kernel_id: int,
    handle: tuple[int, int],
    names: tuple[str, str, str],
    metrics: Mapping[str, Metric],
    origin: Origin = NO_ORIGIN,
) -> KernelIdentity:
    """The kernel's typed identity: names, launch shape, report handle and process."""
    grid, block = launch_dims(metrics)
    return KernelIdentity(kernel_id, names[0], names[1], names[2], grid, block, handle[0],
                          handle[1], origin[0], origin[1])


_new = object.__new__
_isfinite = math.isfinite


def make_row(identity: KernelIdentity, metrics: Mapping[str, Metric]) -> dict[str, Any]:
    """The kernel list's row (one line of the key frame and the CSV export): names, launch
    shape, key metrics (None where NCU stored NaN) and the process the kernel came from."""
    grid_text, block_text, grid_size, block_size = shape_columns(identity)
    row: dict[str, Any] = {
        "id": identity.id,
        "name": identity.function,
        "demangled": identity.demangled,
        "grid": grid_text,
        "block": block_text,
        "grid_size": grid_size,
        "block_size": block_size,
    }
    get = metrics.get
    for col, metric in KEY_METRICS:  # finite(m.value), a float's case read here
        m = get(metric)
        if m is None:
            row[col] = None
        elif type(value := m.value) is float:
            row[col] = value if _isfinite(value) else None
        elif type(value) is int:  # a count (registers): finite's case read here too
            row[col] = float(value)
        else:
            row[col] = finite(value)
    row["context"] = _int_or_none(get("launch__context_id"))
    row["stream"] = _int_or_none(get("launch__stream_id"))
    row["range_idx"], row["action_idx"] = identity.range_idx, identity.action_idx
    row["pid"], row["process"] = identity.pid, identity.process
    return row


def shape_columns(identity: KernelIdentity) -> tuple[str, str, int, int]:
    """The row's grid, block and their sizes (``identity.grid_text``, ``block_text``,
    ``grid_size`` and ``block_size``), worked out once for each pair of grid and
    block tuples (launches of one shape share them: ``launch_dims``); each kept with the
    tuples it was worked out for, so that their ids stay theirs."""
    grid, block = identity.grid, identity.block
    key = (id(grid), id(block))
    found = _SHAPE_COLUMNS.get(key)
    if found is None:
        found = _SHAPE_COLUMNS.keep(key, (grid, block, (
            identity.grid_text, identity.block_text, identity.grid_size, identity.block_size)))
    return found[2]


_SHAPE_COLUMNS: Memo[tuple[int, int], tuple[Any, Any, tuple[str, str, int, int]]] = Memo(1024)


def read_summary(
    action: Result,
    kernel_id: int,
    handle: tuple[int, int],
    metric_names: Sequence[str],
    with_rules: bool,
    origin: Origin = NO_ORIGIN,
) -> KernelSummary:
    """One kernel's summary: its row, the named metrics, NCU's rules (read when first asked
    for: ``RuleResults``) and collected sections."""
    if action is None:
        raise ReportError(f"Kernel {kernel_id} of the report cannot be read: it is damaged.")
    names = action_names(action, kernel_id)
    metrics = read_metrics(action, tuple(metric_names))
    sections = action.section_ids()
    has_rules = with_rules and len(action.encoded_rule_results()) > 0
    rules: Sequence[RuleResult] = RuleResults(action) if has_rules else ()
    identity = identity_of(kernel_id, handle, names, metrics, origin)
    return KernelSummary(
        identity=identity,
        row=make_row(identity, metrics),
        metrics=metrics,
        rules=rules,
        sections=sections,
        unmeasured=unmeasured_reason(metrics),
        nvtx=None if names[0].startswith(RANGE_PREFIX + "<") else _innermost_nvtx(action),
    )


def summary_from_detail(detail: KernelDetail, *, metrics: bool = True) -> KernelSummary:
    """The list's summary of a kernel whose detail was read (the detail holds every metric
    the row needs). ``metrics=False`` leaves out the metrics and rules, for passes that only
    send the row back (Markdown records rendered in the workers)."""
    identity = detail.identity
    return KernelSummary(
        identity=identity,
        row=make_row(identity, detail.metrics),
        metrics=detail.metrics if metrics else {},
        rules=detail.rules if metrics else (),
        sections=frozenset(detail.sections),
        unmeasured=detail.unmeasured,
    )


@overload
def paired(read: list[Any], analyse: Callable[[Any], Any] | None, cancelled: None = None,
           slim: bool = False) -> list[Any]: ...
@overload
def paired(read: list[Any], analyse: Callable[[Any], Any] | None,
           cancelled: Callable[[], bool] | None, slim: bool = False) -> list[Any] | None: ...
def paired(read: list[Any], analyse: Callable[[Any], Any] | None,
           cancelled: Callable[[], bool] | None = None, slim: bool = False) -> list[Any] | None:
    """A batch as it was read, or with ``analyse``, each item with its analysis:
    ``(item, analyse(item))``, the item a detail's metric-free list summary where ``slim``.
    A batch is read, then analysed, not each item in turn: the same work in a quarter less
    time, the reader's and then the analysis' code and data warm in the CPU's caches. None
    when ``cancelled`` says so meanwhile."""
    if analyse is None:
        return read
    out = []
    for item in read:
        if cancelled is not None and cancelled():
            return None
        out.append((summary_from_detail(item, metrics=False) if slim else item, analyse(item)))
    return out
