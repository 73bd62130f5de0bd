"""The timeline report as Markdown, from its view data: span, GPU busy, kernels, NVTX, gaps,
findings, a busy strip per device."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kernelscope.core.durations import fmt_ns
from kernelscope.core.errors import kernel_filter, safe_text
from kernelscope.core.jsonsafe import json_safe
from kernelscope.core.shares import fmt_pct, fmt_percent
from kernelscope.core.units import EMPTY_CELL, fmt_number
from kernelscope.core.words import api_name, plural
from kernelscope.export.markdown import code, fenced, inline, table
from kernelscope.timeline.analysis.gap_cause_catalog import gap_cause
from kernelscope.timeline.analysis.gap_causes import CpuActivity, GapExplanation
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.export.critical_text import path_markdown
from kernelscope.timeline.export.timeline_json import gpu_rows, kernel_rows, nvtx_rows
from kernelscope.timeline.export.timeline_metrics_md import (
    STRIP_LEVELS,
    graphs_section,
    metric_strip,
    metrics_section,
)
from kernelscope.timeline.model.profilers import (
    KINETO,
    NSYS,
    in_own_words,
    no_ranges_text,
    producer_text,
    ranges_title,
)

STRIP_WINDOWS = 72


def _strip_lines(device: int, pcts: list[float]) -> list[str]:
    """A device's busy strip, with what its lowest block means and its busiest window."""
    busiest = max(pcts, default=0.0)
    return [
        f"Device {device}, busy over time ({len(pcts)} windows, left to right; "
        f"{STRIP_LEVELS[1]} = any work, full block = 100 %; busiest window "
        f"{fmt_pct(busiest, 1, sign=True)}):",
        "",
        fenced("|" + metric_strip(list(pcts), show_any=True) + "|"),
        "",
    ]


def render_timeline_markdown(
    data: TimelineData, *, pattern: str | None = None, top: int | None = None
) -> str:
    """Markdown of a timeline report: its span, GPU busy (with a strip per device), kernels
    (those whose name matches ``pattern``), NVTX ranges, the GPU metrics, the CUDA graphs,
    the largest gaps, the critical path and the findings."""
    top_n = top if top is not None else 20
    lines = [
        *_head_section(data),
        *_findings_glance(data),
        *_gpu_section(data),
        *_kernels_section(data, pattern, top_n),
        *_nvtx_section(data, top_n),
        *metrics_section(data, top_n, STRIP_WINDOWS),
        *graphs_section(data, top_n),
        *_gaps_section(data, top_n),
        *critical_section(data, top_n),
        *_findings_section(data, top_n),
    ]
    return "\n".join(lines).rstrip() + "\n"


def critical_section(data: TimelineData, top_n: int) -> list[str]:
    """What each step waits on: the critical path's breakdown and the families' slack."""
    return ["", "## Critical path", "", *path_markdown(data.critical_path, data.short_name, top_n),
            ""]


def _head_section(data: TimelineData) -> list[str]:
    report = data.report
    return [
        f"# Timeline report: {inline(safe_text(report.path.name))}",
        "",
        f"- Report file: {code(safe_text(report.path))}",
        f"- Span: {fmt_ns(report.duration_ns)}; "
        f"{inline(producer_text(report.profiler, report.nsys_version))}",
        "- Devices: " + (", ".join(f"{d.id}: {inline(d.name)}" for d in report.devices) or "none"),
        "- Processes: "
        + (", ".join(f"{p.pid} {inline(p.name)}" for p in report.processes) or "none"),
        "",
    ]


def _gpu_section(data: TimelineData) -> list[str]:
    """GPU utilisation per device, then each device's busy strip."""
    rows = (
        (g["device"], fmt_ns(g["span_ns"]), fmt_ns(g["busy_ns"]), fmt_percent(g["utilization_pct"]))
        for g in gpu_rows(data)
    )
    headers = ("Device", "Span", "Busy", "Utilisation")
    lines = ["## GPU utilisation", "", table(headers, rows, "lrrr"), ""]
    for device, pcts in sorted(data.utilization_strips(STRIP_WINDOWS).items()):
        lines += _strip_lines(device, pcts)
    return lines


