"""The join of a timeline with kernel reports: what to fix first, and what it is worth.

``build_join`` matches every profiled kernel to its timeline family (``matching``), weighs each
family's share of the timeline by the headroom its kernel report shows (``headroom``), adds
the time no kernel can save (``idle``) and the ``ncu`` command for families nobody profiled
(``ncu_command``), and ranks it all by the time fixing it could save. Plain objects only: the
exports, the summary and the TUI render the same :class:`JoinReport`.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernelscope.parsers.diagnosis.verdict import top_flag
from kernelscope.parsers.join.headroom import Headroom, launch_headroom, weighted
from kernelscope.parsers.join.idle import IdleItem, idle_items
from kernelscope.parsers.join.matching import LaunchMatch, Matches, ProfiledLaunch, match_launches
from kernelscope.parsers.join.ncu_command import ncu_command
from kernelscope.parsers.join.timeline_families import (
    TimelineFamily,
    TimelineKernels,
    timeline_families,
)
from kernelscope.parsers.kernel_analysis import AnalyzedKernel, AnalyzedReport
from kernelscope.parsers.nsys.timeline_data import TimelineData
from kernelscope.parsers.severity import severity_rank

SCHEMA = "kernelscope/join/1"
MANY_PER_LAUNCH = 10
"""Instances per profiled launch from which a family's varying durations weaken the estimate."""
VARYING_CV = 0.25
"""Coefficient of variation of instance durations above which they count as varying."""
TOP_FLAGS = 3


