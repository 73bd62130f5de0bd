"""The kernel report as Markdown: a header, a kernels table, the roofline, and one case record
per kernel following the methodology notes' record template."""

from __future__ import annotations

from collections.abc import Sequence

from kernelscope.core.bundled import is_bundled_sample, shown_path
from kernelscope.core.durations import fmt_duration
from kernelscope.core.errors import safe_text
from kernelscope.core.kernel_identity import process_text
from kernelscope.core.kernel_names import ShortNames, fit_name, short_name
from kernelscope.core.shares import fmt_share
from kernelscope.core.words import plural
from kernelscope.export.markdown import BLANK, code, fenced, inline, table
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel
from kernelscope.kinds.ncu.analysis.diagnosis import Diagnosis
from kernelscope.kinds.ncu.analysis.families import KernelFamily, ReportFamilies, ids_text
from kernelscope.kinds.ncu.analysis.kernel_analysis import AnalyzedReport, diagnose_detail
from kernelscope.kinds.ncu.analysis.roofline import PRECISION_TITLES, time_weighted_precision
from kernelscope.kinds.ncu.export.ncu_record_sections import (
    compute_section,
    diagnosis_section,
    launch_section,
    memory_section,
    occupancy_section,
    scheduler_section,
    sol_section,
    source_section,
)
from kernelscope.kinds.ncu.model import (
    DeviceInfo,
    KernelDetail,
    KernelSummary,
    NcuReport,
)
from kernelscope.kinds.ncu.model.measured import NOT_MEASURED
from kernelscope.kinds.ncu.model.summary_reader import summary_from_detail
from kernelscope.kinds.ncu.render.families import (
    family_ids,
    family_label,
    launch_shape,
    spread,
    spread_note,
    tally,
)
from kernelscope.kinds.ncu.render.flag_cells import flag_cell
from kernelscope.kinds.ncu.render.roofline import ChartKernel, render_roofline


def _header(analyzed: AnalyzedReport) -> list[str]:
    report = analyzed.report
    dev = report.device
    attrs = dev.attributes
    clock = attrs.get("device__attribute_clock_rate")
    mem_clock = attrs.get("device__attribute_memory_clock_rate")
    clocks = []
    if isinstance(clock, (int, float)):
        clocks.append(f"SM clock {clock / 1e6:.2f} GHz")
    if isinstance(mem_clock, (int, float)):
        clocks.append(f"memory clock {mem_clock / 1e6:.2f} GHz")
    lines = [
        f"# Kernel report: {inline(safe_text(report.path.name))}",
        "",
        f"- Report file: {code(shown_path(report.path))}"
        + (" (the sample bundled with kernelscope)" if is_bundled_sample(report.path) else ""),
        f"- Device: {inline(dev.name)}, compute capability {dev.compute_capability}, "
        f"{dev.sm_count if dev.sm_count is not None else '?'} SMs"
        + (f", {', '.join(clocks)}" if clocks else ""),
        f"- Taken with: Nsight Compute {inline(report.ncu_version or 'unknown')}"
        + (f", CUDA {inline(report.cuda_version)}" if report.cuda_version else ""),
        f"- Read with: {inline(report.version or 'unknown')}",
        f"- Kernels: {plural(report.kernel_count, 'launch', 'launches')} of "
        f"{plural(len(analyzed.families), 'kernel family', 'kernel families')}, summed duration "
        + (fmt_duration(analyzed.total_ns) if analyzed.total_text_ns is not None else NOT_MEASURED),
        f"- Sections collected: {', '.join(sorted(analyzed.sections)) or 'none'}",
    ]
    if analyzed.unmeasured:
        lines.append(
            f"- Not measured (left out of the summed duration): "
            f"{plural(analyzed.unmeasured, 'kernel')}"
        )
    if len(report.processes) > 1:
        listed = ", ".join(f"{inline(p.short_name or '?')} ({p.pid})" for p in report.processes)
        lines.append(f"- Processes: {listed}")
    lines.extend(f"- Note: {inline(note)}" for note in report.notes)
    lines.append("")
    return lines


