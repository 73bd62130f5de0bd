"""``kernelscope summary``: a report's essentials as rich tables, or plain text for pipes."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from kernelscope.core.durations import fmt_duration, fmt_ns
from kernelscope.core.errors import ReportError, safe_text
from kernelscope.core.kernel_identity import process_text
from kernelscope.core.kernel_names import fit_names
from kernelscope.core.severity import most_severe_first
from kernelscope.core.shares import fmt_pct
from kernelscope.core.words import plural
from kernelscope.kinds import OpenOptions, as_paths, kind_for, opened
from kernelscope.kinds.ncu.model.measured import NOT_MEASURED, short_reason
from kernelscope.kinds.ncu.render.families import family_ids, family_label
from kernelscope.render.severity import text_style
from kernelscope.render.table_fit import ColumnFit, fit_columns, fit_words

if TYPE_CHECKING:
    from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport
    from kernelscope.kinds.ncu.analysis.summary_stream import StreamedSummary
    from kernelscope.timeline.analysis.timeline_data import TimelineData

PLAIN_WIDTH = 100_000
"""Plain output (pipes, files, NO_COLOR) is never cut: tables take the width they need."""


def make_console(file: IO[str] | None = None) -> Console:
    """Colour on a terminal, fitted to its width; plain text (no escapes, ASCII rules) for
    pipes and files, never cut, or on a terminal with NO_COLOR."""
    out = file or sys.stdout
    terminal = out.isatty()
    if not terminal:
        return Console(
            file=out,
            color_system=None,
            force_terminal=False,
            width=PLAIN_WIDTH,
            no_color=True,
            highlight=False,
            emoji=False,
        )
    if "NO_COLOR" in os.environ:
        return Console(file=out, color_system=None, no_color=True, highlight=False, emoji=False)
    return Console(file=out, highlight=False)


def table_box(console: Console) -> box.Box:
    """Heavy rules on a terminal, ASCII ones in plain text (pipes, NO_COLOR)."""
    return box.ASCII2 if console.no_color else box.SIMPLE_HEAVY


def _name(path: Path) -> str:
    """The file's name, safe for rich markup and for the terminal."""
    return escape(safe_text(path.name))


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
    from kernelscope.kinds.ncu.export.ncu_markdown import top_flag

    report = analyzed.report
    path = report.path
    chosen = analyzed.select_families()
    if not chosen and analyzed.process:
        raise ReportError(
            f"No kernel of {safe_text(path.name)} ran in process {analyzed.process!r}."
        )
    dev = report.device
    skipped = f" ({analyzed.unmeasured} not measured)" if analyzed.unmeasured else ""
    total = analyzed.total_text_ns
    console.print(
        f"[bold]{_name(path)}[/]: {plural(report.kernel_count, 'kernel')} "
        f"({plural(len(analyzed.families), 'family', 'families')}) on {escape(dev.name)} "
        f"({dev.sm_count} SMs, CC {dev.compute_capability}), summed kernel time "
        f"{fmt_duration(total) if total is not None else NOT_MEASURED}{skipped}"
        + (f", ncu {escape(report.ncu_version)}" if report.ncu_version else "")
    )
    for note in report.notes:
        console.print(escape(note))
    several = len(report.processes) > 1
    if several:
        listed = ", ".join(f"{escape(p.short_name or '?')} ({p.pid})" for p in report.processes)
        console.print(f"{len(report.processes)} processes: {listed}")
    rows: list[dict[str, str]] = []
    styles: list[str] = []
    for f in chosen:
        k = analyzed.kernel(f.representative)
        row = k.summary.row
        measured = k.summary.measured
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
            "flag": top_flag(k.diagnosis) if measured else short_reason(k.summary.unmeasured),
        })
        styles.append(text_style(k.diagnosis.worst_severity))
    columns = [c for c in KERNEL_COLUMNS if several or c.key != "process"]
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
    console.print(t)


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


def print_timeline_summary(data: TimelineData, console: Console) -> None:
    """A timeline's span, GPU busy, top kernels and findings."""
    from kernelscope.timeline.export.timeline_json import gpu_rows, kernel_rows, report_info

    report = data.report
    path = data.path
    info = report_info(report)
    cuda = "" if info.get("cuda_trace", True) else " (no CUDA trace: a CPU-only capture)"
    version = f", nsys {escape(str(info['nsys_version']))}" if info.get("nsys_version") else ""
    console.print(
        f"[bold]{_name(path)}[/]: span {fmt_ns(info['span_ns'])}, "
        f"{plural(info['counts']['kernels'], 'kernel')}{cuda}, "
        f"{plural(len(info['devices']), 'device')}{version}"
    )
    busy = {g["device"]: g for g in gpu_rows(data)}
    for dev in info["devices"]:
        sms = f", {dev['sm_count']} SMs" if dev.get("sm_count") else ""
        g = busy.pop(dev["id"], None)
        what = (
            f"busy {fmt_ns(g['busy_ns'])} of {fmt_ns(g['span_ns'])} "
            f"({fmt_pct(g['utilization_pct'])} %)" if g is not None else "no GPU work"
        )
        console.print(f"GPU {dev['id']} ({escape(str(dev['name']))}{sms}): {what}")
    for g in busy.values():
        console.print(
            f"GPU {g['device']}: busy {fmt_ns(g['busy_ns'])} of "
            f"{fmt_ns(g['span_ns'])} ({fmt_pct(g['utilization_pct'])} %)"
        )
    t = Table(title="Top kernels by time", box=table_box(console), show_edge=False, pad_edge=False)
    for col in ("Time %", "Total", "Instances", "Avg", "Name"):
        t.add_column(col, justify="left" if col == "Name" else "right",
                     no_wrap=col == "Name" and console.is_terminal,
                     overflow="ellipsis" if console.is_terminal else "fold")
    for k in kernel_rows(data)[:10]:
        t.add_row(
            fmt_pct(k["time_pct"]),
            fmt_ns(k["total_ns"]),
            f"{k['instances']:,}",
            fmt_ns(k["avg_ns"]),
            Text(data.short_name(k["name"])),
        )
    console.print(t)
    f = Table(title="Findings", box=table_box(console), show_edge=False, pad_edge=False)
    for col in ("Severity", "Finding", "Items", "Title"):
        f.add_column(col, justify="right" if col == "Items" else "left")
    for item in most_severe_first(data.findings, lambda x: x.severity):
        style = text_style(item.severity)
        f.add_row(
            f"[{style}]{item.severity}[/]", item.id, str(len(item.rows)), escape(item.title)
        )
    if not data.findings:
        f.add_row("", "none", "0", "no problems found")
    console.print(f)


def print_summary(
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    cache_dir: Path | None = None,
    file: IO[str] | None = None,
    subcommand: str | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    process: str | None = None,
) -> None:
    """Print the essentials of the report at ``inputs`` (its kind's ``summary`` part; of a
    kernel report, only the kernels of ``process``, an id or a name, when given); raises
    ReportError on bad input."""
    paths = as_paths(inputs)
    kind = kind_for(paths, subcommand)
    console = make_console(file)
    options = OpenOptions(cache_dir=cache_dir, process=process, workers=workers,
                          scheduler=scheduler)
    with opened(kind, paths, options) as model, console.capture() as captured:
        # held back until it is whole: a report found damaged halfway prints nothing on stdout
        kind.part("summary")(kind.part("analyse")(model, options), console)
    console.file.write(captured.get())
    console.file.flush()
