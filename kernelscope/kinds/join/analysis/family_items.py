"""The rows of a join for the timeline's kernel families: a profiled family with the headroom
its kernel reports measure, or a family nobody profiled, whose possible gain is unknown.

A profiled family's headroom is its launches' headroom weighted by their durations
(``headroom.weighted``); the evidence names the longest launch's own reading (its distance to
the nearest ceiling, NCU's estimate) and, where the launches differ, their range, so the
family's number and the launch's are never read as one. Its flags are the longest
launch's, their severities weighed by the family's share of the run's kernel time
(``run_weight``: a kernel report's share is not the run's); its "next" is what that
diagnosis says to do first (``verdict.next_step``), so it cannot contradict the kernel's
Diagnosis pane beyond that weighing.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence

import polars as pl

from kernelscope.core.durations import fmt_ns
from kernelscope.core.shares import fmt_share
from kernelscope.kinds.join.analysis.duration_check import duration_check
from kernelscope.kinds.join.analysis.evidence import (
    FamilyHeadroom,
    JoinEvidence,
    LaunchCeiling,
    LaunchSpeedup,
    ProfiledLaunches,
    RangeCoverage,
    Representative,
)
from kernelscope.kinds.join.analysis.headroom import Headroom, launch_headroom, weighted
from kernelscope.kinds.join.analysis.item import RankedItem
from kernelscope.kinds.join.analysis.matching import LaunchMatch
from kernelscope.kinds.join.analysis.ncu_command import ncu_command
from kernelscope.kinds.join.analysis.run_weight import run_top_flag, run_weighed
from kernelscope.kinds.join.analysis.thresholds import JOIN_THRESHOLDS
from kernelscope.kinds.join.analysis.timeline_families import TimelineFamily, TimelineKernels
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel
from kernelscope.kinds.ncu.analysis.diagnosis.verdict import (
    flag_to_act_on,
    next_step,
    verdict_order,
)
from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport

TOP_FLAGS = 3
UNPROFILED_GAIN = ("not profiled: what fixing it could save is unknown until a launch is "
                   "profiled (the ncu command below); listed by its time, apart from the "
                   "ranking of measured headroom")


def _cv(values: Sequence[int]) -> float:
    if len(values) < 2:
        return 0.0
    mean = statistics.fmean(values)
    return statistics.stdev(values) / mean if mean else 0.0


def _headroom_evidence(analysed: Sequence[tuple[AnalyzedKernel, Headroom]],
                       family_headroom: float | None) -> list[JoinEvidence]:
    """The family's headroom (a duration-weighted mean) and the longest launch's readings."""
    lead_kernel, lead = max(analysed, key=lambda kh: kh[0].duration_ns or 0.0)
    out: list[JoinEvidence] = []
    known = [h.value for _, h in analysed if h.value is not None]
    if family_headroom is not None and len(known) > 1:
        out.append(FamilyHeadroom(family_headroom, len(known), min(known), max(known)))
    if lead.ceiling is not None:
        out.append(LaunchCeiling(lead_kernel.id, lead.ceiling_by, lead.ceiling))
    if lead.ncu_speedup is not None:
        capped = lead.ceiling is not None and lead.ncu_speedup > lead.ceiling
        out.append(LaunchSpeedup(lead.ncu_rule, lead.ncu_speedup, capped))
    return out


def _weak(family: TimelineFamily, matches: Sequence[LaunchMatch]) -> str | None:
    """Why the family's estimate is weak, when it is."""
    ranges = family.ranges()
    covered = Counter(family.nvtx[m.instance] for m in matches if m.instance is not None)
    weak = []
    per_launch = family.instances / max(1, len(matches))
    cv = max(_cv([d for d, r in zip(family.durations, family.nvtx, strict=True) if r == name])
             for name in ranges)
    if per_launch >= JOIN_THRESHOLDS.many_per_launch and cv > JOIN_THRESHOLDS.varying_cv:
        weak.append(f"{len(matches)} profiled launch(es) for {family.instances:,} instances "
                    f"whose durations vary ({fmt_ns(family.spread.min_ns)}–"
                    f"{fmt_ns(family.spread.max_ns)})")
    uncovered = [name for name in ranges if covered.get(name, 0) == 0]
    if uncovered and any(m.instance is not None for m in matches):
        lost = sum(ranges[n][1] for n in uncovered) / max(1, family.total_ns)
        weak.append(f"no profiled launch of the instances in {', '.join(str(u) for u in uncovered)}"
                    f" ({fmt_share(lost)} of the family's time)")
    if any(m.shape_differs for m in matches):
        weak.append("matched by name only: the profiled grid × block differs from the timeline's")
    return "; ".join(weak) or None