FAMILY_COLUMNS = (
    "#",
    "Kernel",
    "Launches",
    "IDs",
    "Total",
    "Share",
    "Duration: median (min – max)",
    "Bottleneck",
    "Top flag",
)


def family_labels(analyzed: AnalyzedReport, family: KernelFamily) -> list[str]:
    """The bottleneck label of each launch of ``family``."""
    return analyzed.family_labels(family)


def _families_table(analyzed: AnalyzedReport, processes: bool = False) -> str:
    """One row per family, ranked by total time (the method's step 0); with ``processes``, the
    process of each family's median launch."""
    rows = []
    for f in analyzed.select_families():
        k = analyzed.kernel(f.representative)
        who = (process_text(k.summary.identity),) if processes else ()
        rows.append(
            (
                f.index + 1,
                *who,
                f.label(analyzed.names[f.demangled]),
                f.count,
                family_ids(f),
                fmt_duration(f.total_duration_ns) if f.measured else NOT_MEASURED,
                fmt_share(f.time_share),
                spread(f),
                family_label(family_labels(analyzed, f), k.diagnosis.label),
                flag_cell(k),
            )
        )
    head = (FAMILY_COLUMNS[0], *(("Process",) if processes else ()), *FAMILY_COLUMNS[1:])
    return table(head, rows, align="r" + ("l" if processes else "") + "lrlrrrll")


def report_precision(analyzed: AnalyzedReport) -> tuple[str, float | None]:
    """The roofline precision of the report: the one its kernel time is spent in most (each
    kernel counted at the precision it does most of its work in), and that share (0–1)."""
    return time_weighted_precision(
        [(k.roofline, k.duration_ns) for k in analyzed.kernels]
    )


def _roofline(analyzed: AnalyzedReport, kernels: list[AnalyzedKernel]) -> list[str]:
    chart_kernels = [
        ChartKernel(k.id, fit_name(analyzed.short_name(k), 24), k.roofline)
        for k in analyzed.kernels
    ]
    selected = kernels[0].id if len(kernels) == 1 else None
    precision, share = report_precision(analyzed)
    title = PRECISION_TITLES.get(precision, precision)
    chart = render_roofline(chart_kernels, precision=precision, selected=selected, color=False)
    why = (
        f"{title} is the precision of the kernels that hold {fmt_share(share)} of the kernel "
        "time (each kernel counted at the precision it does most of its work in)."
        if share is not None
        else f"{title}: no kernel has a point (the list below says why of each)."
    )
    out = [f"## Roofline ({title}, DRAM)", "", why, "", fenced(chart.text), ""]
    if chart.not_plotted:
        # One line per family and reason, not one per launch.
        grouped: dict[tuple[int, str], list[int]] = {}
        for kid, _name, reason in chart.not_plotted:
            family = analyzed.family(kid)
            key = (family.index if family is not None else -1 - kid, reason)
            grouped.setdefault(key, []).append(kid)
        out.append("Kernels without a point on this chart:")
        out.append("")
        for (_, reason), ids in sorted(grouped.items(), key=lambda item: min(item[1])):
            name = analyzed.short_name(analyzed.kernel(ids[0]))
            what = f"{ids_text(ids)} {inline(name)}"
            if len(ids) > 1:
                what += f" ({len(ids):,} launches)"
            out.append(f"- {what}: {inline(reason)}")
        out.append("")

    return out


