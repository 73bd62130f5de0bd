"""What a kernel report answers an agent (the ``answers`` its kind registers): its families,
one kernel's entry and metrics, and one kernel's Markdown case record.

Each is built by the JSON and Markdown exports' own functions (``ncu_json.py``,
``ncu_markdown.py``), whole: the MCP server (``mcp/answers_ncu.py``) pages and trims them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kernelscope.core.errors import ReportError, safe_text
from kernelscope.kinds.ncu.analysis.kernel_analysis import (
    AnalyzedReport,
    analyze,
    open_for_analysis,
)
from kernelscope.kinds.ncu.export.ncu_json import SCHEMA, entry_rest, report_dict
from kernelscope.kinds.ncu.export.own_members import kernel_dict, metrics_dict
from kernelscope.kinds.ncu.model import NcuReport

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


def analysed(report: NcuReport, progress: Progress, then: str) -> AnalyzedReport:
    """Every kernel of ``report`` analysed from the list pass, with families and shares.
    Progress counts the kernels read and one step more, the one ``then`` names (what the
    answer does with them), reported once they are read: so it only grows, as MCP asks."""
    count = report.kernel_count
    total = count + 2  # the kernels, then ``then``: below its end while it runs
    reported = [0]  # (the opening reported 0)

    def step(done: int, _: int) -> None:  # every twentieth of the way, and at its end
        if done > reported[0] and (done == count or done - reported[0] >= count / 20):
            reported[0] = done
            progress(done, total, f"reading kernel {done:,} of {count:,}")

    analyzed_report = analyze(report, step)
    progress(count + 1, total, then)
    return analyzed_report


def check_kernel(report: NcuReport, kernel_id: int) -> None:
    """Refuse a kernel ID the report does not have, before anything is read."""
    count = report.kernel_count
    if not 0 <= kernel_id < count:
        raise ReportError(
            f"{safe_text(report.path.name)} has no kernel {kernel_id} "
            f"(its IDs are 0 to {count - 1})." if count else
            f"{safe_text(report.path.name)} holds no kernel."
        )


def family_entry(analyzed_report: AnalyzedReport, index: int) -> dict[str, Any]:
    """A family as the JSON export lists it, with its median launch's verdict and top flag
    (what ``kernelscope summary`` shows) and at most ``FAMILY_IDS`` launch IDs."""
    from kernelscope.kinds.ncu.render.flag_cells import top_flag_text

    family = analyzed_report.families.families[index]
    entry = family.to_dict()
    if len(entry["ids"]) > FAMILY_IDS:
        entry["ids"] = entry["ids"][:FAMILY_IDS]
        entry["ids_total"] = family.count
    median = analyzed_report.kernel(family.representative)
    entry["short_name"] = analyzed_report.short_name(median)
    entry["bottleneck"] = median.diagnosis.label
    entry["top_flag"] = top_flag_text(median.diagnosis)
    return entry


def summary(path: Path, progress: Progress, process: str | None = None
            ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The report's document (without the device's attribute table) and its families,
    largest first; with ``process`` (an id or a name, as ``summary --process``) only the
    families with a launch in it."""
    with opened_report(path, progress) as report:
        analyzed_report = analysed(report, progress, "weighing the families")
        chosen = analyzed_report.select_families(process=process)
        if process and not chosen:
            raise ReportError(f"No kernel of {safe_text(path.name)} ran in process "
                              f"{process!r}.")
        head = report_dict(analyzed_report)
        head["device"] = {k: v for k, v in head["device"].items() if k != "attributes"}
        entries = [family_entry(analyzed_report, f.index) for f in chosen]
    return {"schema": SCHEMA, "report": head}, entries


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


def kernel(path: Path, kernel_id: int, panes: list[str], source: bool,
           progress: Progress) -> dict[str, Any]:
    """One kernel's entry of the JSON export (``kernel_entry``), with only the ``panes``'
    metrics; ``source`` adds the hot lines."""
    wanted = pane_metrics(panes)
    with opened_report(path, progress) as report:
        check_kernel(report, kernel_id)
        analyzed_report = analysed(report, progress, f"diagnosing kernel {kernel_id}")
        entry = kernel_entry(analyzed_report, kernel_id, source=source)
        shown = report_dict(analyzed_report)["path"]
    entry["metrics"] = {name: m for name, m in entry["metrics"].items()
                        if wanted is None or name in wanted}
    return {"schema": SCHEMA, "path": shown, "kernel": entry}


def kernel_entry(analyzed_report: AnalyzedReport, kernel_id: int, *,
                 source: bool = False) -> dict[str, Any]:
    """The kernel's entry of the JSON export, its diagnosis read from its full detail and
    weighed by its family's share, with the flag its verdict leads with and the rule that
    chose it (``top_flag``, as the JSON export writes it); ``source`` adds the hot lines."""
    detail, diagnosis = next(analyzed_report.iter_detail_diagnoses([kernel_id]))
    entry = {**kernel_dict(detail),
             **entry_rest(analyzed_report, analyzed_report.kernel(kernel_id), diagnosis)}
    if source:
        if detail.source is None and detail.has_section("SourceCounters"):
            detail.source = analyzed_report.report.source_hotspots(kernel_id)
        entry["source"] = hot_lines(detail)
    return entry


def metrics(path: Path, kernel_id: int, regex: re.Pattern[str],
            progress: Progress) -> list[dict[str, Any]]:
    """Every metric of the kernel whose name ``regex`` matches, with its value and the unit
    ``ncu --page raw`` prints."""
    with opened_report(path, progress) as report:
        check_kernel(report, kernel_id)
        progress(1, 2, f"reading the metrics of kernel {kernel_id}")
        found = metrics_dict(report.all_metrics(kernel_id))
    return [{"name": name, **value} for name, value in found.items() if regex.search(name)]


def record(path: Path, kernel_id: int, progress: Progress) -> str:
    """The Markdown case record of one kernel, as the TUI's export of it writes it."""
    from kernelscope.kinds.ncu.export.ncu_markdown import single_kernel_markdown

    with opened_report(path, progress) as report:
        check_kernel(report, kernel_id)
        analyzed_report = analysed(report, progress, f"writing kernel {kernel_id}'s record")
        return single_kernel_markdown(
            report, analyzed_report.families, analyzed_report.names, kernel_id
        )
