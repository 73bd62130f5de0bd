"""The kernel report as the ``kernelscope/ncu/1`` JSON document."""

from __future__ import annotations

from typing import Any

from kernelscope.parsers.kernel_analysis import AnalyzedReport
from kernelscope.parsers.ncu import KernelDetail, Metric, NcuReport

SCHEMA = "kernelscope/ncu/1"


def metrics_dict(metrics: dict[str, Metric]) -> dict[str, dict[str, Any]]:
    return {name: {"value": m.value, "unit": m.unit} for name, m in sorted(metrics.items())}


def kernel_dict(
    report: NcuReport, detail: KernelDetail, *, all_metrics: bool = False
) -> dict[str, Any]:
    """One kernel's entry: identity, launch shape, duration and the panes' (or all) metrics."""
    metrics = report.all_metrics(detail.id) if all_metrics else detail.metrics
    return {
        "id": detail.id,
        "name": detail.name,
        "demangled": detail.demangled,
        "mangled": detail.mangled,
        "grid": list(detail.grid),
        "block": list(detail.block),
        "duration_ns": detail.duration_ns if detail.measured else None,
        "measured": detail.measured,
        "unmeasured_reason": detail.unmeasured,
        "pid": detail.pid,
        "process": detail.process or None,
        "sections": sorted(detail.sections),
        "metrics": metrics_dict(metrics),
        "ncu_rules": [
            {
                "rule": r.rule,
                "section": r.section,
                "type": r.type,
                "title": r.title,
                "message": r.message,
                "speedup_type": r.speedup_type,
                "speedup_pct": r.speedup_pct,
            }
            for r in detail.rules
        ],
    }


def report_dict(analyzed: AnalyzedReport) -> dict[str, Any]:
    report = analyzed.report
    dev = report.device
    return {
        "path": str(report.path),
        "kernel_count": report.kernel_count,
        "total_kernel_time_ns": analyzed.total_text_ns,
        "unmeasured_kernels": analyzed.unmeasured,
        "processes": [
            {"pid": p.pid, "name": p.short_name, "command": p.name, "host": p.host}
            for p in report.processes
        ],
        "notes": report.notes,
        "ncu_report_version": report.version,
        "ncu_version": report.ncu_version,
        "cuda_version": report.cuda_version,
        "sections": sorted(analyzed.sections),
        "device": {
            "name": dev.name,
            "compute_capability": dev.compute_capability,
            "sm_count": dev.sm_count,
            "attributes": dict(dev.attributes),
        },
    }


def build_ncu_document(
    analyzed: AnalyzedReport,
    *,
    pattern: str | None = None,
    top: int | None = None,
    all_metrics: bool = False,
) -> dict[str, Any]:
    """The whole JSON document: every family of the report ranked by total time, and every
    selected kernel with its metrics, diagnosis and ``family`` (an index into ``families``);
    ``top`` selects the launches of the N largest families."""
    kernels = []
    chosen = analyzed.select(pattern, top)
    pairs = analyzed.iter_detail_diagnoses([k.id for k in chosen])
    for kernel, (detail, diagnosis) in zip(chosen, pairs, strict=True):
        entry = kernel_dict(analyzed.report, detail, all_metrics=all_metrics)
        entry["short_name"] = analyzed.short_name(kernel)
        entry["time_share"] = kernel.time_share
        entry["family"] = analyzed.families.index_of.get(kernel.id)
        entry.update(diagnosis.to_dict())
        kernels.append(entry)
    return {
        "schema": SCHEMA,
        "report": report_dict(analyzed),
        "families": [f.to_dict() for f in analyzed.families],
        "kernels": kernels,
    }
