"""The kernel list's columns, and the one place where extra columns are registered.

A column is a ``ColumnProvider``: a title and a function of a ``KernelSummary`` returning a
string or a number (None when unknown). The list shows ``BASE_COLUMNS``, the diagnosis's
columns (``diagnosis_columns``: each kernel's diagnosis as the report's analysis holds it),
then ``EXTRA_COLUMNS``; to add one (e.g. a metric's share of peak), append it here::

    EXTRA_COLUMNS.append(
        ColumnProvider("L2 hit", lambda s: s.metrics[L2_HIT].value, metrics=(L2_HIT,))
    )

``metrics`` names ncu metrics the function reads from ``KernelSummary.metrics`` beyond the key
metrics; the kernel session asks ``open_ncu_report(extra_metrics=...)`` for all of them (asking
for any also makes the summaries carry NCU's rule results in ``KernelSummary.rules``).
Numbers sort numerically and are right-aligned; None sorts last either way.

Columns have a ``priority``: 0 is always shown (ID, name, duration, share, bottleneck, top
flag), higher numbers fill what is left of the terminal's width in that order
(``render.table_fit``); ``minimum`` says how narrow a column whose text can be cut may get.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from kernelscope.core.durations import fmt_duration
from kernelscope.core.kernel_identity import process_text
from kernelscope.core.shares import fmt_pct
from kernelscope.core.units import NOT_AVAILABLE, fmt_number
from kernelscope.kinds.ncu.analysis.diagnosis import REQUIRED_METRICS
from kernelscope.kinds.ncu.model import KernelSummary

if TYPE_CHECKING:
    from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis

CellValue = str | int | float | None
ALWAYS = 0
OPTIONAL = 5
SCORES_KEPT = 256
"""The flags column keeps the texts of this many different scores at most."""


@dataclass(frozen=True)
class ColumnProvider:
    """A kernel-list column: ``value`` gives the cell's value (sorted on), ``text`` its text."""

    title: str
    value: Callable[[KernelSummary], CellValue]
    key: str = ""
    text: Callable[[CellValue], str] | None = None
    tooltip: str = ""
    metrics: tuple[str, ...] = field(default=())
    sort: Callable[[KernelSummary], CellValue] | None = None
    """What the column sorts on, when not its value (e.g. the grid's size, not its text)."""
    search: Callable[[KernelSummary], str] | None = None
    """Text the list's regex filter also matches (besides the kernel's names), if any."""
    priority: int = OPTIONAL
    """0: always shown; otherwise the lower, the sooner it gets a place on a narrow screen."""
    minimum: int | None = None
    """The width the column's text may be cut to (None: never cut)."""
    compact: Callable[[str], str] | None = None
    """A shorter spelling of a cell's text used when the column is narrower than its widest
    text (e.g. ``l2-bound`` → ``l2`` under the header Bottleneck); its widest value is the
    column's minimum width."""

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", re.sub(r"\W+", "_", self.title.lower()).strip("_"))

    def cell_value(self, summary: KernelSummary) -> CellValue:
        """The value for ``summary``; a provider that fails shows as unknown, not a crash."""
        try:
            return self.value(summary)
        except Exception:  # a third-party column must not take the list down
            return None

    def sort_value(self, summary: KernelSummary) -> CellValue:
        if self.sort is None:
            return self.cell_value(summary)
        try:
            return self.sort(summary)
        except Exception:  # see cell_value
            return None

    def search_text(self, summary: KernelSummary) -> str:
        """What the filter matches in this column ("" when the column is not searchable)."""
        if self.search is None:
            return ""
        try:
            return self.search(summary)
        except Exception:  # see cell_value
            return ""

    def cell_text(self, value: CellValue) -> str:
        if self.text is not None and value is not None:
            return self.text(value)
        if value is None:
            return NOT_AVAILABLE
        if isinstance(value, str):
            return value
        return fmt_number(value)


def _row(key: str) -> Callable[[KernelSummary], CellValue]:
    def get(summary: KernelSummary) -> CellValue:
        value = summary.row.get(key)
        return value if isinstance(value, (str, int, float)) else None

    return get


