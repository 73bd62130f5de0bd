"""A diff as Markdown: the two inputs, what matched and how it changed, and for the kernels
that moved the most a section with their pane metrics side by side, their flags, both points
on one roofline, and the after kernel's case record with Change / Re-measure / Conclusion
filled in from the diff."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kernelscope.core.durations import fmt_duration
from kernelscope.core.kernel_names import fit_name
from kernelscope.core.words import plural
from kernelscope.export.markdown import BLANK, code, fenced, inline, table
from kernelscope.kinds.diff.analysis.devices import CROSS_DEVICE
from kernelscope.kinds.diff.analysis.kernels import HAND, KernelDiff, KernelPair
from kernelscope.kinds.diff.render.diff import (
    FAMILY_HEADERS,
    PAIR_HEADERS,
    TIME_HEADERS,
    busy_text,
    family_row,
    kernel_names,
    label_text,
    moved_text,
    pair_roofline,
    pair_row,
    pct_pair,
    speedup_text,
    summed_text,
    time_row,
    top_moves,
)
from kernelscope.kinds.ncu.analysis.analyzed_kernel import AnalyzedKernel
from kernelscope.kinds.ncu.analysis.diagnosis.verdict import flag_to_act_on, next_step
from kernelscope.kinds.ncu.analysis.kernel_analysis import diagnose_detail
from kernelscope.kinds.ncu.analysis.metric_changes import TimeChange
from kernelscope.kinds.ncu.export.ncu_markdown import Outcome, record_body, record_head
from kernelscope.kinds.ncu.model.summary_reader import summary_from_detail
from kernelscope.kinds.ncu.render.changes import (
    fmt_change,
    fmt_speedup,
    metric_change_text,
    metric_row,
    metric_value,
)

if TYPE_CHECKING:
    from kernelscope.kinds.diff.analysis.timelines import TimelineDiff

PAIR_SECTIONS = 10
"""How many pairs (those whose time changed most) get a section and a case record."""
NVTX_ROWS = 30


def _title(diff: KernelDiff | TimelineDiff) -> list[str]:
    what = "kernel reports" if isinstance(diff, KernelDiff) else "timelines"
    before, after = diff.paths
    lines = [f"# Before and after: {inline(before.name)} → {inline(after.name)}", ""]
    sentence = diff.devices.sentence
    if sentence:
        lines += [f"**{inline(sentence)}**", ""]
    return [*lines, f"Two {what} compared by kernelscope.", ""]


def _summed(diff: KernelDiff | TimelineDiff) -> str:
    scope = f" of the kernels matching {code(diff.pattern)}" if diff.pattern else ""
    return f"- Summed kernel time{scope}: {summed_text(diff.summed, diff.devices)}"


def _kernel_line(diff: KernelDiff, kernel: AnalyzedKernel) -> str:
    identity = kernel.summary.identity
    return (
        f"- ID {kernel.id} {code(fit_name(diff.short_name(kernel), 60))}, "
        f"grid {identity.grid_text} × block {identity.block_text}, "
        f"{fmt_duration(kernel.duration_ns)}, {kernel.diagnosis.label}"
    )


def _launch_changes(pair: KernelPair) -> str:
    moved = [c for c in pair.metrics if c.pane == "launch" and c.before != c.after]
    if not moved:
        return "- Launch configuration: unchanged"
    parts = [f"{c.label.lower()} {metric_value(c.before, c.unit)} → "
             f"{metric_value(c.after, c.unit)}" for c in moved]
    return f"- Launch configuration: {inline('; '.join(parts))}"


def outcome(diff: KernelDiff, pair: KernelPair) -> Outcome:
    """The case record's Change, Re-measure and Conclusion, from the pair's diff."""
    old, new = pair.before, pair.after
    how = "paired by hand" if pair.matched_by == HAND else f"matched by {pair.matched_by}"
    before_path, after_path = diff.paths
    change = [
        f"- Before: {code(old.summary.identity.function)} (ID {old.id} of "
        f"{inline(before_path.name)}); after: {code(new.summary.identity.function)} "
        f"(ID {new.id} of {inline(after_path.name)}), {how}",
        _launch_changes(pair),
        f"- What was changed: {BLANK}",
    ]
    speed = pair.speedup
    verdict = ("faster" if speed > 1 else "slower" if speed < 1 else "as fast") if speed else ""
    remeasure = [
        f"- Duration: {fmt_duration(pair.before_ns)} → {fmt_duration(pair.after_ns)} "
        f"({fmt_change(pair.change_pct)}; {fmt_speedup(speed)} {verdict}".rstrip()
        + (f", {CROSS_DEVICE})" if not diff.devices.same else ")"),
    ]
    for c in top_moves(pair.metrics):
        remeasure.append(
            f"- {inline(c.label)}: {metric_value(c.before, c.unit)} → "
            f"{metric_value(c.after, c.unit)} ({metric_change_text(c)})"
        )
    after = new.diagnosis
    conclusion = [
        f"- Bottleneck: {code(pair.label_change)}" if pair.label_change
        else f"- Bottleneck: still {code(after.label)}",
        f"- Flags resolved: {', '.join(code(f) for f in pair.flags_resolved) or 'none'}; "
        f"new: {', '.join(code(f) for f in pair.flags_new) or 'none'}",
        f"- Now {code(after.label)}: {inline(after.bottleneck.summary)}",
    ]
    lead, step = flag_to_act_on(after), next_step(after)
    if lead is not None:
        conclusion.append(f"- Next: {code(lead.id)} ({lead.severity}): {inline(lead.advice)}")
    elif step is not None:
        conclusion.append(f"- Next: {inline(step)}")
    if speed is not None and speed < 1:
        conclusion.append("- The change made the kernel slower: revert it or find out why.")
    return change, remeasure, conclusion


def _pairs_table(diff: KernelDiff, pairs: Sequence[KernelPair]) -> str:
    rows = [
        [*pair_row(diff, p, 40), p.matched_by, ", ".join(p.flags_resolved) or "—",
         ", ".join(p.flags_new) or "—"]
        for p in pairs
    ]
    return table((*PAIR_HEADERS, "Matched by", "Flags resolved", "Flags new"), rows,
                 "llrrrrllll")


def _sections(diff: KernelDiff) -> list[KernelPair]:
    ranked = sorted(diff.pairs,
                    key=lambda p: -abs((p.before_ns or 0.0) - (p.after_ns or 0.0)))
    return ranked[:PAIR_SECTIONS]


def _pair_section(diff: KernelDiff, pair: KernelPair, record: str) -> list[str]:
    old, new = pair.before, pair.after
    out = [
        f"## {inline(fit_name(diff.short_name(old), 40))} (ID {old.id}) → "
        f"{inline(fit_name(diff.short_name(new), 40))} (ID {new.id})",
        "",
        f"- {fmt_duration(pair.before_ns)} → {fmt_duration(pair.after_ns)}: "
        f"{speedup_text(pair.speedup, diff.devices)} ({fmt_change(pair.change_pct)})",
        f"- Bottleneck: {inline(label_text(pair))}",
        f"- Flags resolved: {', '.join(code(f) for f in pair.flags_resolved) or 'none'}",
        f"- Flags new: {', '.join(code(f) for f in pair.flags_new) or 'none'}",
    ]
    kept = [f"{code(f)} ({a} → {b})" if a != b else code(f) for f, a, b in pair.flags_kept]
    out.append(f"- Flags still raised: {', '.join(kept) or 'none'}")
    out += ["", "### Metrics by pane", "",
            table(("Pane", "Metric", "Before", "After", "Change"),
                  (metric_row(m) for m in pair.metrics), "llrrr"), ""]
    chart = pair_roofline(pair, color=False)
    out += ["### Roofline (DRAM)", ""]
    if chart is not None:
        out += [fenced(chart.text), ""]
    out += [f"Moved: {inline(moved_text(pair))}", ""]
    out += [record, ""]
    return out


def _records(diff: KernelDiff, pairs: Sequence[KernelPair]) -> dict[int, str]:
    """The after kernels' case records with their outcome filled in, by after kernel ID."""
    after = diff.after
    out: dict[int, str] = {}
    wanted = [p.after.id for p in pairs]
    by_after = {p.after.id: p for p in pairs}
    for detail, _diagnosis in after.iter_detail_diagnoses(wanted):
        pair = by_after[detail.id]
        kernel = after.kernel(detail.id)
        head = record_head(after.report.device, kernel.time_share, summary_from_detail(detail),
                           after.family(detail.id), whole=False)
        body = record_body(detail, diagnose_detail(detail, None), outcome(diff, pair))
        out[detail.id] = head + "\n" + body
    return out


