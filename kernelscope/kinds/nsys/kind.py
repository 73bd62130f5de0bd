"""Nsight Systems' registration: how a timeline (``.nsys-rep``, its SQLite export, either
compressed) is found, opened, analysed, summarised, exported and shown. Every part is
imported on first use."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kernelscope.core.detect import ReportKind
from kernelscope.core.options import OpenOptions
from kernelscope.kinds.registry import KindSpec


def _open_timeline(paths: Sequence[Path], options: OpenOptions) -> Any:
    """The timeline for the headless commands (exports, summary, what-if), which never read
    the kernels' launch shapes or their short and mangled names (the screen opens its own);
    with ``graph_only``, only what the critical path's graph reads."""
    from kernelscope.kinds.nsys.model.opener import open_report

    return open_report(paths[0], cache_dir=options.cache_dir, kernel_details=False,
                       graph_only=options.graph_only)


def _analyse_timeline(report: Any, options: OpenOptions) -> Any:
    from kernelscope.core.errors import ReportError
    from kernelscope.timeline.analysis.timeline_data import TimelineData

    if options.process:
        raise ReportError("--process selects kernels of a kernel report (.ncu-rep) only.")

    data = TimelineData(report)
    data.model_flops = options.model_flops
    return data


EXPORT = "kernelscope.timeline.export.timeline_export"

KIND = KindSpec(
    name="nsys",
    title="Nsight Systems timeline (.nsys-rep or its SQLite export)",
    detect=lambda probe: probe.content in (ReportKind.NSYS, ReportKind.SQLITE),
    open=_open_timeline,
    analyse=_analyse_timeline,
    summary="kernelscope.timeline.export.timeline_summary:print_timeline_summary",
    renderers={
        "json": f"{EXPORT}:render_timeline_json",
        "md": f"{EXPORT}:render_timeline_md",
        "csv": f"{EXPORT}:render_timeline_csv",
    },
    session="kernelscope.kinds.nsys.screens.nsys_session:NsysSession",
    noun="timeline",
    suffixes=(".nsys-rep", ".sqlite"),
    usage="TRACE.nsys-rep or .sqlite: a timeline (Nsight Systems)",
    keys=("Timeline (`kernelscope TRACE`)",
          "kernelscope.timeline.screens.timeline:TimelineScreen.help_sections"),
)
