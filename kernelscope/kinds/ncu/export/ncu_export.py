"""The kernel report in each export format (the ``export`` part of its kind)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernelscope.export.writer import ExportOptions, Rendered, nothing_matched

if TYPE_CHECKING:
    from kernelscope.kinds.ncu.model import NcuReport


def render_ncu_report(report: NcuReport, options: ExportOptions) -> str | Rendered:
    """An opened kernel report in ``options.fmt``, analysed as that format needs (a Markdown
    or JSON export of every kernel reads each kernel's detail in the same pass)."""
    # Each format imports only its own renderer: the CSV one brings polars (~0.15 s).
    from dataclasses import replace

    from kernelscope.kinds.ncu.analysis.kernel_analysis import analyze

    every_record = (
        options.fmt in ("md", "json")
        and not options.pattern
        and not options.process
        and options.top is None
    )
    if options.fmt == "md":
        # Each kernel's diagnosis from its detail; the records are written for the families'
        # representatives alone, once they are known (read again, as this pass reads them).
        analyzed = analyze(report, details=every_record, breakdowns=False, slim=True)
    elif options.fmt == "json":
        from kernelscope.kinds.ncu.export.ncu_json import json_analysis

        analyzed = analyze(report, details=every_record, analyse=json_analysis, slim=True,
                           tables=True, all_metrics=options.all_metrics)
    else:
        analyzed = analyze(report)
    analyzed = replace(analyzed, process=options.process)
    if (options.pattern or options.process) and not analyzed.select(options.pattern):
        raise nothing_matched(report.path, options)
    if options.fmt == "json":
        from kernelscope.kinds.ncu.export.ncu_json import ncu_json_pieces

        return Rendered("", pieces=ncu_json_pieces(
            analyzed, pattern=options.pattern, top=options.top, all_metrics=options.all_metrics
        ))
    if options.fmt == "md":
        from kernelscope.kinds.ncu.export.ncu_markdown import render_ncu_markdown

        return render_ncu_markdown(analyzed, pattern=options.pattern, top=options.top,
                                   records_as_read=every_record)
    from kernelscope.kinds.ncu.export.ncu_csv import render_ncu_csv

    return render_ncu_csv(analyzed, options)