def _case_framing(
    name: str,
    summary: KernelSummary,
    family: KernelFamily | None,
    labels: Sequence[str],
    *,
    whole: bool,
    time_share: float | None,
) -> tuple[str, str, list[str], str]:
    """The record's title, goal, family lines and baseline: for a lone kernel, for one launch
    of a family, or for the whole family (``whole``)."""
    baseline = fmt_duration(summary.duration_ns)
    about: list[str] = []
    if family is None or family.count == 1:
        title = f"## Kernel Profiling Case: {name} (ID {summary.id})"
        goal = f"this kernel is {fmt_share(time_share)} of the report's kernel time"
    elif not whole:
        title = f"## Kernel Profiling Case: {name} (ID {summary.id})"
        goal = (
            f"this launch is {fmt_share(time_share)} of the report's kernel time; its family of "
            f"{family.count:,} launches (IDs {family_ids(family)}) is "
            f"{fmt_share(family.time_share)}"
        )
    else:
        title = (
            f"## Kernel Profiling Case: {name} (ID {summary.id}, family of "
            f"{family.count:,} launches)"
        )
        goal = (
            f"its {family.count:,} launches are {fmt_share(family.time_share)} of the report's "
            f"kernel time, this one {fmt_share(time_share)}"
        )
        about = [
            f"- Family: {family.count:,} launches (IDs {family_ids(family)}), "
            f"{launch_shape(family)}, {fmt_duration(family.total_duration_ns)} in all; "
            f"duration median (min – max) {spread(family)}; this record is ID {summary.id}, "
            "the median launch",
            f"- Bottleneck of each launch: {tally(labels)}" if labels else "",
        ]
        note = spread_note(family)
        if note:
            about.append(f"- {inline(note)}")
        baseline = f"{baseline} (median launch), {fmt_duration(family.total_duration_ns)} in all"
    return title, goal, [line for line in about if line], baseline


def record_head(
    device: DeviceInfo,
    time_share: float | None,
    summary: KernelSummary,
    family: KernelFamily | None = None,
    labels: Sequence[str] = (),
    *,
    whole: bool = True,
    name: str | None = None,
    report_sections: frozenset[str] | None = None,
) -> str:
    """The record's title and the facts around the kernel (its share of the time: step 0).
    ``name`` is the kernel's short name in its report (its compact name when not given).
    For a family of several launches, the record stands for all of them: the head gives the
    family's share, its launches and the spread of their durations (``labels``: the label of
    each launch), and the record below is that of ``summary``, the median launch. With
    ``whole`` False it is the record of this launch alone, weighed by its family's share.
    The sections collected are listed once in the document's header (``report_sections``);
    a record names them only when its kernel's differ."""
    demangled = summary.name
    sections = ""
    if report_sections is not None and summary.sections != report_sections:
        missing = ", ".join(sorted(report_sections - summary.sections)) or "none"
        sections = f" (this kernel lacks sections: {missing})"
    name = inline(name or short_name(demangled))
    title, goal, about, baseline = _case_framing(
        name, summary, family, labels, whole=whole, time_share=time_share)
    parts = [
        title,
        "",
        f"Full name: {code(demangled)}",
        "",
        f"- Goal: {BLANK} ({goal}: weigh the effort against it)",
        *about,
        f"- Environment: {inline(device.name)} (CC {device.compute_capability}); CUDA, driver, "
        f"clock control: {BLANK}",
        f"- Input: {BLANK}",
        f"- Baseline: {baseline}"
        if summary.measured
        else f"- Baseline: {NOT_MEASURED} ({summary.unmeasured})",
        f"- NCU command: {BLANK}{sections}",
        "",
    ]
    return "\n".join(parts)


Outcome = tuple[Sequence[str], Sequence[str], Sequence[str]]
"""The record's Change, Re-measure and Conclusion lines (a diff fills them in)."""


def record_body(
    detail: KernelDetail, diagnosis: Diagnosis, outcome: Outcome | None = None
) -> str:
    """The record from Launch to Conclusion. It does not depend on the other kernels, so
    worker processes render it while they read the report; ``diagnosis`` is made without
    the time share, which the head states. ``outcome`` fills Change, Re-measure and
    Conclusion (from a diff against the kernel before the change); blanks without it."""
    change, remeasure, conclusion = outcome or ((BLANK,), (BLANK,), (BLANK,))
    sections: list[tuple[str, Sequence[str]]] = [
        ("Launch", launch_section(detail)),
        ("SOL", sol_section(detail)),
        ("Occupancy", occupancy_section(detail)),
        ("Memory", memory_section(detail)),
        ("Compute", compute_section(detail, diagnosis)),
        ("Scheduler", scheduler_section(detail)),
        ("Source/SASS", source_section(detail.source)),
        ("Diagnosis", diagnosis_section(diagnosis, detail)),
        ("Change", change),
        ("Re-measure", remeasure),
        ("Conclusion", conclusion),
    ]
    parts: list[str] = []
    for title, lines in sections:
        if any(line.strip() for line in lines):  # a document never keeps an empty heading
            parts += [f"### {title}", *lines, ""]
    return "\n".join(parts)


