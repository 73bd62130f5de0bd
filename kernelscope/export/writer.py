"""One export path for the CLI and the TUI: render a report to text in a format."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kernelscope.parsers.detect import ReportKind, detect_kind
from kernelscope.parsers.errors import ReportError
from kernelscope.parsers.jsonsafe import json_safe

if TYPE_CHECKING:
    from kernelscope.parsers.nsys import NsysReport
    from kernelscope.parsers.nsys.timeline_data import TimelineData

FORMATS = ("json", "md", "csv")


@dataclass(frozen=True)
class ExportOptions:
    fmt: str = "json"
    pattern: str | None = None
    top: int | None = None
    all_metrics: bool = False
    cache_dir: Path | None = None


def check_pattern(pattern: str | None) -> None:
    if pattern is None:
        return
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ReportError(
            f"The kernel filter {pattern!r} is not a valid regular expression ({exc})."
        ) from exc


def render_ncu(path: Path, options: ExportOptions) -> str:
    # Each format imports only its own renderer: the CSV one brings polars (~0.15 s).
    from kernelscope.parsers.kernel_analysis import analyze, open_for_analysis

    with open_for_analysis(path) as report:
        every_record = options.fmt in ("md", "json") and not options.pattern and options.top is None
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

        return render_ncu_csv(analyzed, pattern=options.pattern, top=options.top)


def render_timeline(path: Path, options: ExportOptions) -> str:
    from kernelscope.parsers.nsys import open_report

    return render_timeline_report(open_report(path, cache_dir=options.cache_dir), options)


def render_timeline_report(source: NsysReport | TimelineData, options: ExportOptions) -> str:
    """An opened timeline report in ``options.fmt`` (the TUI exports the view data it holds)."""
    from kernelscope.export.timeline_json import timeline_data, to_export_dict
    from kernelscope.export.timeline_markdown import render_timeline_markdown

    data = timeline_data(source)
    if options.fmt == "csv":
        return data.kernels.write_csv()
    if options.fmt == "md":
        return render_timeline_markdown(data, pattern=options.pattern, top=options.top)
    doc = to_export_dict(data)
    if options.pattern:
        regex = re.compile(options.pattern)
        doc["kernels"] = [k for k in doc["kernels"] if regex.search(k["name"])]
    return json.dumps(json_safe(doc), indent=2) + "\n"


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
