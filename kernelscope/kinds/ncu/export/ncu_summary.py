"""``kernelscope summary`` of a kernel report: its kernel families ranked by total time, with
their shares, key metrics and the verdict of their median launch, as a rich table fitted to
the terminal (every column, never cut, when piped)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from kernelscope.core.durations import fmt_duration
from kernelscope.core.errors import ReportError, safe_text
from kernelscope.core.kernel_identity import process_text
from kernelscope.core.kernel_names import fit_names
from kernelscope.core.shares import fmt_pct
from kernelscope.core.words import plural
from kernelscope.export.summary import file_name, table_box
from kernelscope.kinds.ncu.model.measured import NOT_MEASURED
from kernelscope.kinds.ncu.render.families import family_ids, family_label
from kernelscope.kinds.ncu.render.flag_cells import flag_cell
from kernelscope.render.severity import text_style
from kernelscope.render.table_fit import ColumnFit, fit_columns, fit_words

if TYPE_CHECKING:
    from kernelscope.kinds.ncu.analysis.families import KernelFamily
    from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport
    from kernelscope.kinds.ncu.analysis.summary_stream import StreamedSummary


@dataclass(frozen=True)
class SummaryColumn:
    """A column of ``summary``'s kernel table: how it fits a terminal (``render.table_fit``)."""

    key: str
    title: str
    justify: str = "right"
    priority: int = 0
    minimum: int | None = None
    compact: Callable[[str], str] | None = None


KERNEL_COLUMNS = (
    SummaryColumn("ids", "IDs", "left", minimum=6),
    SummaryColumn("process", "Process", "left", priority=1),
    SummaryColumn("name", "Kernel", "left", minimum=16),
    SummaryColumn("launches", "Launches", priority=2),
    SummaryColumn("total", "Total"),
    SummaryColumn("share", "Share %"),
    SummaryColumn("sm", "SM %", priority=5),
    SummaryColumn("mem", "Mem %", priority=6),
    SummaryColumn("dram", "DRAM %", priority=4),
    SummaryColumn("occ", "Occ %", priority=3),
    SummaryColumn("bottleneck", "Bottleneck", "left",
                  compact=lambda text: text.replace("-bound", "")),
    SummaryColumn("flag", "Top flag", "left", minimum=12,
                  compact=lambda text: text.partition(" (")[0]),  # the colour tells severity
)
COLUMN_GAP = 3
"""What the table puts between two columns (a space, a rule, a space)."""


def print_kernels_summary(
    analyzed: AnalyzedReport | StreamedSummary, console: Console
) -> None:
    """A kernel report's kernel families ranked by total time, with their shares, the key
    metrics and the diagnosis of their median launch (only the families with a launch in
    ``analyzed.process`` when it is set). On a terminal the columns that matter most always
    show and the others fill what is left of its width; piped or written to a file, every
    column and every whole short name is printed."""
    report = analyzed.report
    chosen = analyzed.select_families()
    if not chosen and analyzed.process:
        raise ReportError(
            f"No kernel of {safe_text(report.path.name)} ran in process {analyzed.process!r}."
        )
    _print_heading(analyzed, console)
    several = len(report.processes) > 1
    rows, styles = family_rows(analyzed, chosen)
    columns = [c for c in KERNEL_COLUMNS if several or c.key != "process"]
    console.print(_kernel_table(columns, rows, styles, console))


def _print_heading(analyzed: AnalyzedReport | StreamedSummary, console: Console) -> None:
    """The report's line (kernels, families, device, summed time, ncu version), its notes and
    its processes when there are several."""
    report = analyzed.report
    dev = report.device
    skipped = f" ({analyzed.unmeasured} not measured)" if analyzed.unmeasured else ""
    total = analyzed.total_text_ns
    console.print(
        f"[bold]{file_name(report.path)}[/]: {plural(report.kernel_count, 'kernel')} "
        f"({plural(len(analyzed.families), 'family', 'families')}) on {escape(dev.name)} "
        f"({dev.sm_count} SMs, CC {dev.compute_capability}), summed kernel time "
        f"{fmt_duration(total) if total is not None else NOT_MEASURED}{skipped}"
        + (f", ncu {escape(report.ncu_version)}" if report.ncu_version else "")
    )
    for note in report.notes:
        console.print(escape(note))
    if len(report.processes) > 1:
        listed = ", ".join(f"{escape(p.short_name or '?')} ({p.pid})" for p in report.processes)
        console.print(f"{len(report.processes)} processes: {listed}")


def family_rows(
    analyzed: AnalyzedReport | StreamedSummary, chosen: list[KernelFamily]
) -> tuple[list[dict[str, str]], list[str]]:
    """Each chosen family's cells (by column key) and the style of its top flag."""
    rows: list[dict[str, str]] = []
    styles: list[str] = []
    for f in chosen:
        k = analyzed.kernel(f.representative)
        row = k.summary.row
        rows.append({
            "ids": family_ids(f),
            "process": process_text(k.summary.identity),
            "name": f.label(analyzed.names[f.demangled]),
            "launches": f"{f.count:,}",
            "total": fmt_duration(f.total_duration_ns) if f.measured else NOT_MEASURED,
            "share": fmt_pct(f.time_share * 100 if f.time_share is not None else None),
            "sm": fmt_pct(row["sm_pct"]),
            "mem": fmt_pct(row["mem_pct"]),
            "dram": fmt_pct(row["dram_pct"]),
            "occ": fmt_pct(row["occupancy_pct"]),
            "bottleneck": family_label(analyzed.family_labels(f), k.diagnosis.label),
            "flag": flag_cell(k),
        })
        styles.append(text_style(k.diagnosis.worst_severity))
    return rows, styles


def _kernel_table(columns: list[SummaryColumn], rows: list[dict[str, str]], styles: list[str],
                  console: Console) -> Table:
    """The families' table, with the columns and widths that fit the console."""
    widths = _fit(columns, rows, console)
    t = Table(
        title="Kernel families by total time (SOL, occupancy, verdict: the median launch)",
        box=table_box(console),
        show_edge=False,
        pad_edge=False,
    )
    shown = [c for c in columns if widths is None or c.key in widths]
    for column in shown:
        t.add_column(column.title, justify=column.justify, no_wrap=True)  # type: ignore[arg-type]
    names = fit_names((r["name"] for r in rows), widths["name"]) if widths else {}
    for row, style in zip(rows, styles, strict=True):
        cells = []
        for column in shown:
            text = row[column.key]
            width = widths.get(column.key) if widths else None
            if column.key == "name":
                text = names.get(text, text)
            elif width is not None and len(text) > width:
                text = column.compact(text) if column.compact is not None else text
                text = fit_words(text, width)
            cells.append(Text(text, style=style if column.key == "flag" else ""))
        t.add_row(*cells)
    return t


def _fit(
    columns: list[SummaryColumn], rows: list[dict[str, str]], console: Console
) -> dict[str, int] | None:
    """The columns and widths that fit the terminal; None when printing to a pipe or file
    (nothing is cut there)."""
    if not console.is_terminal:
        return None
    fits = []
    for column in columns:
        natural = max([len(column.title), *(len(r[column.key]) for r in rows)])
        minimum = column.minimum
        if column.compact is not None and minimum is None:  # cut to its compact form only
            minimum = max([len(column.title),
                           *(len(column.compact(r[column.key])) for r in rows)])
        fits.append(ColumnFit(column.key, natural, minimum=minimum, priority=column.priority,
                              grows=column.key == "name"))
    return fit_columns(fits, console.width + COLUMN_GAP, gap=COLUMN_GAP)
