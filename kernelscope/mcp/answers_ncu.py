"""The answers about one kernel report: its families (``summary``), one kernel's diagnosis
(``kernel``), its raw metrics (``metrics``) and the Markdown case records (resources).

Each answer is built by the JSON and Markdown exports' own functions
(``kinds/ncu/export/ncu_json.py``, ``kinds/ncu/export/ncu_markdown.py``), trimmed to what the
question needs. These run in the worker process (``worker.py``), which exits after one answer.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kernelscope.core.errors import ReportError, kernel_filter, safe_text
from kernelscope.kinds.ncu.analysis.kernel_analysis import (
    AnalyzedReport,
    analyze,
    open_for_analysis,
)
from kernelscope.kinds.ncu.export.ncu_json import (
    SCHEMA,
    entry_rest,
    kernel_dict,
    metrics_dict,
    report_dict,
)
from kernelscope.kinds.ncu.model import NcuReport
from kernelscope.mcp.paging import page

Progress = Callable[[float, float | None, str], None]
"""(done, total or None, what is being done): reported to the agent as MCP progress."""

HOT_LINES = 10
"""Source lines (and SASS instructions) a kernel's answer lists, the hottest first."""
FAMILY_IDS = 64
"""A family's launch IDs listed in a summary; ``ids_total`` says how many there are."""


@contextmanager
def opened_report(path: Path, progress: Progress) -> Iterator[NcuReport]:
    progress(0, None, f"opening {safe_text(path.name)}")
    report = open_for_analysis(path)
    try:
        yield report
    finally:
        report.close()


def analysed(report: NcuReport, progress: Progress) -> AnalyzedReport:
    """Every kernel of ``report`` diagnosed from the list pass, with families and shares."""
    reported = [-1]

    def step(done: int, total: int) -> None:  # every twentieth of the way, and at its end
        if done == total or done - reported[0] >= total / 20:
            reported[0] = done
            progress(done, total, f"reading kernel {done:,} of {total:,}")

    return analyze(report, step)


def check_kernel(analyzed_report: AnalyzedReport, kernel_id: int) -> None:
    count = len(analyzed_report.kernels)
    if not 0 <= kernel_id < count:
        raise ReportError(
            f"{safe_text(analyzed_report.report.path.name)} has no kernel {kernel_id} "
            f"(its IDs are 0 to {count - 1})." if count else
            f"{safe_text(analyzed_report.report.path.name)} holds no kernel."
        )


def family_entry(analyzed_report: AnalyzedReport, index: int) -> dict[str, Any]:
    """A family as the JSON export lists it, with its median launch's verdict and top flag
    (what ``kernelscope summary`` shows) and at most ``FAMILY_IDS`` launch IDs."""
    from kernelscope.kinds.ncu.export.ncu_markdown import top_flag

    family = analyzed_report.families.families[index]
    entry = family.to_dict()
    if len(entry["ids"]) > FAMILY_IDS:
        entry["ids"] = entry["ids"][:FAMILY_IDS]
        entry["ids_total"] = family.count
    median = analyzed_report.kernel(family.representative)
    entry["short_name"] = analyzed_report.short_name(median)
    entry["bottleneck"] = median.diagnosis.label
    entry["top_flag"] = top_flag(median.diagnosis)
    return entry


def ncu_summary(path: Path, start: int, question: str, progress: Progress,
                process: str | None = None) -> dict[str, Any]:
    """The report (without the device's attribute table) and its families, largest first,
    a page at a time; with ``process`` (an id or a name, as ``summary --process``) only the
    families with a launch in it."""
    with opened_report(path, progress) as report:
        analyzed_report = analysed(report, progress)
        chosen = analyzed_report.select_families(process=process)
        if process and not chosen:
            raise ReportError(f"No kernel of {safe_text(path.name)} ran in process "
                              f"{process!r}.")
        head = report_dict(analyzed_report)
        head["device"] = {k: v for k, v in head["device"].items() if k != "attributes"}
        entries = [family_entry(analyzed_report, f.index) for f in chosen]
    families, paging = page(entries, start, question)
    return {"schema": SCHEMA, "report": head, "families": families, "page": paging}


def pane_metrics(panes: list[str]) -> set[str] | None:
    """The metric names the ``panes`` show (None: every pane is asked for by ``all``)."""
    from kernelscope.kinds.ncu.model.panes import PANES

    known = {p.id: p for p in PANES}
    unknown = [p for p in panes if p not in known and p != "all"]
    if unknown:
        raise ReportError(
            f"No pane is called {', '.join(map(repr, unknown))}; the panes are "
            f"{', '.join(known)} (or all)."
        )
    if "all" in panes:
        return None
    return {name for p in panes for name in (*known[p].metrics, *known[p].section_metrics)}


