"""Nsight Compute's registration: how a kernel report (``.ncu-rep``) is found, opened,
analysed, summarised, exported and shown. Every part is imported on first use."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from kernelscope.core.detect import ReportKind
from kernelscope.core.options import OpenOptions
from kernelscope.kinds.registry import KindSpec


def _open_kernels(paths: Sequence[Path], options: OpenOptions) -> Any:
    from kernelscope.kinds.ncu.analysis.kernel_analysis import open_for_analysis

    return open_for_analysis(paths[0])


def _analyse_kernels(report: Any, options: OpenOptions) -> Any:
    from kernelscope.kinds.ncu.analysis.summary_stream import stream_summary

    return replace(stream_summary(report), process=options.process)


EXPORT = "kernelscope.kinds.ncu.export.ncu_export"

KIND = KindSpec(
    name="ncu",
    title="Nsight Compute kernel report",
    detect=lambda probe: probe.content is ReportKind.NCU,
    open=_open_kernels,
    analyse=_analyse_kernels,
    summary="kernelscope.kinds.ncu.export.ncu_summary:print_kernels_summary",
    renderers={
        "json": f"{EXPORT}:render_ncu_json_report",
        "md": f"{EXPORT}:render_ncu_markdown_report",
        "csv": f"{EXPORT}:render_ncu_csv_report",
    },
    session="kernelscope.kinds.ncu.screens.kernel_session:KernelSession",
    answers="kernelscope.kinds.ncu.export.ncu_answers",
    noun="kernel report",
    suffixes=(".ncu-rep",),
    usage="REPORT.ncu-rep: a kernel report (without REPORT, the bundled sample report)",
    keys=("Kernel reports: the list, the roofline and the detail",
          "kernelscope.kinds.ncu.screens.kernel_session:kernel_help_sections"),
)
