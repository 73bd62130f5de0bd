"""The timeline report in each export format (the ``export`` part of its kind)."""

from __future__ import annotations

import json
import re

import polars as pl

from kernelscope.export.timeline_json import timeline_data, to_export_dict
from kernelscope.export.timeline_markdown import render_timeline_markdown
from kernelscope.export.writer import ExportOptions, nothing_matched
from kernelscope.parsers.errors import ReportError
from kernelscope.parsers.jsonsafe import json_safe
from kernelscope.parsers.nsys import NsysReport
from kernelscope.parsers.nsys.model import pid_of
from kernelscope.parsers.nsys.timeline_data import TimelineData


def nsys_csv(frame: pl.DataFrame) -> str:
    """``frame`` as CSV the way ``nsys stats --format csv`` prints it: fractions to one
    decimal (``383080.7``), integers as integers."""
    floats = [name for name, dtype in frame.schema.items() if dtype.is_float()]
    return frame.with_columns(pl.col(floats).round(1)).write_csv()


def with_processes(kernels: pl.DataFrame, report: NsysReport) -> pl.DataFrame:
    """``cuda_gpu_kern_sum`` of a trace of several processes, with a last column ``PIDs``:
    the processes each kernel ran in (nsys sums them together); unchanged for one process."""
    if len(report.processes) <= 1:
        return kernels
    pids = (
        report.kernels.lazy()
        .select(pl.col("name").cast(pl.String).alias("Name"), pid_of(pl.col("global_pid")))
        .drop_nulls()
        .unique()
        .sort("global_pid")
        .group_by("Name", maintain_order=True)
        .agg(pl.col("global_pid").cast(pl.String).str.join(" ").alias("PIDs"))
        .collect()
    )
    return kernels.join(pids, on="Name", how="left", maintain_order="left")


def render_timeline_report(source: NsysReport | TimelineData, options: ExportOptions) -> str:
    """An opened timeline report in ``options.fmt`` (the TUI exports the view data it holds)."""
    data = timeline_data(source)
    if options.process:
        raise ReportError("--process selects kernels of a kernel report (.ncu-rep) only.")
    if options.pattern:
        regex = re.compile(options.pattern)
        names = data.report.kernels["name"].cast(str).drop_nulls().unique().to_list()
        if not any(regex.search(n) for n in names):
            raise nothing_matched(data.path, options)
    if options.fmt == "csv":
        return nsys_csv(with_processes(data.kernels, data.report))
    if options.fmt == "md":
        return render_timeline_markdown(data, pattern=options.pattern, top=options.top)
    doc = to_export_dict(data)
    if options.pattern:
        regex = re.compile(options.pattern)
        doc["kernels"] = [k for k in doc["kernels"] if regex.search(k["name"])]
    return json.dumps(json_safe(doc), indent=2) + "\n"
