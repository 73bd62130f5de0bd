"""The ``kernelscope/nsys/1`` JSON document: everything kernelscope concludes from a report.

Built from the timeline's one view-data builder (:class:`TimelineData`), so the document holds
the same tables the screen shows. Only plain ints, floats, strings, lists, dicts and None, so
``json.dumps`` works directly.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from kernelscope.core.findings import Finding
from kernelscope.core.jsonsafe import json_safe
from kernelscope.timeline.analysis.thresholds import TIMELINE_THRESHOLDS
from kernelscope.timeline.analysis.timeline_data import EXPORT_GAPS, TimelineData
from kernelscope.timeline.export.breakdown_json import breakdown_doc
from kernelscope.timeline.export.critical_text import path_doc
from kernelscope.timeline.export.op_efficiency_text import op_efficiency_doc
from kernelscope.timeline.model.model import TimelineReport

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


def timeline_data(source: TimelineReport | TimelineData) -> TimelineData:
    return source if isinstance(source, TimelineData) else TimelineData(source)


def report_info(report: TimelineReport) -> dict[str, Any]:
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
        pl.col("range").alias("name"), "instances", "raw_names", "total_ns", "gpu_busy_pct"
    )
    return json_safe(frame.to_dicts())


METRIC_MEAN_KEYS = ("samples", "sm_active", "sm_issue", "tensor_active", "dram_read",
                    "dram_write", "dram")


def metric_rows(data: TimelineData) -> list[dict[str, Any]]:
    """Each sampled GPU metric over the capture: name (as nsys names it), device, key, unit,
    mean, p50, p95, min, max, samples."""
    frame = data.metrics.select("name", "device", "key", "unit", "mean", "p50", "p95", "min",
                                "max", "samples")
    return json_safe(frame.to_dicts())


def family_metric_rows(data: TimelineData) -> list[dict[str, Any]]:
    frame = data.family_metrics.select("name", "device", "instances", "total_ns",
                                       *METRIC_MEAN_KEYS)
    return json_safe(frame.to_dicts())


def nvtx_metric_rows(data: TimelineData) -> list[dict[str, Any]]:
    frame = data.nvtx_metrics.select(pl.col("range").alias("name"), "device", "instances",
                                     "total_ns", *METRIC_MEAN_KEYS)
    return json_safe(frame.to_dicts())


def graph_doc(data: TimelineData) -> dict[str, Any]:
    """The CUDA graph launches (with their operations) and each graph against the same
    kernels launched eagerly."""
    launches = data.graph_launches.drop("api_start", "api_end").with_columns(
        data.graph_launches["api_start"].alias("api_start_ns"),
        data.graph_launches["api_end"].alias("api_end_ns"),
    ).rename({"gpu_start": "gpu_start_ns", "gpu_end": "gpu_end_ns"})
    return json_safe({
        "launches": launches.to_dicts(),
        "graphs": [g.as_dict() for g in data.graphs],
    })


def finding_dict(finding: Finding) -> dict[str, object]:
    """A finding as the export lists it: ``id``, ``severity``, ``title`` and its ``items``
    (the offending rows)."""
    return {"id": finding.id, "severity": finding.severity.value, "title": finding.title,
            "items": [dict(row) for row in finding.rows]}


def to_export_dict(
    source: TimelineReport | TimelineData,
    *,
    large_gap_ns: int = TIMELINE_THRESHOLDS.large_gap_ns,
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
            "reason": g.reason, "hint": g.hint, "graph": g.graph,
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
        "findings": [finding_dict(f) for f in data.findings],
        "gpu_metrics": metric_rows(data),
        "gpu_metrics_by_kernel": family_metric_rows(data),
        "gpu_metrics_by_nvtx": nvtx_metric_rows(data),
        "gpu_metrics_verdicts": [v.as_dict() for v in data.metrics_verdicts],
        "cuda_graphs": graph_doc(data),
        "critical_path": path_doc(data.critical_path, data.short_name),
        **breakdown_members(data),
        **op_efficiency_doc(data.op_efficiency),
    })


def breakdown_members(data: TimelineData) -> dict[str, Any]:
    """HTA's temporal breakdown and communication/computation overlap of the timeline."""
    return breakdown_doc(*data.breakdown)