def hot_lines(detail: Any) -> dict[str, Any] | None:
    """The hottest source lines and SASS instructions (None without the source section)."""
    if detail.source is None:
        return None
    hot = dataclasses.asdict(detail.source)
    hot["lines"] = hot["lines"][:HOT_LINES]
    hot["sass"] = hot["sass"][:HOT_LINES]
    return hot


def kernel_answer(path: Path, kernel_id: int, panes: list[str], source: bool,
                  progress: Progress) -> dict[str, Any]:
    """One kernel's entry of the JSON export (its diagnosis read from its full detail and
    weighed by its family's share), with only the ``panes``' metrics; ``source`` adds the
    hot lines."""
    wanted = pane_metrics(panes)
    with opened_report(path, progress) as report:
        analyzed_report = analysed(report, progress)
        check_kernel(analyzed_report, kernel_id)
        progress(1, 2, f"diagnosing kernel {kernel_id}")
        detail, diagnosis = next(analyzed_report.iter_detail_diagnoses([kernel_id]))
        entry = {**kernel_dict(detail),
                 **entry_rest(analyzed_report, analyzed_report.kernel(kernel_id), diagnosis)}
        if source:
            if detail.source is None and detail.has_section("SourceCounters"):
                detail.source = report.source_hotspots(kernel_id)
            entry["source"] = hot_lines(detail)
        shown = report_dict(analyzed_report)["path"]
    entry["metrics"] = {name: m for name, m in entry["metrics"].items()
                        if wanted is None or name in wanted}
    return within_budget({"schema": SCHEMA, "path": shown, "kernel": entry})


KERNEL_BYTES = 19_000
"""What a kernel answer may take as JSON; past it, its metrics are cut (the ``metrics`` tool
pages them all)."""


def _json_bytes(value: object) -> int:
    return len(json.dumps(value, default=str).encode())


def within_budget(answer: dict[str, Any], budget: int = KERNEL_BYTES) -> dict[str, Any]:
    """``answer`` with as many of its kernel's metrics, in order, as keep it within
    ``budget`` bytes of JSON, and a note of how many were left out where any were."""
    if _json_bytes(answer) <= budget:
        return answer
    entry = answer["kernel"]
    metrics: dict[str, Any] = entry["metrics"]
    entry["metrics"] = {}
    entry["metrics_cut"] = {"shown": 0, "total": len(metrics),
                            "rest": "call the metrics tool with a pattern: it pages them all"}
    used = _json_bytes(answer)
    for name, value in metrics.items():
        cost = _json_bytes({name: value})
        if used + cost > budget:
            break
        entry["metrics"][name] = value
        used += cost
    entry["metrics_cut"]["shown"] = len(entry["metrics"])
    return answer


def metrics_answer(path: Path, kernel_id: int, pattern: str, start: int, question: str,
                   progress: Progress) -> dict[str, Any]:
    """Every metric of the kernel whose name ``pattern`` matches, with its value and the
    unit ``ncu --page raw`` prints, a page at a time."""
    regex = kernel_filter(pattern) or re.compile("")
    with opened_report(path, progress) as report:
        count = report.kernel_count
        if not 0 <= kernel_id < count:
            raise ReportError(f"{safe_text(path.name)} has no kernel {kernel_id} "
                              f"(its IDs are 0 to {count - 1}).")
        progress(1, 2, f"reading the metrics of kernel {kernel_id}")
        found = metrics_dict(report.all_metrics(kernel_id))
    rows = [{"name": name, **value} for name, value in found.items() if regex.search(name)]
    chosen, paging = page(rows, start, question)
    return {"path": str(path), "kernel_id": kernel_id, "pattern": pattern,
            "metrics": chosen, "page": paging}


RECORD_FAMILIES = 10
"""A report's Markdown record holds the case records of its largest families only."""


def kernel_record(path: Path, kernel_id: int, progress: Progress) -> str:
    """The Markdown case record of one kernel, as the TUI's export of it writes it."""
    from kernelscope.kinds.ncu.export.ncu_markdown import single_kernel_markdown

    with opened_report(path, progress) as report:
        analyzed_report = analysed(report, progress)
        check_kernel(analyzed_report, kernel_id)
        summaries = [k.summary for k in analyzed_report.kernels]
        return single_kernel_markdown(report, summaries, kernel_id)


