"""The ``kernelscope/nsys/1`` JSON document: everything kernelscope concludes from a report.

Only plain ints, floats, strings, lists, dicts and None, so ``json.dumps`` works directly.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from kernelscope.parsers.jsonsafe import json_safe
from kernelscope.parsers.nsys.findings import findings as run_findings
from kernelscope.parsers.nsys.gap_causes import DEFAULT_LARGE_GAP_NS, explain_gaps
from kernelscope.parsers.nsys.model import NsysReport
from kernelscope.parsers.nsys.nvtx import nvtx_gpu_busy
from kernelscope.parsers.nsys.summaries import kernel_summary
from kernelscope.parsers.nsys.utilization import gpu_utilization

SCHEMA = "kernelscope/nsys/1"


def _report_info(report: NsysReport) -> dict[str, Any]:
    return {
        "path": str(report.path),
        "start_ns": report.start_ns,
        "end_ns": report.end_ns,
        "span_ns": report.duration_ns,
        "nsys_version": report.nsys_version,
        "cuda_trace": report.has_cuda_trace,
        "devices": [{"id": d.id, "name": d.name, "sm_count": d.sm_count}
                    for d in report.devices],
        "processes": [{"pid": p.pid, "name": p.name} for p in report.processes],
        "counts": {
            "kernels": report.kernels.height, "memcpy": report.memcpy.height,
            "memset": report.memset.height, "cuda_api": report.cuda_api.height,
            "osrt": report.osrt.height, "nvtx": report.nvtx.height,
        },
    }


def _kernels(report: NsysReport) -> list[dict[str, Any]]:
    df = kernel_summary(report).select(
        pl.col("Name").alias("name"),
        pl.col("Instances").alias("instances"),
        pl.col("Total Time (ns)").alias("total_ns"),
        pl.col("Avg (ns)").alias("avg_ns"),
        pl.col("Med (ns)").alias("med_ns"),
        pl.col("Min (ns)").alias("min_ns"),
        pl.col("Max (ns)").alias("max_ns"),
        pl.col("StdDev (ns)").alias("stddev_ns"),
        pl.col("Time (%)").alias("time_pct"),
    )
    return df.to_dicts()


def _gpu(report: NsysReport) -> list[dict[str, Any]]:
    return gpu_utilization(report).select(
        "device", "span_ns", "busy_ns", "utilization_pct"
    ).to_dicts()


def _nvtx(report: NsysReport) -> list[dict[str, Any]]:
    return nvtx_gpu_busy(report).select(
        pl.col("range").alias("name"), "instances", "total_ns", "gpu_busy_pct"
    ).to_dicts()


def to_export_dict(
    report: NsysReport, *, large_gap_ns: int = DEFAULT_LARGE_GAP_NS, max_gaps: int = 50
) -> dict[str, Any]:
    """The whole analysis as one JSON-serialisable dict (schema ``kernelscope/nsys/1``).

    ``gaps`` lists the ``max_gaps`` longest idle gaps of at least ``large_gap_ns``, in time
    order, each with its cause and the CPU activity that overlapped it.
    """
    gaps = [
        {
            "device": g.device, "start_ns": g.start_ns, "end_ns": g.end_ns,
            "duration_ns": g.duration_ns, "cause": g.cause,
            "cpu": [c.as_dict() for c in g.cpu],
        }
        for g in explain_gaps(report, min_gap_ns=large_gap_ns, limit=max_gaps)
    ]
    return json_safe({
        "schema": SCHEMA,
        "report": _report_info(report),
        "kernels": _kernels(report),
        "gpu": _gpu(report),
        "gaps": gaps,
        "nvtx": _nvtx(report),
        "findings": [f.as_dict() for f in run_findings(report)],
    })
