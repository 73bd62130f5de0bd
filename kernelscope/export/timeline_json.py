"""The ``kernelscope/nsys/1`` JSON document: everything kernelscope concludes from a report.

Built from the timeline's one view-data builder (:class:`TimelineData`), so the document holds
the same tables the screen shows. Only plain ints, floats, strings, lists, dicts and None, so
``json.dumps`` works directly.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from kernelscope.parsers.jsonsafe import json_safe
from kernelscope.parsers.nsys.gap_causes import DEFAULT_LARGE_GAP_NS
from kernelscope.parsers.nsys.model import NsysReport
from kernelscope.parsers.nsys.timeline_data import EXPORT_GAPS, TimelineData

SCHEMA = "kernelscope/nsys/1"

KERNEL_FIELDS = (
    ("Name", "name"),
    ("Instances", "instances"),
    ("Total Time (ns)", "total_ns"),
    ("Avg (ns)", "avg_ns"),
    ("Med (ns)", "med_ns"),
    ("Min (ns)", "min_ns"),
    ("Max (ns)", "max_ns"),
    ("StdDev (ns)", "stddev_ns"),
    ("Time (%)", "time_pct"),
)
"""The kernel summary's columns (as ``nsys stats`` names them) and their keys here."""


def timeline_data(source: NsysReport | TimelineData) -> TimelineData:
    return source if isinstance(source, TimelineData) else TimelineData(source)


def report_info(report: NsysReport) -> dict[str, Any]:
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


def kernel_rows(data: TimelineData) -> list[dict[str, Any]]:
    """The kernel summary, one dict per kernel name (keys of ``KERNEL_FIELDS``)."""
    frame = data.kernels.select(pl.col(column).alias(key) for column, key in KERNEL_FIELDS)
    rows = json_safe(frame.to_dicts())
    for row in rows:
        row["short_name"] = data.short_name(str(row["name"]))
    return rows


def gpu_rows(data: TimelineData) -> list[dict[str, Any]]:
    frame = data.utilization.select("device", "span_ns", "busy_ns", "utilization_pct")
    return json_safe(frame.to_dicts())


def nvtx_rows(data: TimelineData) -> list[dict[str, Any]]:
    frame = data.nvtx_busy.select(
        pl.col("range").alias("name"), "instances", "total_ns", "gpu_busy_pct"
    )
    return json_safe(frame.to_dicts())


def to_export_dict(
    source: NsysReport | TimelineData,
    *,
    large_gap_ns: int = DEFAULT_LARGE_GAP_NS,
    max_gaps: int = EXPORT_GAPS,
) -> dict[str, Any]:
    """The whole analysis as one JSON-serialisable dict (schema ``kernelscope/nsys/1``).

    ``gaps`` lists the ``max_gaps`` longest idle gaps of at least ``large_gap_ns``, in time
    order, each with its cause and the CPU activity that overlapped it.
    """
    data = timeline_data(source)
    gaps = [
        {
            "device": g.device, "start_ns": g.start_ns, "end_ns": g.end_ns,
            "duration_ns": g.duration_ns, "cause": g.cause, "detail": g.detail,
            "reason": g.reason, "hint": g.hint,
            "cpu": [c.as_dict() for c in g.cpu],
        }
        for g in data.longest_gaps(max_gaps, large_gap_ns)
    ]
    return json_safe({
        "schema": SCHEMA,
        "report": report_info(data.report),
        "kernels": kernel_rows(data),
        "gpu": gpu_rows(data),
        "gaps": gaps,
        "nvtx": nvtx_rows(data),
        "findings": [f.as_dict() for f in data.findings],
    })
