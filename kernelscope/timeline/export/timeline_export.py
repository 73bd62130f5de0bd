"""The timeline report's renderers, one per export format (the ``renderers`` of its kind)."""

from __future__ import annotations

from typing import Any

import polars as pl

from kernelscope.core.errors import ReportError, kernel_filter
from kernelscope.export import json_text
from kernelscope.export.writer import ExportOptions, nothing_matched
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.export.op_efficiency_text import op_efficiency_markdown
from kernelscope.timeline.export.timeline_json import timeline_data, to_export_dict
from kernelscope.timeline.model.model import TimelineReport, pid_of


def nsys_csv(frame: pl.DataFrame) -> str:
    """``frame`` as CSV the way ``nsys stats --format csv`` prints it: fractions to one
    decimal (``383080.7``), integers as integers."""
    floats = [name for name, dtype in frame.schema.items() if dtype.is_float()]
    return frame.with_columns(_one_decimal(pl.col(name)) for name in floats).write_csv()


def _one_decimal(value: pl.Expr) -> pl.Expr:
    """Rounded to one decimal as SQLite's ``ROUND(x, 1)`` (which nsys's reports use) does:
    half away from zero, adding 0.05 before cutting (2281.25 → 2281.3, 1.15 → 1.2)."""
    cut = (((value.abs() + 0.05) * 10).floor() / 10).round(1)  # (no tie left to round)
    return pl.when(value < 0).then(-cut).otherwise(cut).alias(value.meta.output_name())


def with_processes(kernels: pl.DataFrame, report: TimelineReport) -> pl.DataFrame:
    """``cuda_gpu_kern_sum`` of a trace whose kernels ran in several processes, with a last
    column ``PIDs``: the processes each kernel ran in (nsys sums them together); unchanged
    when one process ran them all."""
    if len(report.processes) <= 1:
        return kernels
    ran_in = (
        report.kernels.lazy()
        .select(pid_of(pl.col("global_pid")).alias("pid"))
        .drop_nulls()
        .unique()
        .collect(engine="in-memory")
    )
    if ran_in.height <= 1:  # the other processes launched no kernel
        return kernels
    pids = (
        report.kernels.lazy()
        .select(pl.col("name").cast(pl.String).alias("Name"), pid_of(pl.col("global_pid")))
        .drop_nulls()
        .unique()
        .sort("global_pid")
        .group_by("Name", maintain_order=True)
        .agg(pl.col("global_pid").cast(pl.String).str.join(" ").alias("PIDs"))
        .collect(engine="in-memory")
    )
    return kernels.join(pids, on="Name", how="left", maintain_order="left")


def operators_markdown(data: TimelineData) -> str:
    """The operator efficiency section, where the trace records operators' shapes."""
    efficiency = data.op_efficiency
    return op_efficiency_markdown(efficiency) if efficiency.available else ""


def _selected(source: TimelineReport | TimelineData, options: ExportOptions) -> TimelineData:
    """The timeline's data, once ``options`` is checked: ``--process`` is refused, and ``-k``
    must match a kernel."""
    data = timeline_data(source)
    if options.model_flops is not None:
        data.model_flops = options.model_flops
    if options.process:
        raise ReportError("--process selects kernels of a kernel report (.ncu-rep) only.")
    regex = kernel_filter(options.pattern)
    if regex is not None:
        names = data.report.kernels["name"].cast(str).drop_nulls().unique().to_list()
        if not any(regex.search(n) for n in names):
            raise nothing_matched(data.path, options)
    return data


def render_timeline_csv(source: TimelineReport | TimelineData, options: ExportOptions) -> str:
    """``--format csv``: the kernel summary as ``nsys stats`` prints it (the TUI exports the
    view data it holds, as every renderer here takes it)."""
    data = _selected(source, options)
    return nsys_csv(with_processes(data.kernels, data.report))


def render_timeline_md(source: TimelineReport | TimelineData, options: ExportOptions) -> str:
    """``--format md``."""
    # here: the JSON export, summary and CSV need none of the Markdown renderers
    from kernelscope.timeline.export.timeline_markdown import render_timeline_markdown

    data = _selected(source, options)
    return (render_timeline_markdown(data, pattern=options.pattern, top=options.top)
            + operators_markdown(data))


def timeline_doc(source: TimelineReport | TimelineData, options: ExportOptions
                 ) -> dict[str, Any]:
    """The ``--format json`` document, before it is text: ``-k`` keeps the kernels it
    matches."""
    doc = to_export_dict(_selected(source, options))
    regex = kernel_filter(options.pattern)
    if regex is not None:
        doc["kernels"] = [k for k in doc["kernels"] if regex.search(k["name"])]
    return doc


def render_timeline_json(source: TimelineReport | TimelineData, options: ExportOptions) -> str:
    """``--format json``: ``-k`` keeps the kernels it matches (the standard library's
    indented JSON of ``json_safe``'s values, written by ``export/json_text.py``)."""
    return json_text.dumps(timeline_doc(source, options)) + "\n"