@dataclass(frozen=True)
class RankedItem:
    """One row of the ranking: a kernel family of the timeline, or non-kernel time."""

    kind: str
    """``kernel`` or ``idle``."""
    family: str
    """The kernel's demangled name; for non-kernel time, its cause (``launch-overhead``)."""
    title: str
    """A short label: the kernel's function name, or what the time is."""
    total_ns: int
    instances: int
    time_share: float | None
    """Share of the timeline's summed kernel time (kernels only)."""
    wall_share: float | None
    """Share of the timeline's GPU span (first to last operation)."""
    potential_saving_ns: float
    headroom: float | None
    headroom_source: str
    profiled: bool
    ncu_ids: tuple[tuple[int, int], ...] = ()
    bottleneck: str | None = None
    top_flags: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()
    weak: str | None = None
    """Why the estimate is weak, when it is."""
    ncu_command: str | None = None
    remedy: str | None = None
    one_time: bool = False
    grid: str | None = None
    block: str | None = None
    nvtx: str | None = None
    matched_by: str | None = None
    timeline_family: int | None = None
    gap: tuple[int, int, int] | None = None
    """(device, start, end) of the longest gap, for non-kernel time."""
    name: str | None = None
    """The demangled name as ``nsys stats`` prints it (kernels)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "family": self.family,
            "title": self.title,
            "time_share": self.time_share,
            "wall_share": self.wall_share,
            "instances": self.instances,
            "total_ns": self.total_ns,
            "profiled": self.profiled,
            "ncu_ids": [list(i) for i in self.ncu_ids],
            "bottleneck": self.bottleneck,
            "top_flags": list(self.top_flags),
            "headroom": self.headroom,
            "headroom_source": self.headroom_source,
            "potential_saving_ns": self.potential_saving_ns,
            "weak_estimate": self.weak,
            "evidence": list(self.evidence),
            "remedy": self.remedy,
            "one_time": self.one_time,
            "grid": self.grid,
            "block": self.block,
            "nvtx_range": self.nvtx,
            "matched_by": self.matched_by,
            **({"ncu_command": self.ncu_command} if not self.profiled and self.kind == "kernel"
               else {}),
        }


@dataclass(frozen=True)
class KernelReportInfo:
    path: Path
    kernels: int
    matched: int
    device: str


@dataclass(frozen=True)
class JoinReport:
    timeline_path: Path
    kernel_reports: tuple[KernelReportInfo, ...]
    ranking: tuple[RankedItem, ...]
    unmatched: tuple[ProfiledLaunch, ...]
    kernels: TimelineKernels
    matches: Matches
    span_ns: int
    busy_ns: int
    program: str
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """The JSON export (``kernelscope/join/1``)."""
        return {
            "schema": SCHEMA,
            "timeline": {
                "path": str(self.timeline_path),
                "kernels": sum(f.instances for f in self.kernels.families),
                "families": len(self.kernels.families),
                "total_kernel_ns": self.kernels.total_ns,
                "gpu_span_ns": self.span_ns,
                "gpu_busy_ns": self.busy_ns,
                "program": self.program,
            },
            "kernel_reports": [
                {"path": str(r.path), "kernels": r.kernels, "matched": r.matched,
                 "device": r.device}
                for r in self.kernel_reports
            ],
            "ranking": [item.to_dict() for item in self.ranking],
            "unmatched_kernels": [
                {"report": u.report, "id": u.kernel_id, "name": u.name,
                 "demangled": u.demangled, "grid": u.grid, "block": u.block,
                 "duration_ns": u.duration_ns,
                 "reason": "no kernel of this name on the timeline"}
                for u in self.unmatched
            ],
            "notes": list(self.notes),
        }


def profiled_launches(index: int, analyzed: AnalyzedReport) -> list[ProfiledLaunch]:
    out = []
    for k in analyzed.kernels:
        row = k.summary.row
        if not k.summary.measured:
            continue
        nvtx = k.summary.nvtx
        out.append(ProfiledLaunch(
            report=index, kernel_id=k.id, name=str(row.get("name", "")),
            demangled=str(row.get("demangled") or row.get("name", "")),
            mangled=k.summary.mangled,
            grid=str(row.get("grid", "")), block=str(row.get("block", "")),
            duration_ns=k.duration_ns, nvtx=nvtx if isinstance(nvtx, str) else None,
        ))
    return out


def _cv(values: Sequence[int]) -> float:
    if len(values) < 2:
        return 0.0
    mean = statistics.fmean(values)
    return statistics.stdev(values) / mean if mean else 0.0


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _kernel_item(family: TimelineFamily, matches: list[LaunchMatch],
                 reports: Sequence[AnalyzedReport], span: int, shortest: int) -> RankedItem:
    pairs: list[tuple[Headroom, float | None]] = []
    labels: Counter[str] = Counter()
    analysed: list[tuple[AnalyzedKernel, Headroom]] = []
    for m in matches:
        k = reports[m.launch.report].kernel(m.launch.kernel_id)
        h = launch_headroom(k.summary.row, k.summary.rules, k.diagnosis.roofline)
        pairs.append((h, k.duration_ns))
        labels[k.diagnosis.label] += int(k.duration_ns or 0) or 1
        analysed.append((k, h))
    headroom = weighted(pairs)
    lead_kernel, lead = max(analysed, key=lambda kh: kh[0].duration_ns or 0.0)
    flags = sorted(lead_kernel.diagnosis.flags,
                   key=lambda f: (-severity_rank(f.severity), f.level))
    first = top_flag(lead_kernel.diagnosis)
    ordered = ([first] if first else []) + [f for f in flags if f is not first]
    evidence = [f"{len(matches)} profiled launch(es) of {family.instances:,} on the timeline"]
    if lead.ceiling is not None:
        evidence.append(f"{lead.ceiling_by} {_pct(1 - lead.ceiling)} of peak "
                        f"(kernel {lead_kernel.id}): {_pct(lead.ceiling)} from the ceiling")
    if lead.ncu_speedup is not None:
        evidence.append(f"NCU {lead.ncu_rule}: est. speedup {_pct(lead.ncu_speedup)}")
    ranges = family.ranges()
    covered = Counter(family.nvtx[m.instance] for m in matches if m.instance is not None)
    if len(ranges) > 1 or (len(ranges) == 1 and None not in ranges):
        evidence.append("on the timeline: " + ", ".join(
            f"{name or 'no range'} {n:,}× ({covered.get(name, 0)} profiled)"
            for name, (n, _) in ranges.items()))
    weak = []
    per_launch = family.instances / max(1, len(matches))
    cv = max(_cv([d for d, r in zip(family.durations, family.nvtx, strict=True) if r == name])
             for name in ranges)
    if per_launch >= MANY_PER_LAUNCH and cv > VARYING_CV:
        weak.append(f"{len(matches)} profiled launch(es) for {family.instances:,} instances "
                    f"whose durations vary ({family.min_ns:,}–{family.max_ns:,} ns)")
    uncovered = [name for name in ranges if covered.get(name, 0) == 0]
    if uncovered and any(m.instance is not None for m in matches):
        lost = sum(ranges[n][1] for n in uncovered) / max(1, family.total_ns)
        weak.append(f"no profiled launch of the instances in {', '.join(str(u) for u in uncovered)}"
                    f" ({_pct(lost)} of the family's time)")
    if any(m.shape_differs for m in matches):
        weak.append("matched by name only: the profiled grid × block differs from the timeline's")
    saving = family.total_ns * (headroom or 0.0)
    return RankedItem(
        kind="kernel", family=family.name, title=family.short_name, total_ns=family.total_ns,
        instances=family.instances, time_share=family.time_share,
        wall_share=family.total_ns / span if span else None,
        potential_saving_ns=saving, headroom=headroom, headroom_source=lead.source,
        profiled=True,
        ncu_ids=tuple(sorted((m.launch.report, m.launch.kernel_id) for m in matches)),
        bottleneck=labels.most_common(1)[0][0] if labels else None,
        top_flags=tuple(f"{f.id} ({f.severity})" for f in ordered[:TOP_FLAGS]),
        evidence=tuple(evidence), weak="; ".join(weak) or None,
        remedy=first.remedy if first else None,
        grid=family.grid, block=family.block, nvtx=family.main_range,
        matched_by=matches[0].by, timeline_family=family.index, name=family.name,
    )


def _unprofiled_item(family: TimelineFamily, kernels: TimelineKernels, span: int,
                     program: str, stem: str) -> RankedItem:
    bound = max(0, family.total_ns - family.instances * kernels.shortest_ns)
    command = ncu_command(family, kernels.families, program, f"{stem}_family{family.index}")
    evidence = (
        f"{family.instances:,} instances, median {family.median_ns:,.0f} ns "
        f"({family.min_ns:,}–{family.max_ns:,} ns)",
        f"representative: instance {command.instance + 1:,} "
        f"({family.durations[command.instance]:,} ns"
        + (f", in {command.nvtx}" if command.nvtx else "") + ")",
    )
    return RankedItem(
        kind="kernel", family=family.name, title=family.short_name, total_ns=family.total_ns,
        instances=family.instances, time_share=family.time_share,
        wall_share=family.total_ns / span if span else None,
        potential_saving_ns=float(bound), headroom=None,
        headroom_source="not profiled", profiled=False,
        evidence=evidence,
        weak=("not profiled: the saving is a bound, every launch as short as the shortest "
              f"kernel on this timeline ({kernels.shortest_ns:,} ns)"),
        ncu_command=command.text,
        remedy="Profile a representative launch with the ncu command to see why it is slow.",
        grid=family.grid, block=family.block, nvtx=family.main_range,
        timeline_family=family.index, name=family.name,
    )


def _idle_item(item: IdleItem, span: int) -> RankedItem:
    weak = "upper bound: all of this time, as if the GPU never waited"
    if item.cause == "copies":
        weak = "upper bound: as if no copy were needed"
    return RankedItem(
        kind="idle", family=item.cause, title=item.title, total_ns=item.total_ns,
        instances=item.count, time_share=None,
        wall_share=item.total_ns / span if span else None,
        potential_saving_ns=float(item.total_ns), headroom=1.0,
        headroom_source="idle time" if item.cause != "copies" else "copy time",
        profiled=False, bottleneck=item.cause, evidence=item.evidence,
        weak=weak + ("; one-time: a longer run amortises it, ranked after the per-step items"
                     if item.one_time else ""),
        remedy=item.remedy, one_time=item.one_time, nvtx=item.range, gap=item.longest,
    )


def rank(items: Sequence[RankedItem]) -> tuple[RankedItem, ...]:
    """By potential saving, most first; one-time costs after every per-step item."""
    return tuple(sorted(items, key=lambda i: (i.one_time, -i.potential_saving_ns,
                                              -i.total_ns, i.family)))


def build_join(
    timeline: TimelineData,
    reports: Sequence[tuple[Path, AnalyzedReport]],
) -> JoinReport:
    """The join of ``timeline`` with the kernel ``reports`` (see the module docstring)."""
    report = timeline.report
    kernels = timeline_families(report)
    launches = [la for i, (_, a) in enumerate(reports) for la in profiled_launches(i, a)]
    matches = match_launches(launches, kernels)
    util = timeline.utilization
    span = int(util["span_ns"].sum() or 0) if util.height else 0
    busy = int(util["busy_ns"].sum() or 0) if util.height else 0
    program = next((p.name for p in report.processes
                    if any(pid == p.pid for f in kernels.families for pid in f.pids[:1])),
                   report.processes[0].name if report.processes else "")
    analysed = [a for _, a in reports]
    stem = timeline.path.name.split(".")[0] or "join"
    items: list[RankedItem] = []
    for family in kernels.families:
        found = matches.of_family(family.index)
        if found:
            items.append(_kernel_item(family, found, analysed, span, kernels.shortest_ns))
        else:
            items.append(_unprofiled_item(family, kernels, span, program, stem))
    nvtx_at = {
        (int(dev), int(start)): name
        for dev, start, name in zip(
            report.kernels["device_id"].to_list(), report.kernels["start"].to_list(),
            _kernel_nvtx(kernels, report), strict=True)
    }
    items.extend(_idle_item(i, span) for i in idle_items(timeline, nvtx_at))
    infos = tuple(
        KernelReportInfo(path, len(a.kernels),
                         sum(1 for m in matches.matched if m.launch.report == i),
                         a.report.device.name if a.kernels else "")
        for i, (path, a) in enumerate(reports)
    )
    notes = []
    if not matches.matched:
        notes.append("No profiled kernel matches a kernel of the timeline: are they of the "
                     "same program?")
    return JoinReport(timeline.path, infos, rank(items), matches.unmatched, kernels, matches,
                      span, busy, program, tuple(notes))


def _kernel_nvtx(kernels: TimelineKernels, report: Any) -> list[str | None]:
    """Each kernel row's NVTX range, in ``report.kernels`` order (through the families)."""
    at: dict[int, str | None] = {}
    for f in kernels.families:
        for s, n in zip(f.starts, f.nvtx, strict=True):
            at.setdefault(s, n)
    return [at.get(int(s)) for s in report.kernels["start"].to_list()]
