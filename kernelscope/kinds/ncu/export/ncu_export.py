"""The kernel report's renderers, one per export format (the ``renderers`` of its kind).

Each analyses the report as its format needs (a Markdown or JSON export of every kernel reads
each kernel's detail in the same pass) and imports only its own renderer: the CSV one brings
polars (~0.15 s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kernelscope.export.writer import ExportOptions, Rendered, nothing_matched

if TYPE_CHECKING:
    from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport
    from kernelscope.kinds.ncu.model import NcuReport


def _every_record(options: ExportOptions) -> bool:
    """Whether the export holds every kernel's record (no filter, no ``--top``)."""
    return not options.pattern and not options.process and options.top is None


def _analysed(report: NcuReport, options: ExportOptions, **how: Any) -> AnalyzedReport:
    """``report`` analysed ``how`` the format needs, its kernels those ``options`` select."""
    from dataclasses import replace

    from kernelscope.kinds.ncu.analysis.kernel_analysis import analyze

    analyzed = replace(analyze(report, **how), process=options.process)
    if (options.pattern or options.process) and not analyzed.select(options.pattern):
        raise nothing_matched(report.path, options)
    return analyzed


def render_ncu_json_report(report: NcuReport, options: ExportOptions) -> Rendered:
    """``--format json``: the document in pieces (``kernelscope/ncu/…``)."""
    from kernelscope.kinds.ncu.export.ncu_json import JsonMembers, ncu_json_pieces

    analyzed = _analysed(report, options, details=_every_record(options),
                         analyse=JsonMembers(), slim=True, tables=True,
                         all_metrics=options.all_metrics)
    return Rendered("", pieces=ncu_json_pieces(
        analyzed, pattern=options.pattern, top=options.top, all_metrics=options.all_metrics
    ))


def render_ncu_markdown_report(report: NcuReport, options: ExportOptions) -> str:
    """``--format md``: the list pass's analysis (each kernel diagnosed from its summary, as
    the TUI holds it, so its ``e`` writes this text from what it holds); the records are
    written for the families' representatives alone, read once they are known."""
    from kernelscope.kinds.ncu.export.ncu_markdown import render_ncu_markdown

    return render_ncu_markdown(_analysed(report, options), pattern=options.pattern,
                               top=options.top, records_as_read=_every_record(options))


def render_ncu_csv_report(report: NcuReport, options: ExportOptions) -> str:
    """``--format csv``: a row per kernel (a column per metric with ``--all-metrics``)."""
    from kernelscope.kinds.ncu.export.ncu_csv import render_ncu_csv

    return render_ncu_csv(_analysed(report, options), options)
