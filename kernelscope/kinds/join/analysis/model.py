"""The join of a timeline with kernel reports: what to fix first, and what it is worth.

``build_join`` matches every profiled kernel to its timeline family (``matching``), weighs each
family's share of the timeline by the headroom its kernel report shows (``headroom``), adds
the time no kernel can save (``idle``), and ranks it by the time fixing it could save. A
family nobody profiled has no measured headroom: what fixing it could save is unknown, so it
is never ranked among the measured items; the unprofiled families are listed apart, by their
time, each with the ``ncu`` command that would profile it (``ncu_command``). Plain objects
only: the exports, the summary and the TUI render the same :class:`JoinReport`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernelscope.kinds.join.analysis.family_items import profiled_item, unprofiled_item
from kernelscope.kinds.join.analysis.idle import IdleItem, idle_items
from kernelscope.kinds.join.analysis.item import RankedItem
from kernelscope.kinds.join.analysis.matching import (
    Matches,
    ProfiledLaunch,
    UnmatchedLaunch,
    match_launches,
)
from kernelscope.kinds.join.analysis.measured_peaks import joined_efficiency
from kernelscope.kinds.join.analysis.shape_estimate import with_shape_estimate
from kernelscope.kinds.join.analysis.step_saving import with_step_savings
from kernelscope.kinds.join.analysis.timeline_families import TimelineKernels, timeline_families
from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport
from kernelscope.timeline.analysis.op_efficiency import OpEfficiency
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.analysis.unified_memory import unified_migrations
from kernelscope.timeline.model.profilers import KINETO, NSYS

__all__ = ["SCHEMA", "JoinReport", "KernelReportInfo", "RankedItem", "build_join"]

SCHEMA = "kernelscope/join/2"


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
    """Profiled families and non-kernel time, by what fixing them could save."""
    unprofiled: tuple[RankedItem, ...]
    """Families nobody profiled (gain unknown), by their total time."""
    unmatched: tuple[UnmatchedLaunch, ...]
    kernels: TimelineKernels
    matches: Matches
    span_ns: int
    busy_ns: int
    program: str
    notes: tuple[str, ...] = field(default=())
    op_efficiency: OpEfficiency | None = None
    """The timeline's operators against the kernel reports' measured ceilings, where the
    timeline records shapes (``measured_peaks``)."""
    profiler: str = NSYS
    """Which profiler wrote the timeline (``timeline/model/profilers.py``), for its words."""

    @property
    def nothing_matched(self) -> bool:
        """True when no profiled kernel matches a kernel of the timeline."""
        return not self.matches.matched

    def to_dict(self) -> dict[str, Any]:
        """The JSON export (``kernelscope/join/2``)."""
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
            "kernels_matched": len(self.matches.matched),
            "no_kernel_matched": self.nothing_matched,
            "kernel_reports": [
                {"path": str(r.path), "kernels": r.kernels, "matched": r.matched,
                 "device": r.device}
                for r in self.kernel_reports
            ],
            "ranking": [item.to_dict() for item in self.ranking],
            "unprofiled": [item.to_dict() for item in self.unprofiled],
            "unmatched_kernels": [
                {"report": u.launch.report, "id": u.launch.kernel_id, "name": u.launch.name,
                 "demangled": u.launch.demangled, "grid": u.launch.grid,
                 "block": u.launch.block, "duration_ns": u.launch.duration_ns,
                 "reason": u.reason}
                for u in self.unmatched
            ],
            "notes": list(self.notes),
            **self._op_efficiency_doc(),
        }

    def _op_efficiency_doc(self) -> dict[str, Any]:
        """The timeline export's members ``op_efficiency``, ``mfu`` and
        ``op_efficiency_basis``, against the measured ceilings; none without shapes."""
        if self.op_efficiency is None:
            return {}
        doc = self.op_efficiency.to_dict()
        return {"op_efficiency": doc.pop("op_efficiency"), "mfu": doc.pop("mfu"),
                "op_efficiency_basis": doc}


def profiled_launches(index: int, analyzed: AnalyzedReport) -> list[ProfiledLaunch]:
    out = []
    for k in analyzed.kernels:
        identity = k.summary.identity
        if not k.summary.measured:
            continue
        nvtx = k.summary.nvtx
        out.append(ProfiledLaunch(
            report=index, kernel_id=k.id, name=identity.function,
            demangled=identity.name,
            mangled=identity.mangled,
            grid=identity.grid_text, block=identity.block_text,
            duration_ns=k.duration_ns, nvtx=nvtx if isinstance(nvtx, str) else None,
        ))
    return out


_SOURCES = {"copies": "copy time", "unified-memory": "migration time"}


def _idle_item(item: IdleItem, span: int) -> RankedItem:
    weak = "upper bound: all of this time, as if the GPU never waited"
    if item.cause == "copies":
        weak = "upper bound: as if no copy were needed"
    if item.cause == "unified-memory":
        weak = "upper bound: as if every page were on the GPU before its kernel ran"
    return RankedItem(
        kind="idle", family=item.cause, title=item.title, total_ns=item.total_ns,
        instances=item.count, time_share=None,
        wall_share=item.total_ns / span if span else None,
        potential_saving_ns=float(item.total_ns), headroom=1.0,
        headroom_source=_SOURCES.get(item.cause, "idle time"),
        profiled=False, bottleneck=item.cause, evidence=item.evidence,
        weak=weak + ("; one-time: a longer run amortises it, ranked after the per-step items"
                     if item.one_time else ""),
        remedy=item.remedy, one_time=item.one_time, nvtx=item.range, gap=item.longest,
    )


def rank(items: Sequence[RankedItem]) -> tuple[RankedItem, ...]:
    """By potential saving, most first; one-time costs after every per-step item."""
    return tuple(sorted(items, key=lambda i: (i.one_time, -(i.potential_saving_ns or 0.0),
                                              -i.total_ns, i.family)))


def by_time(items: Sequence[RankedItem]) -> tuple[RankedItem, ...]:
    """By total time, most first (the families nobody profiled: their gain is unknown)."""
    return tuple(sorted(items, key=lambda i: (-i.total_ns, i.family)))


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
    migrations = unified_migrations(report)
    names = {f.index: f.name for f in kernels.families}
    efficiency = joined_efficiency(timeline.op_efficiency, reports, [
        (m.launch.report, m.launch.kernel_id, names[m.family], m.launch.duration_ns)
        for m in matches.matched])
    items: list[RankedItem] = []
    unprofiled: list[RankedItem] = []
    for family in kernels.families:
        found = matches.of_family(family.index)
        if found:
            items.append(profiled_item(family, found, analysed, span, migrations))
        else:
            unprofiled.append(with_shape_estimate(unprofiled_item(
                family, kernels, span, program, stem, nvtx_ranges=report.profiler != KINETO),
                efficiency))
    nvtx_at = {
        (int(dev), int(start)): name
        for dev, start, name in zip(
            report.kernels["device_id"].to_list(), report.kernels["start"].to_list(),
            _kernel_nvtx(kernels, report), strict=True)
    }
    saved = with_step_savings(timeline, [*items, *unprofiled], kernels)
    items, unprofiled = saved[:len(items)], saved[len(items):]
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
    return JoinReport(timeline.path, infos, rank(items), by_time(unprofiled), matches.unmatched,
                      kernels, matches, span, busy, program, tuple(notes),
                      efficiency if efficiency.available else None, report.profiler)


def _kernel_nvtx(kernels: TimelineKernels, report: Any) -> list[str | None]:
    """Each kernel row's NVTX range, in ``report.kernels`` order (through the families)."""
    at: dict[int, str | None] = {}
    for f in kernels.families:
        for s, n in zip(f.starts, f.nvtx, strict=True):
            at.setdefault(s, n)
    return [at.get(int(s)) for s in report.kernels["start"].to_list()]