def pair_record(diff: KernelDiff, pair: KernelPair) -> str:
    """The after kernel's case record with its Change / Re-measure / Conclusion filled in."""
    before, after = diff.paths
    title = (f"# Kernel report: {inline(after.name)}, kernel {pair.after.id} "
             f"(after {inline(before.name)} kernel {pair.before.id})")
    return title + "\n\n" + _records(diff, [pair])[pair.after.id]


def kernel_diff_markdown(diff: KernelDiff) -> str:
    before, after = diff.before, diff.after
    parts = [
        *_title(diff),
        f"- Before: {code(before.report.path)} ({plural(before.report.kernel_count, 'kernel')} on "
        f"{inline(before.report.device.name)})",
        f"- After: {code(after.report.path)} ({plural(after.report.kernel_count, 'kernel')} on "
        f"{inline(after.report.device.name)})",
        _summed(diff),
        f"- Matched: {plural(len(diff.pairs), 'pair')}; unmatched: {len(diff.unmatched_before):,} "
        f"before, {len(diff.unmatched_after):,} after",
        "",
        "## Matched kernels",
        "",
        _pairs_table(diff, diff.pairs) if diff.pairs else "No kernel of one report matches one of "
        "the other: pair them by hand with `--pair BEFORE=AFTER` (an ID or a name each).",
        "",
        "## Kernel families",
        "",
        table(FAMILY_HEADERS, _family_rows(diff), "lrrrrrr"),
        "",
        "## Unmatched kernels",
        "",
        "Before only:" if diff.unmatched_before else "Before only: none",
        *([""] + [_kernel_line(diff, k) for k in diff.unmatched_before] + [""]
          if diff.unmatched_before else [""]),
        "After only:" if diff.unmatched_after else "After only: none",
        *([""] + [_kernel_line(diff, k) for k in diff.unmatched_after] if diff.unmatched_after
          else []),
        "",
    ]
    shown = _sections(diff)
    records = _records(diff, shown)
    if len(diff.pairs) > len(shown):
        follow = "follows" if len(shown) == 1 else "follow"
        parts += [f"The {plural(len(shown), 'pair')} whose time changed the most {follow}; the "
                  "JSON and CSV exports hold every pair's metrics.", ""]
    for pair in shown:
        parts += _pair_section(diff, pair, records.get(pair.after.id, ""))
    return "\n".join(parts).rstrip() + "\n"