def _pct(value: CellValue) -> str:
    return fmt_pct(value) if isinstance(value, (int, float)) else NOT_AVAILABLE


def _pct_column(title: str, key: str, priority: int, tooltip: str) -> ColumnProvider:
    """A column of a percentage of the row, shown as ``61.1 %``."""
    return ColumnProvider(title, _row(key), key=key, text=_pct, priority=priority,
                          tooltip=tooltip)


def _duration(value: CellValue) -> str:
    return fmt_duration(value) if isinstance(value, (int, float)) else NOT_AVAILABLE


NAME_KEY = "name"
"""The name column's key: the list shows the report's short names, fitted to its width."""
SHARE_KEY = "share"
TOP_FLAG_KEY = "top_flag"

BASE_COLUMNS: tuple[ColumnProvider, ...] = (
    ColumnProvider(
        "ID", _row("id"), key="id", text=str, tooltip="The kernel's ID, as ncu numbers it.",
        priority=ALWAYS,
    ),
    ColumnProvider(
        "Kernel", _row("demangled"), key=NAME_KEY, priority=ALWAYS, minimum=16,
        tooltip="The kernel's short name (the whole demangled name is shown below the list).",
    ),
    ColumnProvider(
        "Duration", _row("duration_ns"), key="duration", text=_duration,
        tooltip="gpu__time_duration.sum", priority=ALWAYS,
    ),
    ColumnProvider(
        "Grid", _row("grid"), key="grid", sort=_row("grid_size"), priority=7,
        tooltip="launch__grid_dim_{x,y,z} (sorts by the number of blocks)",
    ),
    ColumnProvider(
        "Block", _row("block"), key="block", sort=_row("block_size"), priority=8,
        tooltip="launch__block_dim_{x,y,z} (sorts by threads per block)",
    ),
    ColumnProvider(
        "Regs", _row("registers"), key="registers", tooltip="launch__registers_per_thread",
        priority=6,
    ),
    _pct_column("SM %", "sm_pct", 3, "Compute (SM) throughput, % of peak"),
    _pct_column("Mem %", "mem_pct", 4, "Memory throughput, % of peak"),
    _pct_column("DRAM %", "dram_pct", 2, "DRAM throughput, % of peak"),
    _pct_column("Occ %", "occupancy_pct", 1, "Achieved occupancy, % of the SM's warp slots"),
)

def _process(summary: KernelSummary) -> CellValue:
    return process_text(summary.identity) if summary.identity.pid is not None else None


PROCESS_COLUMN = ColumnProvider(
    "Process", _process, key="process", sort=_row("pid"), search=lambda s: str(_process(s) or ""),
    tooltip="The process that ran the kernel (ncu --target-processes all); / filters on it.",
)
"""Shown after the ID when the report holds kernels of several processes."""


def with_process_column(columns: Sequence[ColumnProvider]) -> tuple[ColumnProvider, ...]:
    """``columns`` with the process column after the first (the ID)."""
    return (*columns[:1], PROCESS_COLUMN, *columns[1:])