def _kernels_section(data: TimelineData, pattern: str | None, top_n: int) -> list[str]:
    kernels = kernel_rows(data)
    regex = kernel_filter(pattern)
    if regex is not None:
        kernels = [k for k in kernels if regex.search(k["name"])]
    if not kernels:
        return ["## Kernels", "", _no_kernels(data, pattern), ""]
    return ["## Kernels", "", *_kernel_table(kernels, top_n)]


def _nvtx_section(data: TimelineData, top_n: int) -> list[str]:
    """The NVTX operations by total time, the first ``top_n``; how many ranges and distinct
    names they fold (per-call ids removed: ``nvtx.operation``)."""
    nvtx = nvtx_rows(data)
    heading = f"## {ranges_title(data.report.profiler)}"
    if not nvtx:
        empty = (no_ranges_text(KINETO) if data.report.profiler == KINETO
                 else "The report has no NVTX ranges.")
        return [heading, "", empty, ""]
    rows = (
        (n["name"], fmt_number(n["instances"]), fmt_ns(n["total_ns"]),
         fmt_percent(n["gpu_busy_pct"]))
        for n in nvtx[:top_n]
    )
    headers = ("Range", "Instances", "Total", "GPU busy")
    raw = sum(int(n["raw_names"]) for n in nvtx)
    note = [f"Top {top_n} of {len(nvtx):,} range names by total time."] if len(nvtx) > top_n \
        else []
    if raw > len(nvtx):
        note.append(f"{fmt_number(sum(int(n['instances']) for n in nvtx))} ranges of "
                    f"{raw:,} distinct names, folded into one row per operation (per-call "
                    "ids, sizes and addresses removed).")
    return [heading, "", *([" ".join(note), ""] if note else []),
            table(headers, rows, "lrrr"), ""]


def _findings_glance(data: TimelineData) -> list[str]:
    """One line per finding, before the tables (the ``## Findings`` at the end has each one's
    items)."""
    if not data.findings:
        return []
    return ["## Findings at a glance", "",
            *(f"- {f.severity}: {inline(f.title)} ({f.id}"
              + (f", {plural(len(f.rows), 'item')})" if f.rows else ")")
              for f in data.findings), ""]


def _gaps_section(data: TimelineData, top_n: int) -> list[str]:
    """The longest idle gaps with their causes, then what each cause means."""
    gaps = sorted(data.longest_gaps(), key=lambda g: -g.duration_ns)[:top_n]
    if not gaps:
        return ["## Largest GPU idle gaps", "", "No idle gap over the threshold."]
    start_ns = data.report.start_ns
    rows = (
        (g.device, fmt_seconds(g.start_ns - start_ns), fmt_ns(g.duration_ns), _cause_text(g),
         "; ".join(_cpu_text(c, data.report.profiler) for c in g.cpu[:3]) or EMPTY_CELL)
        for g in gaps
    )
    headers = ("Device", "Start (s)", "Duration", "Cause", "CPU activity")
    return ["## Largest GPU idle gaps", "", table(headers, rows, "lrrll"), "",
            *cause_legend((g.cause for g in gaps), data.report.profiler)]


def _findings_section(data: TimelineData, top_n: int) -> list[str]:
    """Each finding's title, severity and its first ``top_n`` items as a table."""
    lines = ["", "## Findings", ""]
    if not data.findings:
        lines.append("No findings.")
    for f in data.findings:
        lines += [f"### {inline(f.title)} ({f.id}, {f.severity})", ""]
        items = json_safe([dict(row) for row in f.rows])
        if items:
            keys = list(items[0].keys())
            lines.append(table(
                [_finding_header(f.columns.get(k, k), k) for k in keys],
                ([_finding_cell(k, item.get(k), data.report.start_ns, data) for k in keys]
                 for item in items[:top_n]),
                "".join("l" if k in TEXT_KEYS else "r" for k in keys),
            ))
            if len(items) > top_n:
                lines += ["", f"Showing {top_n} of {len(items)} items."]
        lines.append("")
    return lines


TIME_KEYS = frozenset({"start_ns", "end_ns"})
"""Finding fields that are instants: shown in seconds from the start of the report."""
TEXT_KEYS = frozenset({"top_kernel", "api_name", "src_kind", "dst_kind", "memory_kind", "name"})


