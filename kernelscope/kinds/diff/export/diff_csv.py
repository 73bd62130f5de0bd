"""A diff as CSV: for kernel reports one row per pair (then the unmatched kernels) with every
compared metric before and after; for timelines one row per compared group, ``table`` saying
which (family, api, gap, nvtx, copy, finding)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kernelscope.export.csv_text import csv_text
from kernelscope.kinds.diff.analysis.kernels import KernelDiff
from kernelscope.kinds.ncu.analysis.metric_changes import DIFF_METRIC_NAMES, TimeChange

if TYPE_CHECKING:
    from kernelscope.kinds.diff.analysis.timelines import TimelineDiff
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel
from kernelscope.kinds.ncu.analysis.kernel_analysis import measured_duration

KERNEL_COLUMNS = ("id", "name", "duration_ns", "bottleneck", "flags")


def _side(kernel: AnalyzedKernel | None) -> list[object]:
    if kernel is None:
        return [None] * len(KERNEL_COLUMNS)
    label, flags, _ = kernel.outline()
    return [kernel.id, kernel.summary.identity.function, measured_duration(kernel.summary),
            label, " ".join(flags)]


def kernel_diff_csv(diff: KernelDiff) -> str:
    header = [
        *(f"before_{c}" for c in KERNEL_COLUMNS), *(f"after_{c}" for c in KERNEL_COLUMNS),
        "matched_by", "speedup", "change_pct", "label_change", "flags_resolved", "flags_new",
        *(f"{name}:{side}" for name in DIFF_METRIC_NAMES for side in ("before", "after")),
    ]
    rows: list[list[object]] = []
    for p in diff.pairs:
        values = {m.name: (m.before, m.after) for m in p.metrics}
        rows.append([
            *_side(p.before), *_side(p.after), p.matched_by, p.speedup, p.change_pct,
            p.label_change, " ".join(p.flags_resolved), " ".join(p.flags_new),
            *(v for name in DIFF_METRIC_NAMES for v in values.get(name, (None, None))),
        ])
    blank = [None] * (len(header) - 2 * len(KERNEL_COLUMNS) - 1)
    for k in diff.unmatched_before:
        rows.append([*_side(k), *_side(None), "unmatched", *blank])
    for k in diff.unmatched_after:
        rows.append([*_side(None), *_side(k), "unmatched", *blank])
    return csv_text(header, rows)


TIMELINE_HEADER = ("table", "name", "before_count", "after_count", "before_ns", "after_ns",
                   "change_pct", "status")


def _time_rows(table: str, rows: Iterable[TimeChange]) -> list[list[object]]:
    return [[table, r.name, r.before_count, r.after_count, r.before_ns, r.after_ns,
             r.change_pct, r.status] for r in rows]


def timeline_diff_csv(diff: TimelineDiff) -> str:
    old, new = diff.busy.before, diff.busy.after
    rows: list[list[object]] = [
        ["gpu", "busy", None, None, old.busy_ns, new.busy_ns, None, ""],
        ["gpu", "span", None, None, old.span_ns, new.span_ns, None, ""],
        *_time_rows("family", diff.families),
        *_time_rows("api", diff.api),
        *_time_rows("gap", diff.gaps),
        *_time_rows("nvtx", diff.nvtx),
        *_time_rows("copy", diff.copies),
        *([["finding", f.id, f.before_items, f.after_items, None, None, None, f.status]
           for f in diff.findings]),
    ]
    return csv_text(TIMELINE_HEADER, rows)


def render_diff_csv(diff: KernelDiff | TimelineDiff) -> str:
    if isinstance(diff, KernelDiff):
        return kernel_diff_csv(diff)
    return timeline_diff_csv(diff)
