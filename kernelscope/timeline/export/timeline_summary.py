"""``kernelscope summary`` of a timeline (Nsight Systems, Kineto): its span, each GPU's busy
time, the top kernels and the findings."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from kernelscope.core.durations import fmt_ns
from kernelscope.core.severity import most_severe_first
from kernelscope.core.shares import fmt_pct
from kernelscope.core.words import plural
from kernelscope.export.summary import file_name, table_box
from kernelscope.render.severity import text_style
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.export.op_efficiency_text import print_op_efficiency
from kernelscope.timeline.export.timeline_json import gpu_rows, kernel_rows, report_info

NUMBER_HEADERS = ("Time %", "Total", "Instances", "Avg")


def _kernel_table(data: TimelineData, console: Console) -> Table:
    """The top kernels: the number columns as wide as their widest cell, the names in the
    width left (cut with an ellipsis on a terminal; whole when piped)."""
    rows = [(fmt_pct(k["time_pct"]), fmt_ns(k["total_ns"]), f"{k['instances']:,}",
             fmt_ns(k["avg_ns"]), data.short_name(k["name"])) for k in kernel_rows(data)[:10]]
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(NUMBER_HEADERS)]
    t = Table(title="Top kernels by time", box=table_box(console), show_edge=False, pad_edge=False)
    for header, width in zip(NUMBER_HEADERS, widths, strict=True):
        t.add_column(header, justify="right", no_wrap=True, min_width=width)
    # Each column but the last is padded by one space each side and followed by a rule.
    left = console.width - sum(widths) - 3 * len(widths) - 1
    t.add_column("Name", justify="left", no_wrap=console.is_terminal,
                 overflow="ellipsis" if console.is_terminal else "fold",
                 max_width=max(8, left) if console.is_terminal else None)
    for row in rows:
        t.add_row(*row[:4], Text(row[4]))
    return t


def print_timeline_summary(data: TimelineData, console: Console) -> None:
    """A timeline's span, GPU busy, top kernels and findings."""
    report = data.report
    path = data.path
    info = report_info(report)
    cuda = "" if info.get("cuda_trace", True) else " (no CUDA trace: a CPU-only capture)"
    version = f", nsys {escape(str(info['nsys_version']))}" if info.get("nsys_version") else ""
    console.print(
        f"[bold]{file_name(path)}[/]: span {fmt_ns(info['span_ns'])}, "
        f"{plural(info['counts']['kernels'], 'kernel')}{cuda}, "
        f"{plural(len(info['devices']), 'device')}{version}"
    )
    busy = {g["device"]: g for g in gpu_rows(data)}
    for dev in info["devices"]:
        sms = f", {dev['sm_count']} SMs" if dev.get("sm_count") else ""
        g = busy.pop(dev["id"], None)
        what = (
            f"busy {fmt_ns(g['busy_ns'])} of {fmt_ns(g['span_ns'])} "
            f"({fmt_pct(g['utilization_pct'])} %)" if g is not None else "no GPU work"
        )
        console.print(f"GPU {dev['id']} ({escape(str(dev['name']))}{sms}): {what}")
    for g in busy.values():
        console.print(
            f"GPU {g['device']}: busy {fmt_ns(g['busy_ns'])} of "
            f"{fmt_ns(g['span_ns'])} ({fmt_pct(g['utilization_pct'])} %)"
        )
    console.print(_kernel_table(data, console))
    f = Table(title="Findings", box=table_box(console), show_edge=False, pad_edge=False)
    for col in ("Severity", "Finding", "Items", "Title"):
        f.add_column(col, justify="right" if col == "Items" else "left")
    for item in most_severe_first(data.findings, lambda x: x.severity):
        style = text_style(item.severity)
        f.add_row(
            f"[{style}]{item.severity}[/]", item.id, str(len(item.rows)), escape(item.title)
        )
    if not data.findings:
        f.add_row("", "none", "0", "no problems found")
    console.print(f)
    if data.op_efficiency.available:
        print_op_efficiency(data.op_efficiency, console)
