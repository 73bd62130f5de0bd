"""The kernel report as the ``kernelscope/ncu/1`` JSON document."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from kernelscope.parsers.ncu import KernelDetail, Metric, NcuReport

SCHEMA = "kernelscope/ncu/1"

KernelHook = Callable[[NcuReport, KernelDetail, dict[str, Any]], None]


def selected_kernels(report: NcuReport, pattern: str | None = None) -> Iterator[int]:
    """IDs of the kernels whose function or demangled name matches ``pattern`` (all if None)."""
    regex = re.compile(pattern) if pattern else None
    for kernel_id in range(report.kernel_count):
        if regex is None:
            yield kernel_id
            continue
        row = report.key_row(kernel_id)
        if regex.search(str(row["name"])) or regex.search(str(row["demangled"])):
            yield kernel_id


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
        "duration_ns": detail.duration_ns,
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


def report_dict(report: NcuReport) -> dict[str, Any]:
    dev = report.device
    return {
        "path": str(report.path),
        "kernel_count": report.kernel_count,
        "ncu_report_version": report.version,
        "device": {
            "name": dev.name,
            "compute_capability": dev.compute_capability,
            "sm_count": dev.sm_count,
            "attributes": dict(dev.attributes),
        },
    }


def build_ncu_document(
    report: NcuReport,
    *,
    pattern: str | None = None,
    all_metrics: bool = False,
    hooks: tuple[KernelHook, ...] = (),
) -> dict[str, Any]:
    """The whole JSON document; ``hooks`` add fields to each kernel (diagnosis, roofline)."""
    kernels = []
    for kernel_id in selected_kernels(report, pattern):
        detail = report.detail(kernel_id)
        entry = kernel_dict(report, detail, all_metrics=all_metrics)
        for hook in hooks:
            hook(report, detail, entry)
        kernels.append(entry)
    return {"schema": SCHEMA, "report": report_dict(report), "kernels": kernels}
