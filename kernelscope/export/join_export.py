"""A timeline joined with kernel reports in each export format (the ``export`` and
``summary`` parts of the join kind)."""

from __future__ import annotations

import csv
import io
import json

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kernelscope.export.markdown import cell, code, inline, table
from kernelscope.export.writer import ExportOptions
from kernelscope.parsers.errors import ReportError, safe_text
from kernelscope.parsers.join import JoinInputs, JoinReport, analyse_join
from kernelscope.parsers.jsonsafe import json_safe
from kernelscope.render.format import fmt_ns
from kernelscope.render.join_text import (
    headroom_text,
    kind_text,
    launches_text,
    ranking_labels,
    saving_text,
    share_text,
    what_text,
)

CSV_COLUMNS = (
    "rank", "kind", "family", "title", "time_share", "wall_share", "instances", "total_ns",
    "profiled", "ncu_ids", "bottleneck", "top_flags", "headroom", "potential_saving_ns",
    "weak_estimate", "one_time", "nvtx_range", "ncu_command",
)


def _check(options: ExportOptions) -> None:
    if options.process:
        raise ReportError("--process selects kernels of a kernel report (.ncu-rep) only.")
    if options.pattern:
        raise ReportError("-k filters the kernels of one report; a join ranks them all.")


def render_join(inputs: JoinInputs | JoinReport, options: ExportOptions) -> str:
    """The join in ``options.fmt`` (``--top N``: the first N rows of the ranking)."""
    _check(options)
    join = inputs if isinstance(inputs, JoinReport) else analyse_join(inputs)
    if options.fmt == "json":
        doc = join.to_dict()
        if options.top is not None:
            doc["ranking"] = doc["ranking"][: max(0, options.top)]
        return json.dumps(json_safe(doc), indent=2) + "\n"
    if options.fmt == "csv":
        return join_csv(join, options.top)
    return join_markdown(join, options.top)


def join_csv(join: JoinReport, top: int | None = None) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    ranking = join.ranking if top is None else join.ranking[: max(0, top)]
    for rank, item in enumerate(ranking, start=1):
        d = item.to_dict()
        writer.writerow([
            rank, d["kind"], d["family"], d["title"], d["time_share"], d["wall_share"],
            d["instances"], d["total_ns"], d["profiled"],
            " ".join(f"{r}:{i}" for r, i in d["ncu_ids"]), d["bottleneck"],
            "; ".join(d["top_flags"]), d["headroom"], round(d["potential_saving_ns"]),
            d["weak_estimate"], d["one_time"], d["nvtx_range"], d.get("ncu_command"),
        ])
    return out.getvalue()


def ranking_rows(join: JoinReport, top: int | None = None) -> list[list[str]]:
    """The ranking table's rows (rank, what, kind, share, instances, total, headroom, saving,
    bottleneck), as the Markdown and the summary print them."""
    ranking = join.ranking if top is None else join.ranking[: max(0, top)]
    labels = ranking_labels(join.ranking)
    return [
        [str(rank), labels[rank - 1].fit(), kind_text(item), share_text(item.time_share),
         share_text(item.wall_share), f"{item.instances:,}", fmt_ns(item.total_ns),
         headroom_text(item), saving_text(item), what_text(item)]
        for rank, item in enumerate(ranking, start=1)
    ]


RANKING_HEADERS = ("#", "What", "Kind", "Kernel time", "Wall", "Count", "Total", "Headroom",
                   "Could save", "Bottleneck · top flag / cause")


def join_markdown(join: JoinReport, top: int | None = None) -> str:
    lines = [f"# What to fix first: {inline(safe_text(join.timeline_path.name))} joined with "
             + ", ".join(inline(safe_text(r.path.name)) for r in join.kernel_reports), ""]
    lines.append(
        f"Timeline: {sum(f.instances for f in join.kernels.families):,} kernels in "
        f"{len(join.kernels.families)} families, {fmt_ns(join.kernels.total_ns)} of kernel time; "
        f"GPU busy {fmt_ns(join.busy_ns)} of a {fmt_ns(join.span_ns)} span. "
        + " ".join(f"{inline(safe_text(r.path.name))}: {r.kernels} kernels, {r.matched} matched."
                   for r in join.kernel_reports))
    lines += ["", "Kernel time is the share of the timeline's summed kernel time (as `nsys "
              "stats` prints it); saving = total × headroom (≤: a bound). Ranked by what fixing "
              "it could save; one-time costs last.", ""]
    lines.append(table(RANKING_HEADERS, ranking_rows(join, top), "rlllrrrrrl"))
    lines += ["", "## Details", ""]
    ranking = join.ranking if top is None else join.ranking[: max(0, top)]
    labels = ranking_labels(join.ranking)
    for rank, item in enumerate(ranking, start=1):
        lines.append(f"### {rank}. {inline(labels[rank - 1].fit())}")
        lines.append("")
        if item.kind == "kernel":
            lines.append(f"- Kernel: {code(item.family)}, grid {item.grid}, block {item.block}"
                         + (f", mostly in NVTX range {code(item.nvtx)}" if item.nvtx else ""))
            if item.profiled:
                lines.append(f"- Profiled launches: {launches_text(item.ncu_ids)} "
                             f"(matched by {item.matched_by})")
                lines.append(f"- Bottleneck: {item.bottleneck}; flags: "
                             + (", ".join(item.top_flags) or "none"))
                lines.append(f"- Headroom: {headroom_text(item)} ({item.headroom_source})")
        else:
            lines.append(f"- Cause: {item.family}" + (
                f", mostly before kernels of NVTX range {code(item.nvtx)}" if item.nvtx else ""))
        lines.append(f"- Could save: {saving_text(item)} of {fmt_ns(item.total_ns)}")
        for e in item.evidence:
            lines.append(f"- {cell(e)}")
        if item.weak:
            lines.append(f"- Weak estimate: {cell(item.weak)}")
        if item.remedy:
            lines.append(f"- Next: {cell(item.remedy)}")
        if item.ncu_command:
            lines += ["", "```bash", item.ncu_command, "```"]
        lines.append("")
    if join.unmatched:
        lines += ["## Profiled kernels not on the timeline", ""]
        lines.append(table(("Report", "ID", "Kernel", "Grid", "Block"), [
            (str(u.report + 1), str(u.kernel_id), u.name, u.grid, u.block)
            for u in join.unmatched], "rrlll"))
        lines.append("")
    for note in join.notes:
        lines += [f"> {inline(note)}", ""]
    return "\n".join(lines).rstrip() + "\n"


def print_join_summary(join: JoinReport, console: Console) -> None:
    """``kernelscope summary join …``: the ranking as a table."""
    console.print(f"[bold]What to fix first[/]: {escape(safe_text(join.timeline_path.name))} + "
                  + ", ".join(escape(safe_text(r.path.name)) for r in join.kernel_reports))
    t = Table(*RANKING_HEADERS)
    for row in ranking_rows(join):
        t.add_row(*(escape(c) for c in row))
    console.print(t)
    for u in join.unmatched:
        console.print(f"not on the timeline: report {u.report + 1} kernel {u.kernel_id} "
                      f"{escape(u.name)}")
