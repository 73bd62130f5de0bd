"""A timeline joined with kernel reports in each export format (the ``export`` and
``summary`` parts of the join kind)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kernelscope.core.durations import fmt_ns
from kernelscope.core.errors import ReportError, safe_text
from kernelscope.core.jsonsafe import json_safe
from kernelscope.core.words import plural
from kernelscope.export.csv_text import csv_text
from kernelscope.export.markdown import cell, code, inline, table
from kernelscope.export.writer import ExportOptions
from kernelscope.kinds.join.analysis import JoinInputs, JoinReport, RankedItem, analyse_join
from kernelscope.kinds.join.analysis.thresholds import JOIN_THRESHOLDS
from kernelscope.kinds.join.render.join_evidence import evidence_lines
from kernelscope.kinds.join.render.join_text import (
    Label,
    headroom_text,
    item_notes,
    kind_text,
    launches_text,
    lead_flag_words,
    ranking_labels,
    saving_text,
    share_text,
    top_flag_line,
    top_flags_words,
    unprofiled_rank,
    what_text,
)
from kernelscope.timeline.export.op_efficiency_text import (
    op_efficiency_markdown,
    print_op_efficiency,
)
from kernelscope.timeline.model.profilers import KINETO

if TYPE_CHECKING:
    from rich.console import Console

CSV_COLUMNS = (
    "group", "rank", "kind", "family", "title", "time_share", "wall_share", "instances", "total_ns",
    "profiled", "ncu_ids", "bottleneck", "top_flags", "headroom", "potential_saving_ns",
    "weak_estimate", "one_time", "nvtx_range", "ncu_command", "duration_ratio", "explained",
)


def _check(options: ExportOptions) -> None:
    if options.process:
        raise ReportError("--process selects kernels of a kernel report (.ncu-rep) only.")
    if options.pattern:
        raise ReportError("-k filters the kernels of one report; a join ranks them all.")


def _joined(inputs: JoinInputs | JoinReport, options: ExportOptions) -> JoinReport:
    _check(options)
    return inputs if isinstance(inputs, JoinReport) else analyse_join(inputs)


def render_join_json(inputs: JoinInputs | JoinReport, options: ExportOptions) -> str:
    """``--format json`` (``--top N``: the first N rows of the ranking and of the
    unprofiled)."""
    doc = worded(_joined(inputs, options))
    if options.top is not None:
        doc["ranking"] = doc["ranking"][: max(0, options.top)]
        doc["unprofiled"] = doc["unprofiled"][: max(0, options.top)]
    return json.dumps(json_safe(doc), indent=2) + "\n"


def render_join_csv(inputs: JoinInputs | JoinReport, options: ExportOptions) -> str:
    return join_csv(_joined(inputs, options), options.top)


def render_join_md(inputs: JoinInputs | JoinReport, options: ExportOptions) -> str:
    return join_markdown(_joined(inputs, options), options.top)


def worded(join: JoinReport) -> dict[str, Any]:
    """The join's document with each row's evidence and flags in words, as the export writes
    it."""
    doc = join.to_dict()
    for group in ("ranking", "unprofiled"):
        for entry, item in zip(doc[group], getattr(join, group), strict=True):
            entry["evidence"] = evidence_lines(item.evidence)
            entry["top_flags"] = top_flags_words(item)
            entry["next_flag"] = lead_flag_words(item)
    return doc


def _first(items: tuple[RankedItem, ...], top: int | None) -> tuple[RankedItem, ...]:
    return items if top is None else items[: max(0, top)]


def join_csv(join: JoinReport, top: int | None = None) -> str:
    """One row per item: ``group`` ``ranked`` (by what fixing it could save) or
    ``unprofiled`` (gain unknown, by time), each group numbered from 1."""
    rows = []
    groups = (("ranked", _first(join.ranking, top)), ("unprofiled", _first(join.unprofiled, top)))
    for group, rank, item in ((g, r, i) for g, items in groups
                              for r, i in enumerate(items, start=1)):
        d = item.to_dict()
        saving = d["potential_saving_ns"]
        rows.append([
            group, rank, d["kind"], d["family"], d["title"], d["time_share"], d["wall_share"],
            d["instances"], d["total_ns"], d["profiled"],
            " ".join(f"{r}:{i}" for r, i in d["ncu_ids"]), d["bottleneck"],
            "; ".join(top_flags_words(item)), d["headroom"],
            None if saving is None else round(saving),
            d["weak_estimate"], d["one_time"], d["nvtx_range"], d.get("ncu_command"),
            d.get("duration_ratio"), d.get("explained"),
        ])
    return csv_text(CSV_COLUMNS, rows)


def join_labels(join: JoinReport) -> list[Label]:
    """Every row's label, the ranking's then the unprofiled families' (``ranking_labels``:
    their short names, made once for every table of an export)."""
    return ranking_labels(join.ranking + join.unprofiled)


def ranking_rows(join: JoinReport, top: int | None = None,
                 labels: list[Label] | None = None) -> list[list[str]]:
    """The ranking table's rows (rank, what, kind, share, instances, total, headroom, saving,
    bottleneck), as the Markdown and the summary print them (``labels``: ``join_labels``,
    where already made)."""
    labels = join_labels(join) if labels is None else labels
    return [
        [str(rank), labels[rank - 1].fit(), kind_text(item), share_text(item.time_share),
         share_text(item.wall_share), f"{item.instances:,}", fmt_ns(item.total_ns),
         headroom_text(item), saving_text(item), what_text(item)]
        for rank, item in enumerate(_first(join.ranking, top), start=1)
    ]


def unprofiled_rows(join: JoinReport, top: int | None = None,
                    labels: list[Label] | None = None) -> list[list[str]]:
    """The unprofiled families' rows (by time: rank, what, share, wall, count, total,
    median; ``labels``: ``join_labels``, where already made)."""
    labels = (join_labels(join) if labels is None else labels)[len(join.ranking):]
    return [
        [unprofiled_rank(rank), labels[rank - 1].fit(), share_text(item.time_share),
         share_text(item.wall_share), f"{item.instances:,}", fmt_ns(item.total_ns),
         fmt_ns(item.total_ns / item.instances)]
        for rank, item in enumerate(_first(join.unprofiled, top), start=1)
    ]


RANKING_HEADERS = ("#", "What", "Kind", "Kernel time", "Wall", "Count", "Total", "Headroom",
                   "Could save", "Bottleneck · top flag / cause")
UNPROFILED_HEADERS = ("#", "What", "Kernel time", "Wall", "Count", "Total", "Average")
UNPROFILED_NOTE = ("No kernel report holds a launch of these families, so what fixing them could "
                   "save is unknown: they are listed by their time, apart from the ranking of "
                   "measured headroom, numbered `?1`, `?2`, …; profile a representative launch "
                   "with the command in its details.")


def _item_details(rank: str, item: RankedItem, label: Label, profiler: str) -> list[str]:
    lines = [f"### {rank}. {inline(label.fit())}", ""]
    ranges = "range" if profiler == KINETO else "NVTX range"
    if item.kind == "kernel":
        lines.append(f"- Kernel: {code(item.family)}, grid {item.grid}, block {item.block}"
                     + (f", mostly in {ranges} {code(item.nvtx)}" if item.nvtx else ""))
        if item.profiled:
            lines.append(f"- Profiled launches: {launches_text(item.ncu_ids)} "
                         f"(matched by {item.matched_by})")
            lines.append(f"- Bottleneck: {item.bottleneck}; flags: "
                         + (", ".join(top_flags_words(item)) or "none"))
            if item.top_flag is not None:
                lines.append(f"- Top flag: {inline(top_flag_line(item.top_flag))}")
            lines.append(f"- Headroom: {headroom_text(item)} ({item.headroom_source})")
    else:
        lines.append(f"- Cause: {item.family}" + (
            f", mostly before kernels of {ranges} {code(item.nvtx)}" if item.nvtx else ""))
    lines.append(f"- Could save: {saving_text(item)} of {fmt_ns(item.total_ns)}")
    lines.extend(f"- {cell(e)}" for e in evidence_lines(item.evidence))
    lines.extend(f"- {label.capitalize()}: {cell(text)}" for label, text in item_notes(item))
    if item.ncu_command:
        lines += ["", "```bash", item.ncu_command, "```"]
    return [*lines, ""]


def _unexplained_note(join: JoinReport) -> str:
    """What a row whose kernel report does not explain the timeline means (only where one
    is)."""
    if all(item.explained for item in join.ranking):
        return ""
    return (" Where a family's time per launch on the timeline and its kernel report's "
            f"duration are more than {JOIN_THRESHOLDS.duration_apart:g}× apart, the report "
            "measured something else: its headroom is not applied (\"not applied\"), and the "
            "row's details say what usually explains it.")


def nothing_matched_line(join: JoinReport) -> str:
    """The first line of a join in which no profiled kernel matches (plain text)."""
    return ("No kernel matched: no kernel of "
            + ", ".join(safe_text(r.path.name) for r in join.kernel_reports)
            + f" runs on {safe_text(join.timeline_path.name)}")


def join_markdown(join: JoinReport, top: int | None = None) -> str:
    if join.nothing_matched:
        head = f"# {inline(nothing_matched_line(join))}"
    else:
        head = (f"# What to fix first: {inline(safe_text(join.timeline_path.name))} joined "
                "with " + ", ".join(inline(safe_text(r.path.name)) for r in join.kernel_reports))
    lines = [head, ""]
    lines.append(
        f"Timeline: {plural(sum(f.instances for f in join.kernels.families), 'kernel')} in "
        f"{plural(len(join.kernels.families), 'family', 'families')}, "
        f"{fmt_ns(join.kernels.total_ns)} of kernel time; "
        f"GPU busy {fmt_ns(join.busy_ns)} of a {fmt_ns(join.span_ns)} span. "
        + " ".join(f"{inline(safe_text(r.path.name))}: {plural(r.kernels, 'kernel')}, "
                   f"{r.matched} matched."
                   for r in join.kernel_reports))
    as_nsys = "" if join.profiler == KINETO else " (as `nsys stats` prints it)"
    lines += ["", f"Kernel time is the share of the timeline's summed kernel time{as_nsys}; "
              "saving = the step time saved were the family to reach the "
              "headroom the kernel reports measure (a what-if on the critical path; 0 off it), "
              "≤: idle or copy time, a bound. Ranked by what fixing it could save; one-time "
              "costs last." + _unexplained_note(join), ""]
    labels = join_labels(join)
    lines.append(table(RANKING_HEADERS, ranking_rows(join, top, labels), "rlllrrrrrl"))
    if join.unprofiled:
        lines += ["", "## Not profiled: gain unknown, by time", "", UNPROFILED_NOTE, ""]
        lines.append(table(UNPROFILED_HEADERS, unprofiled_rows(join, top, labels), "rlrrrrr"))
    lines += ["", "## Details", ""]
    for rank, item in enumerate(_first(join.ranking, top), start=1):
        lines += _item_details(str(rank), item, labels[rank - 1], join.profiler)
    if join.unprofiled:
        lines += ["## Details: not profiled", ""]
        ranked = len(join.ranking)
        for rank, item in enumerate(_first(join.unprofiled, top), start=1):
            lines += _item_details(unprofiled_rank(rank), item, labels[ranked + rank - 1],
                                   join.profiler)
    if join.unmatched:
        lines += ["## Profiled kernels not on the timeline", ""]
        lines.append(table(("Report", "ID", "Kernel", "Grid", "Block", "Why"), [
            (str(u.launch.report + 1), str(u.launch.kernel_id), u.launch.name, u.launch.grid,
             u.launch.block, u.reason)
            for u in join.unmatched], "rrllll"))
        lines.append("")
    for note in join.notes:
        lines += [f"> {inline(note)}", ""]
    if join.op_efficiency is not None:
        lines.append(op_efficiency_markdown(join.op_efficiency))
    return "\n".join(lines).rstrip() + "\n"


def print_join_summary(join: JoinReport, console: Console) -> None:
    """``kernelscope summary join …``: the ranking as a table, then the families nobody
    profiled (gain unknown) by time; first, where no kernel matched, that none did."""
    from rich.markup import escape  # rich only where text is printed: not for the exports
    from rich.table import Table

    if join.nothing_matched:
        console.print(f"[bold]{escape(nothing_matched_line(join))}[/]")
    console.print(f"[bold]What to fix first[/]: {escape(safe_text(join.timeline_path.name))} + "
                  + ", ".join(escape(safe_text(r.path.name)) for r in join.kernel_reports))
    t = Table(*RANKING_HEADERS)
    labels = join_labels(join)
    for row in ranking_rows(join, labels=labels):
        t.add_row(*(escape(c) for c in row))
    console.print(t)
    if join.unprofiled:
        console.print("[bold]Not profiled: gain unknown, by time[/] (profile them: "
                      "`kernelscope export join … -f md` has each one's ncu command)")
        u = Table(*UNPROFILED_HEADERS)
        for row in unprofiled_rows(join, labels=labels):
            u.add_row(*(escape(c) for c in row))
        console.print(u)
    for um in join.unmatched:
        console.print(f"not on the timeline: report {um.launch.report + 1} kernel "
                      f"{um.launch.kernel_id} {escape(um.launch.name)} ({escape(um.reason)})")
    if join.op_efficiency is not None:
        print_op_efficiency(join.op_efficiency, console)