def fmt_seconds(t_rel_ns: float) -> str:
    """An instant in seconds from the start of the report, to 0.1 ms: ``10.0116``."""
    return f"{t_rel_ns / 1e9:,.4f}"


def _finding_header(header: str, key: str) -> str:
    """``Start (ns)`` → ``Start (s)`` (from the start); ``Duration (ns)`` → ``Duration``; a
    field nsys has no header for (``end_ns``) → ``End (s)``."""
    if header == key:
        header = key.removesuffix("_ns").replace("_", " ").capitalize()
        header += " (ns)" if key.endswith("_ns") else ""
    if key in TIME_KEYS:
        return header.replace("(ns)", "(s)") if "(ns)" in header else f"{header} (s)"
    return header.replace(" (ns)", "")


def _finding_cell(key: str, value: Any, origin_ns: int, data: TimelineData) -> str:
    """One cell of a findings table: instants in seconds from the start, durations as
    ``1.01 ms``, percentages with one decimal, kernels by their short names."""
    if value is None:
        return ""
    if key in TIME_KEYS and isinstance(value, (int, float)):
        return fmt_seconds(value - origin_ns)
    if key.endswith("_ns") and isinstance(value, (int, float)):
        return fmt_ns(value)
    if key.endswith("_pct") and isinstance(value, (int, float)):
        return fmt_pct(float(value), 1)
    if key == "bytes" and isinstance(value, (int, float)):
        return f"{value / 1e6:.3f}"  # Bytes (MB), as nsys prints it: 67.109
    if key == "top_kernel":
        return data.short_name(str(value))
    if key == "api_name":
        return api_name(str(value))
    if isinstance(value, float):
        return fmt_number(value)
    return str(value)


def _cause_text(g: GapExplanation) -> str:
    """``alloc: cudaMalloc 176.0 us``, ``unknown: <why>``, with the trace option to add."""
    text = g.cause
    if g.detail or g.reason:
        text += f": {g.detail or g.reason}"
    if g.hint:
        text += f" (profile with {g.hint})"
    return text


def cause_legend(cause_ids: Iterable[str], profiler: str = NSYS) -> list[str]:
    """What each gap cause of ``cause_ids`` means and what to try (``gap_cause_catalog``),
    one bullet per cause in the order they first appear, in ``profiler``'s words; nothing
    for none."""
    causes = [gap_cause(c) for c in dict.fromkeys(cause_ids)]
    if not causes:
        return []
    return ["The causes:", "", *(
        f"- {code(c.id)}: {inline(c.description)} Try: {inline(in_own_words(profiler, c.remedy))}"
        for c in causes
    )]


def _cpu_text(c: CpuActivity, profiler: str) -> str:
    """``nvtx step 3 1.2 ms``; a PyTorch trace's ranges (record_function) are ``range``."""
    extra = f" {fmt_ns(c.overlap_ns)}" if c.overlap_ns else ""
    source = "range" if profiler == KINETO and c.source == "nvtx" else c.source
    return f"{source} {c.name or '?'}{extra}".strip()


def _no_kernels(data: TimelineData, pattern: str | None) -> str:
    if pattern and data.report.kernels.height:
        return f"No kernel name matches {code(pattern)}."
    return "The trace holds no kernel launches."


def _kernel_table(kernels: list[dict[str, Any]], top_n: int) -> list[str]:
    rows = (
        (
            fmt_percent(k["time_pct"]),
            fmt_ns(k["total_ns"]),
            fmt_number(k["instances"]),
            fmt_ns(k["avg_ns"]),
            fmt_ns(k["med_ns"]),
            fmt_ns(k["min_ns"]),
            fmt_ns(k["max_ns"]),
            fmt_ns(k["stddev_ns"]),
            k["short_name"],
        )
        for k in kernels[:top_n]
    )
    headers = ("Time %", "Total", "Instances", "Avg", "Med", "Min", "Max", "StdDev", "Name")
    return [
        f"Top {min(top_n, len(kernels))} of {len(kernels)} kernel names by total time.",
        "",
        table(headers, rows, "rrrrrrrrl"),
        "",
    ]