def _ranges_evidence(family: TimelineFamily, matches: Sequence[LaunchMatch]
                     ) -> list[JoinEvidence]:
    ranges = family.ranges()
    covered = Counter(family.nvtx[m.instance] for m in matches if m.instance is not None)
    if len(ranges) > 1 or (len(ranges) == 1 and None not in ranges):
        return [RangeCoverage(tuple((name, n, covered.get(name, 0))
                                    for name, (n, _) in ranges.items()))]
    return []


def profiled_item(family: TimelineFamily, matches: list[LaunchMatch],
                  reports: Sequence[AnalyzedReport], span: int,
                  migrations: pl.DataFrame) -> RankedItem:
    """The row of a family with profiled launches (``matches``); ``migrations`` are the
    timeline's unified-memory migrations (``duration_check``)."""
    labels: Counter[str] = Counter()
    analysed: list[tuple[AnalyzedKernel, Headroom]] = []
    for m in matches:
        k = reports[m.launch.report].kernel(m.launch.kernel_id)
        analysed.append((k, launch_headroom(k.summary.row, k.summary.rules, k.roofline)))
        labels[k.label] += int(k.duration_ns or 0) or 1  # (only the lead launch diagnosed)
    headroom = weighted([(h, k.duration_ns) for k, h in analysed])
    lead_kernel, lead = max(analysed, key=lambda kh: kh[0].duration_ns or 0.0)
    diagnosis = run_weighed(lead_kernel.diagnosis, family.time_share, family.instances)
    acted = flag_to_act_on(diagnosis)
    check = duration_check(family, [k.duration_ns for k, _ in analysed], migrations)
    applied = check is None or check.explained
    evidence = [ProfiledLaunches(len(matches), family.instances),
                *_headroom_evidence(analysed, headroom), *_ranges_evidence(family, matches)]
    return RankedItem(
        kind="kernel", family=family.name, title=family.short_name, total_ns=family.total_ns,
        instances=family.instances, time_share=family.time_share,
        wall_share=family.total_ns / span if span else None,
        potential_saving_ns=family.total_ns * (headroom or 0.0) if applied else None,
        headroom=headroom,
        headroom_source=lead.source, profiled=True,
        ncu_ids=tuple(sorted((m.launch.report, m.launch.kernel_id) for m in matches)),
        bottleneck=labels.most_common(1)[0][0] if labels else None,
        top_flags=tuple(verdict_order(diagnosis)[:TOP_FLAGS]), lead_flag=acted,
        top_flag=run_top_flag(diagnosis, family.time_share),
        evidence=tuple(evidence), weak=_weak(family, matches),
        remedy=(check.remedy if check else None) or next_step(diagnosis),
        grid=family.grid, block=family.block, nvtx=family.main_range,
        matched_by=matches[0].by, timeline_family=family.index, name=family.name,
        duration=check,
    )


def unprofiled_item(family: TimelineFamily, kernels: TimelineKernels, span: int,
                    program: str, stem: str, *, nvtx_ranges: bool = True) -> RankedItem:
    """The row of a family nobody profiled: its time, and the command to profile it
    (``nvtx_ranges``: as ``ncu_command`` takes it)."""
    command = ncu_command(family, kernels.families, program, f"{stem}_family{family.index}",
                          nvtx_ranges=nvtx_ranges)
    evidence = (
        family.spread,
        Representative(command.instance + 1, family.durations[command.instance], command.nvtx),
    )
    return RankedItem(
        kind="kernel", family=family.name, title=family.short_name, total_ns=family.total_ns,
        instances=family.instances, time_share=family.time_share,
        wall_share=family.total_ns / span if span else None,
        potential_saving_ns=None, headroom=None,
        headroom_source="not profiled", profiled=False,
        evidence=evidence, weak=UNPROFILED_GAIN, ncu_command=command.text,
        remedy="Profile a representative launch with the ncu command to see why it is slow.",
        grid=family.grid, block=family.block, nvtx=family.main_range,
        timeline_family=family.index, name=family.name,
    )
