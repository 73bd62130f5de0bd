"""One export path for the CLI and the TUI: render a report to text in a format."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kernelscope.parsers.detect import ReportKind, detect_kind
from kernelscope.parsers.errors import ReportError, safe_text
from kernelscope.parsers.jsonsafe import json_safe

if TYPE_CHECKING:
    from kernelscope.parsers.nsys import NsysReport

FORMATS = ("json", "md", "csv")


@dataclass(frozen=True)
class ExportOptions:
    fmt: str = "json"
    pattern: str | None = None
    top: int | None = None
    all_metrics: bool = False
    cache_dir: Path | None = None
    process: str | None = None


def check_pattern(pattern: str | None) -> None:
    if pattern is None:
        return
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ReportError(
            f"The kernel filter {pattern!r} is not a valid regular expression ({exc})."
        ) from exc


def nothing_matched(path: Path, options: ExportOptions) -> ReportError:
    """The error for a kernel filter (name, process) that selects no kernel."""
    what = []
    if options.pattern:
        what.append(f"matches {options.pattern!r}")
    if options.process:
        what.append(f"ran in process {options.process!r}")
    return ReportError(
        f"No kernel of {safe_text(path.name)} {' and '.join(what) or 'is there'}, so there "
        "is nothing to export."
    )


def render_ncu(path: Path, options: ExportOptions) -> str:
    # Each format imports only its own renderer: the CSV one brings polars (~0.15 s).
    from dataclasses import replace

    from kernelscope.parsers.kernel_analysis import analyze, open_for_analysis

    with open_for_analysis(path) as report:
        every_record = (
            options.fmt in ("md", "json")
            and not options.pattern
            and not options.process
            and options.top is None
        )
        if options.fmt == "md":
            from kernelscope.export.ncu_markdown import record_analysis

            analyzed = analyze(
                report,
                details=every_record,
                analyse=record_analysis,
                breakdowns=False,
                slim=True,
            )
        else:
            analyzed = analyze(report, details=every_record)
        analyzed = replace(analyzed, process=options.process)
        if (options.pattern or options.process) and not analyzed.select(options.pattern):
            raise nothing_matched(path, options)
        if options.fmt == "json":
            from kernelscope.export.ncu_json import build_ncu_document

            doc = build_ncu_document(
                analyzed, pattern=options.pattern, top=options.top, all_metrics=options.all_metrics
            )
            return json.dumps(json_safe(doc), indent=2) + "\n"
        if options.fmt == "md":
            from kernelscope.export.ncu_markdown import render_ncu_markdown

            return render_ncu_markdown(analyzed, pattern=options.pattern, top=options.top)
        from kernelscope.export.ncu_csv import render_ncu_csv

        return render_ncu_csv(
            analyzed, pattern=options.pattern, top=options.top, all_metrics=options.all_metrics
        )


def render_timeline(path: Path, options: ExportOptions) -> str:
    from kernelscope.parsers.nsys import open_report

    if options.process:
        raise ReportError("--process selects kernels of a kernel report (.ncu-rep) only.")
    report = open_report(path, cache_dir=options.cache_dir)
    if options.pattern:
        regex = re.compile(options.pattern)
        names = report.kernels["name"].cast(str).drop_nulls().unique().to_list()
        if not any(regex.search(n) for n in names):
            raise nothing_matched(path, options)
    return render_timeline_report(report, options)


def render_timeline_report(report: NsysReport, options: ExportOptions) -> str:
    """An opened timeline report in ``options.fmt`` (the TUI exports the report it holds)."""
    from kernelscope.export.timeline_markdown import render_timeline_markdown
    from kernelscope.parsers.nsys import kernel_summary, to_export_dict
    from kernelscope.parsers.nsys.utilization import utilization_windows

    if options.fmt == "csv":
        return kernel_summary(report).write_csv()
    doc = to_export_dict(report)
    if options.pattern:
        regex = re.compile(options.pattern)
        doc["kernels"] = [k for k in doc["kernels"] if regex.search(k["name"])]
    if options.fmt == "json":
        return json.dumps(json_safe(doc), indent=2) + "\n"
    windows = utilization_windows(report, windows=72)
    strips = {
        int(dev): sub["utilization_pct"].to_list()
        for (dev,), sub in windows.group_by(["device"], maintain_order=True)
    }
    return render_timeline_markdown(doc, strips, top=options.top)


def render(path: str | os.PathLike[str], options: ExportOptions) -> str:
    """Render the report at ``path`` in ``options.fmt``; raises ReportError on bad input."""
    if options.fmt not in FORMATS:
        choices = ", ".join(FORMATS)
        raise ReportError(f"Unknown export format {options.fmt!r}; choose one of {choices}.")
    check_pattern(options.pattern)
    p = Path(path)
    kind = detect_kind(p)
    if kind is ReportKind.NCU:
        return render_ncu(p, options)
    return render_timeline(p, options)


def free_name(directory: Path, stem: str, suffix: str) -> Path:
    """``directory/stem.suffix``, or ``stem-2.suffix``, ``stem-3.suffix``… if it exists."""
    candidate = directory / f"{stem}{suffix}"
    n = 2
    while candidate.exists():
        candidate = directory / f"{stem}-{n}{suffix}"
        n += 1
    return candidate


def write_text(text: str, out: str | os.PathLike[str], *, overwrite: bool = True) -> Path:
    """Write ``text`` to ``out``; refuses to overwrite when ``overwrite`` is False."""
    target = Path(out)
    if target.exists() and not overwrite:
        raise ReportError(f"{target} already exists; choose another name.")
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"{target} could not be written ({exc.strerror or exc}).") from exc
    return target