def diagnosis_columns(
    diagnosis: Callable[[KernelSummary], Diagnosis | None],
) -> tuple[ColumnProvider, ...]:
    """The diagnosis's columns, each reading a kernel's diagnosis from ``diagnosis`` (the
    report's analysis holds it: ``ReportAnalysis.diagnosis``; None, shown n/a, while it is
    still being made)."""

    imported: list[ModuleType] = []
    """The flags' cells' module, imported with the first diagnosis (the list's first rows
    come before the diagnosis's modules), once: each kernel reads three cells of it."""

    def of(read: Callable[[Any, Diagnosis], Any], pending: Any = None
           ) -> Callable[[KernelSummary], Any]:
        """A cell of the kernel's diagnosis, ``read(flag_cells, diagnosis)``, or ``pending``
        while the diagnosis is being made."""
        def cell(summary: KernelSummary) -> Any:
            made = diagnosis(summary)
            if made is None:
                return pending
            if not imported:
                from kernelscope.kinds.ncu.render import flag_cells

                imported.append(flag_cells)
            return read(imported[0], made)

        return cell

    score_texts: dict[CellValue, str] = {}
    """The flags' texts by score (a report's kernels have few different counts of flags)."""

    def score_text(score: CellValue) -> str:
        text = score_texts.get(score)
        if text is None:
            from kernelscope.kinds.ncu.render.flag_cells import flag_score_text

            text = flag_score_text(score)
            if len(score_texts) < SCORES_KEPT:
                score_texts[score] = text
        return text

    return (
        ColumnProvider(
            "Bottleneck", of(lambda _, d: d.label), key="bottleneck",
            metrics=REQUIRED_METRICS, tooltip="Primary bottleneck (see docs/diagnosis.md).",
            search=of(lambda _, d: d.label, ""), priority=ALWAYS,
        ),
        ColumnProvider(
            "Top flag", of(lambda cells, d: cells.top_flag_cell(d)), key=TOP_FLAG_KEY,
            sort=of(lambda cells, d: cells.top_flag_rank(d)), metrics=REQUIRED_METRICS,
            tooltip="The most severe flag of the diagnosis (✖ critical, ⚠ warning, ℹ info); "
            "sorts most severe first.",
            priority=ALWAYS, minimum=12,
        ),
        ColumnProvider(
            "Flags", of(lambda cells, d: cells.flag_score(d)), key="flags",
            text=score_text, metrics=REQUIRED_METRICS, priority=5,
            tooltip="Critical (✖) and warning (⚠) flags of the diagnosis; sorts critical first.",
            search=of(lambda _, d: " ".join(f.id for f in d.flags), ""),
        ),
    )


EXTRA_COLUMNS: list[ColumnProvider] = []
"""Columns shown after the diagnosis's. Register new columns here (see the module
docstring)."""


BASELINE_KEY = "baseline_change"


def baseline_column(baseline_id: int, baseline_ns: float | None) -> ColumnProvider:
    """The duration's change against the baseline kernel, in % (negative: faster); sorting
    on it puts the biggest gains first. (The changes' modules are imported here, when a
    baseline is marked, not before the list's first rows.)"""
    from kernelscope.kinds.ncu.analysis.metric_changes import change_pct
    from kernelscope.kinds.ncu.render.changes import fmt_change

    def value(summary: KernelSummary) -> CellValue:
        duration = summary.duration_ns
        return change_pct(baseline_ns, duration) if duration is not None else None

    return ColumnProvider(
        "Δ base", value, key=BASELINE_KEY, text=lambda v: fmt_change(float(v)),  # type: ignore[arg-type]
        tooltip=f"Duration's change against the baseline, kernel {baseline_id} (b marks it).",
        priority=ALWAYS,
    )


def share_column(share: Callable[[KernelSummary], float | None]) -> ColumnProvider:
    """The kernel's share of the report's summed kernel time (``share`` gives it, 0–1, or
    None while the report is still loading)."""
    return ColumnProvider(
        "Share %", lambda s: _percent(share(s)), key=SHARE_KEY, text=_pct, priority=ALWAYS,
        tooltip="Share of the summed duration of every kernel in the report (shown once "
        "every kernel is loaded).",
    )


def _percent(fraction: float | None) -> float | None:
    return None if fraction is None else 100.0 * fraction


def list_columns(
    extra: Sequence[ColumnProvider] | None = None,
    share: Callable[[KernelSummary], float | None] | None = None,
    diagnosis: Callable[[KernelSummary], Diagnosis | None] | None = None,
) -> tuple[ColumnProvider, ...]:
    """The kernel list's columns: the base ones (with the time share after the duration when
    ``share`` is given), then ``extra`` (default: the diagnosis's columns when ``diagnosis``
    is given, then ``EXTRA_COLUMNS``)."""
    base = list(BASE_COLUMNS)
    if share is not None:
        base.insert(3, share_column(share))
    if extra is None:
        shown = diagnosis_columns(diagnosis) if diagnosis is not None else ()
        extra = (*shown, *EXTRA_COLUMNS)
    return (*base, *extra)


def required_metrics(columns: Iterable[ColumnProvider]) -> tuple[str, ...]:
    """The extra ncu metrics the columns need, without duplicates."""
    return tuple(dict.fromkeys(name for column in columns for name in column.metrics))
