"""The ``kernelscope/diff/1`` JSON document of a diff (see the issue's contract in
docs/architecture.md): the two inputs, the matched pairs, the unmatched kernels, the families,
and for timelines GPU busy, gaps, NVTX, copies, findings and API calls."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kernelscope.export import json_text
from kernelscope.kinds.diff.analysis.kernels import KernelDiff, KernelPair
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel
from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport, measured_duration

if TYPE_CHECKING:
    from kernelscope.kinds.diff.analysis.timelines import TimelineDiff
    from kernelscope.timeline.analysis.timeline_data import TimelineData

SCHEMA = "kernelscope/diff/1"


def kernel_entry(kernel: AnalyzedKernel) -> dict[str, Any]:
    identity = kernel.summary.identity
    label, flags, _ = kernel.outline()
    return {
        "id": kernel.id,
        "name": identity.function,
        "demangled": identity.name,
        "grid": identity.grid_text,
        "block": identity.block_text,
        "duration_ns": measured_duration(kernel.summary),
        "bottleneck": label,
        "flags": list(flags),
    }


def pair_entry(pair: KernelPair) -> dict[str, Any]:
    roofline = {
        key: {"before": old.to_dict() if old else None, "after": new.to_dict() if new else None}
        for key, (old, new) in pair.roofline_points().items()
    }
    return {
        "before": kernel_entry(pair.before),
        "after": kernel_entry(pair.after),
        "matched_by": pair.matched_by,
        "speedup": pair.speedup,
        "change_pct": pair.change_pct,
        "label_change": pair.label_change,
        "flags_resolved": list(pair.flags_resolved),
        "flags_new": list(pair.flags_new),
        "metrics": {m.name: m.to_dict() for m in pair.metrics},
        "roofline": roofline,
    }


def _ncu_side(report: AnalyzedReport, total: float) -> dict[str, Any]:
    device = report.report.device
    return {
        "path": str(report.report.path),
        "kernels": report.report.kernel_count,
        "device": device.name,
        "summed_ns": total,
    }


def _nsys_side(data: TimelineData, total: float) -> dict[str, Any]:
    report = data.report
    return {
        "path": str(data.path),
        "span_ns": report.duration_ns,
        "kernels": report.kernels.height,
        "summed_ns": total,
    }


def diff_json_pieces(diff: KernelDiff | TimelineDiff) -> Iterator[str]:
    """The JSON text of :func:`build_diff_document` (as ``json.dumps(json_safe(...),
    indent=2)`` writes it, with its final newline) in pieces, a kernel pair at a time: two
    8,676-launch reports make 8,676 pairs, whose dicts are never all built at once. A pair's
    entry may read its kernels: consume the pieces while the reports are open."""
    doc = build_diff_document(diff, pairs=False)
    pairs = diff.pairs if isinstance(diff, KernelDiff) else ()
    yield from json_text.document_pieces(doc, {"pairs": (pair_entry(p) for p in pairs)})
    yield "\n"


def build_diff_document(diff: KernelDiff | TimelineDiff, *, pairs: bool = True) -> dict[str, Any]:
    """The whole diff as one JSON-serialisable dict (``pairs=False``: the kernel pairs left
    out, an empty list in their place)."""
    headline = diff.summed
    devices = diff.devices
    summed = {**headline.to_dict(), "filter": diff.pattern, "across_gpus": not devices.same}
    if isinstance(diff, KernelDiff):
        return {
            "schema": SCHEMA,
            "kind": "ncu",
            "before": _ncu_side(diff.before, headline.before_ns),
            "after": _ncu_side(diff.after, headline.after_ns),
            "summed": summed,
            "devices": devices.to_dict(),
            "pairs": [pair_entry(p) for p in diff.pairs] if pairs else [],
            "unmatched_before": [kernel_entry(k) for k in diff.unmatched_before],
            "unmatched_after": [kernel_entry(k) for k in diff.unmatched_after],
            "families": [f.to_dict() for f in diff.families],
        }
    from kernelscope.kinds.diff.analysis.timelines import appeared, vanished

    return {
        "schema": SCHEMA,
        "kind": "nsys",
        "before": _nsys_side(diff.before, headline.before_ns),
        "after": _nsys_side(diff.after, headline.after_ns),
        "summed": summed,
        "devices": devices.to_dict(),
        "pairs": [],
        "unmatched_before": [f.name for f in vanished(diff.families)],
        "unmatched_after": [f.name for f in appeared(diff.families)],
        "families": [f.to_dict() for f in diff.families],
        "gpu": diff.busy.to_dict(),
        "gaps": [g.to_dict() for g in diff.gaps],
        "nvtx": [r.to_dict() for r in diff.nvtx],
        "copies": [c.to_dict() for c in diff.copies],
        "findings": [f.to_dict() for f in diff.findings],
        "api": [a.to_dict() for a in diff.api],
        "launches": {
            "calls": [a.to_dict() for a in diff.launch_calls],
            "api_appeared": [a.name for a in appeared(diff.api)],
            "api_vanished": [a.name for a in vanished(diff.api)],
            "kernels_appeared": [f.name for f in appeared(diff.families)],
            "kernels_vanished": [f.name for f in vanished(diff.families)],
        },
    }