def record_analysis(detail: KernelDetail) -> tuple[Diagnosis, str]:
    """Diagnosis (without time share) and record body of a kernel; runs in worker processes."""
    diagnosis = diagnose_detail(detail, None)
    return diagnosis, record_body(detail, diagnosis)


def kernel_record(
    device: DeviceInfo,
    time_share: float | None,
    detail: KernelDetail,
    family: KernelFamily | None = None,
    name: str | None = None,
) -> str:
    """One kernel's case record, following the notes' template headings; its ``family``'s
    share of the time is stated beside its own (``name``: its short name in its report)."""
    head = record_head(
        device, time_share, summary_from_detail(detail), family, whole=False, name=name
    )
    return head + "\n" + record_analysis(detail)[1]


def render_ncu_markdown(
    analyzed: AnalyzedReport, *, pattern: str | None = None, top: int | None = None,
    records_as_read: bool = False,
) -> str:
    """The whole Markdown document for a kernel report: the families ranked by time, and one
    record per selected family (its median launch's, with the family's spread), ``top`` the
    N largest; only the families with a launch in ``analyzed.process`` when it is set.
    ``records_as_read``: the records are written from details read as ``analyze(details=True,
    breakdowns=False, slim=True)`` read every kernel's (without curves, breakdowns, tables)."""
    families = analyzed.select_families(pattern, top)
    chosen = [analyzed.kernel(f.representative) for f in families]
    several = len(analyzed.report.processes) > 1
    parts = [*_header(analyzed), "## Kernel families", "", _families_table(analyzed, several), ""]
    parts.extend(_roofline(analyzed, chosen))
    device = analyzed.report.device
    bodies = analyzed.extras
    if records_as_read:
        bodies = _records_as_read(analyzed, [k.id for k in chosen])
    elif not all(isinstance(bodies.get(k.id), str) for k in chosen):
        pairs = analyzed.iter_detail_diagnoses([k.id for k in chosen])
        bodies = {k.id: record_analysis(d)[1] for k, (d, _) in zip(chosen, pairs, strict=True)}
    for family, kernel in zip(families, chosen, strict=True):
        labels = family_labels(analyzed, family)
        head = record_head(
            device, kernel.time_share, kernel.summary, family, labels,
            name=analyzed.short_name(kernel), report_sections=analyzed.sections,
        )
        parts.append(head + "\n" + bodies[kernel.id])
    return "\n".join(parts).rstrip() + "\n"


def _records_as_read(analyzed: AnalyzedReport, kernel_ids: list[int]) -> dict[int, str]:
    """The record bodies of ``kernel_ids`` (see ``render_ncu_markdown``)."""
    read = analyzed.report.iter_details(kernel_ids, curves=False, breakdowns=False, tables=False)
    return {detail.id: record_analysis(detail)[1] for batch in read for detail in batch}


def single_kernel_markdown(
    report: NcuReport, families: ReportFamilies, names: ShortNames, kernel_id: int
) -> str:
    """The case record of one kernel of an open report, its time share its family's share
    among ``families`` (every kernel's) and its name one of the report's ``names``, for the
    TUI's export and copy of the current kernel and the MCP record."""
    share = families.kernel_share(kernel_id)
    family = families.family_of(kernel_id)
    detail = report.detail(kernel_id)
    if detail.has_section("SourceCounters"):
        detail.source = report.source_hotspots(kernel_id)
    head = [
        f"# Kernel report: {inline(safe_text(report.path.name))}, kernel {kernel_id}",
        "",
        f"- Sections collected: {', '.join(sorted(detail.sections)) or 'none'}",
        "",
    ]
    return "\n".join(head) + "\n" + kernel_record(
        report.device, share, detail, family,
        family.label(names.get(detail.identity.name)) if family
        else names.get(detail.identity.name),
    )