def _family_rows(diff: KernelDiff | TimelineDiff, width: int = 48) -> list[list[str]]:
    """The families' rows, each kernel named by the short names of every kernel of the table
    (spelled out until they differ, as a summary names them): no two rows read alike."""
    names = kernel_names(diff.families)
    return [family_row(f, width, names) for f in diff.families]


def _time_table(rows: Sequence[TimeChange], headers: Sequence[str] = TIME_HEADERS) -> str:
    if not rows:
        return "None in either report."
    return table(headers, (time_row(r) for r in rows), "lrrrr")


def timeline_diff_markdown(diff: TimelineDiff) -> str:
    from kernelscope.kinds.diff.analysis.timelines import appeared, vanished

    nvtx = sorted(diff.nvtx, key=lambda r: -abs((r.after_ns or 0.0) - (r.before_ns or 0.0)))
    parts = [
        *_title(diff),
        f"- Before: {code(diff.before.path)} (span {fmt_duration(diff.before.report.duration_ns)})",
        f"- After: {code(diff.after.path)} (span {fmt_duration(diff.after.report.duration_ns)})",
        _summed(diff),
        f"- GPU busy: {busy_text(diff.busy)}",
        "",
        "## Kernel families",
        "",
        table(FAMILY_HEADERS, _family_rows(diff, 60), "lrrrrrr")
        if diff.families else "No kernels in either report.",
        "",
        "## Launches",
        "",
        _time_table(diff.launch_calls, ("API call", "Calls", "Before", "After", "Change")),
        "",
        "Appeared: " + (", ".join(code(a.name) for a in appeared(diff.api)) or "no API call")
        + "; vanished: " + (", ".join(code(a.name) for a in vanished(diff.api)) or "none") + ".",
        "",
        "Kernels appeared: " + (", ".join(code(fit_name(diff.after.short_name(f.name), 60))
                                          for f in appeared(diff.families)) or "none")
        + "; vanished: " + (", ".join(code(fit_name(diff.before.short_name(f.name), 60))
                                      for f in vanished(diff.families)) or "none") + ".",
        "",
        "## GPU idle gaps by cause",
        "",
        _time_table(diff.gaps, ("Cause", "Gaps", "Before", "After", "Change")),
        "",
        "## NVTX ranges",
        "",
        table(("Range", "Instances", "Before", "After", "Change", "GPU busy"),
              ([*time_row(r), pct_pair(r.before_busy_pct, r.after_busy_pct)]
               for r in nvtx[:NVTX_ROWS]), "lrrrrr") if nvtx else "None in either report.",
        *(["", f"The {NVTX_ROWS} ranges whose time changed the most of {len(nvtx):,}."]
          if len(nvtx) > NVTX_ROWS else []),
        "",
        "## Copies",
        "",
        _time_table(diff.copies, ("Operation", "Count", "Before", "After", "Change")),
        "",
        "## Findings",
        "",
        table(("Finding", "Before", "After", "Change", "Title"),
              ((f.id, f"{f.before_severity or '—'} ({f.before_items})",
                f"{f.after_severity or '—'} ({f.after_items})", f.status, f.title)
               for f in diff.findings), "lllll") if diff.findings else "None in either report.",
        "",
    ]
    return "\n".join(parts).rstrip() + "\n"


def render_diff_markdown(diff: KernelDiff | TimelineDiff) -> str:
    if isinstance(diff, KernelDiff):
        return kernel_diff_markdown(diff)
    return timeline_diff_markdown(diff)
