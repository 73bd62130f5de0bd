"""Operator efficiency as text: the JSON members (``op_efficiency``, ``mfu``,
``op_efficiency_basis``), the Markdown section, the ``summary`` table, the cells of the
timeline's Operators view and a small ASCII roofline of the operators (plotext)."""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from kernelscope.core.durations import fmt_ns
from kernelscope.core.units import NOT_AVAILABLE
from kernelscope.timeline.analysis.op_efficiency import OpEfficiency, OpRow

if TYPE_CHECKING:
    from rich.console import Console

MARKDOWN_ROWS = 30
SUMMARY_ROWS = 10
COLUMNS = ("Operator", "Input shapes", "Dtype", "Calls", "GPU time", "TFLOP/s", "GB/s",
           "% of peak", "Bound", "Model")


def op_efficiency_doc(eff: OpEfficiency) -> dict[str, Any]:
    """The JSON members: ``op_efficiency`` (a row per operator, shapes and dtype), ``mfu``
    (a row per step) and ``op_efficiency_basis`` (where the shapes and peaks come from)."""
    doc = eff.to_dict()
    return {"op_efficiency": doc.pop("op_efficiency"), "mfu": doc.pop("mfu"),
            "op_efficiency_basis": doc}


def _number(value: float | None, digits: int = 1) -> str:
    return NOT_AVAILABLE if value is None else f"{value:,.{digits}f}"


def row_cells(row: OpRow) -> tuple[str, ...]:
    """One operator's cells, in :data:`COLUMNS`' order."""
    pct = row.pct_of_peak
    return (row.op, row.input_shapes, row.dtype or NOT_AVAILABLE,
            f"{row.calls:,}" if row.calls else "", fmt_ns(row.gpu_time_ns),
            _number(row.achieved_tflops, 2), _number(row.achieved_gbps),
            NOT_AVAILABLE if pct is None else f"{pct:.1f} %", row.bound or "",
            f"{row.model} ({overcounted_text([row])})" if row.bytes_overcounted else row.model)


OVERCOUNTED = ("bytes an upper bound: counted from the shapes they would move faster than the "
               "device's memory bandwidth, so an input was one tensor given twice or came "
               "from the L2 cache")
"""Where the calls recorded their strides: a broadcast input is already counted once."""
OVERCOUNTED_NO_STRIDES = (
    "bytes an upper bound: counted from the shapes they would move faster than the device's "
    "memory bandwidth, so an input was one tensor given twice, a broadcast view (the trace "
    "records no strides) or came from the L2 cache")


def overcounted_text(rows: Sequence[OpRow]) -> str:
    """Why rows' bytes are an upper bound: the causes the trace cannot tell apart."""
    return OVERCOUNTED if all(row.strides for row in rows) else OVERCOUNTED_NO_STRIDES


def device_line(eff: OpEfficiency) -> str:
    """Which device's peaks apply, and their source."""
    if eff.peaks is None:
        return (f"Device {eff.device or 'unknown'}: not in the peaks table, so no % of peak "
                "(docs/op_efficiency.md lists the devices).")
    rates = ", ".join(f"{dtype} {rate:.5g}" for dtype, rate in eff.peaks.tflops.items())
    own = (" An operator whose kernels were profiled takes the ceilings of those launches "
           "(the JSON's peak_source)." if eff.peaks.measured else "")
    return (f"Device {eff.device} = {eff.peaks.product}: dense peaks (TFLOP/s) {rates}; "
            f"memory {eff.peaks.memory_gbps:g} GB/s ({eff.peaks.source}).{own}")


def mfu_cells(eff: OpEfficiency) -> list[tuple[str, ...]]:
    """Step, time, model FLOPs, dtype, peak, MFU: one row per step."""
    return [("all" if m.step is None else str(m.step), fmt_ns(m.duration_ns),
             f"{m.model_flops:.4g}", m.dtype or NOT_AVAILABLE,
             _number(m.peak_tflops, 1), NOT_AVAILABLE if m.mfu_pct is None
             else f"{m.mfu_pct:.2f} %", m.source) for m in eff.mfu]


def op_efficiency_markdown(eff: OpEfficiency, top: int = MARKDOWN_ROWS) -> str:
    """The Markdown section (the operators with the most GPU time first)."""
    lines = ["", "## Operator efficiency (estimate from shapes)", ""]
    if not eff.available:
        return "\n".join([*lines, f"Not available: {eff.shapes}.", ""]) + "\n"
    lines += [f"Shapes from {eff.shapes}. {device_line(eff)}", ""]
    lines += ["| " + " | ".join(COLUMNS) + " |",
              "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for row in eff.rows[:top]:
        cells = [c.replace("|", "\\|") for c in row_cells(row)]
        cells[1] = f"`{cells[1]}`" if cells[1] else ""
        lines.append("| " + " | ".join(cells) + " |")
    if len(eff.rows) > top:
        rest = sum(r.gpu_time_ns for r in eff.rows[top:])
        lines.append(f"\n{len(eff.rows) - top} more operators, {fmt_ns(rest)} of GPU time.")
    over = sum(r.bytes_overcounted for r in eff.rows)
    if over:
        text = overcounted_text([r for r in eff.rows if r.bytes_overcounted])
        lines.append(f"\n{over} operator row(s) have no % of peak: {text} (the "
                     "profiler records shapes, not which tensor each input is, nor where "
                     "it was).")
    lines += ["", "| step | time | model FLOPs | dtype | peak TFLOP/s | MFU | FLOPs from |",
              "| --- | ---: | ---: | --- | ---: | ---: | --- |"]
    lines += ["| " + " | ".join(cells) + " |" for cells in mfu_cells(eff)]
    chart = op_roofline_text(eff, width=78, height=18, color=False)
    if chart:
        lines += ["", "```", chart, "```"]
    return "\n".join(lines) + "\n"


def operators_frame(eff: OpEfficiency) -> pl.DataFrame:
    """The operators as the Kernels view's second table lists them (numbers, not text: the
    table sorts them)."""
    rows = [{
        "Operator": r.op, "Input shapes": r.input_shapes, "Dtype": r.dtype or NOT_AVAILABLE,
        "Calls": r.calls, "GPU time (ns)": r.gpu_time_ns, "TFLOP/s": r.achieved_tflops,
        "GB/s": r.achieved_gbps, "% of peak": r.pct_of_peak, "Bound": r.bound or "",
        "Model": r.model} for r in eff.rows]
    return pl.DataFrame(rows, schema=OPERATOR_SCHEMA, orient="row")


OPERATOR_SCHEMA = {"Operator": pl.String, "Input shapes": pl.String, "Dtype": pl.String,
                   "Calls": pl.Int64, "GPU time (ns)": pl.Int64, "TFLOP/s": pl.Float64,
                   "GB/s": pl.Float64, "% of peak": pl.Float64, "Bound": pl.String,
                   "Model": pl.String}


def print_op_efficiency(eff: OpEfficiency, console: Console) -> None:
    """``summary``'s lines: the operators with the most GPU time and MFU per step."""
    from rich.markup import escape  # rich only where text is printed: not for the exports
    from rich.table import Table
    from rich.text import Text

    from kernelscope.export.summary import table_box

    if not eff.available:
        console.print(f"Operator efficiency: not available ({escape(eff.shapes)}).")
        return
    table = Table(title="Operators by GPU time (estimate from shapes)", box=table_box(console),
                  show_edge=False, pad_edge=False)
    shown = ("Operator", "Input shapes", "Dtype", "Calls", "GPU time", "TFLOP/s", "GB/s",
             "% of peak", "Bound")
    for name in shown:
        table.add_column(name, justify="left" if name in ("Operator", "Input shapes", "Dtype",
                                                          "Bound") else "right",
                         overflow="ellipsis" if console.is_terminal else "fold")
    rows = eff.rows[:SUMMARY_ROWS]
    for row, operator in zip(rows, _told_apart(rows), strict=True):
        table.add_row(Text(operator), *(Text(cell) for cell in row_cells(row)[1:len(shown)]))
    console.print(table)
    over = [r for r in eff.rows[:SUMMARY_ROWS] if r.bytes_overcounted]
    if over:
        console.print(escape(f"No % of peak for {', '.join(sorted({r.op for r in over}))}: "
                             f"{overcounted_text(over)}."))
    console.print(escape(device_line(eff)))
    for step, time, flops, _, _, mfu, source in mfu_cells(eff):
        console.print(f"MFU step {step}: {mfu} ({flops} FLOPs from {source} in {time})")


def _told_apart(rows: list[OpRow]) -> list[str]:
    """Each row's operator, followed by what its model says in brackets (``(causal pairs)``)
    where another row shows the same operator, shapes and dtype: the table has no Model
    column to tell them apart."""
    seen: dict[tuple[str, str, str | None], int] = {}
    for row in rows:
        key = (row.op, row.input_shapes, row.dtype)
        seen[key] = seen.get(key, 0) + 1
    out = []
    for row in rows:
        shared = seen[(row.op, row.input_shapes, row.dtype)] > 1
        tag = _MODEL_TAG.search(row.model) if shared else None
        out.append(f"{row.op}{tag.group(0)}" if tag else row.op)
    return out


_MODEL_TAG = re.compile(r" \([^()]*\)$")
"""A model's trailing note in brackets, after a space (``… (causal pairs)``)."""


def op_roofline_text(eff: OpEfficiency, width: int = 78, height: int = 18,
                     color: bool = False) -> str:
    """A log-log roofline of the operators with FLOPs (intensity against achieved FLOP/s),
    under the roof of the dtype that carries most of their time; ``""`` when no operator
    has both FLOPs and bytes or the device's peaks are unknown."""
    rows = [r for r in eff.rows if r.intensity and r.achieved_tflops and r.dtype]
    if not rows or eff.peaks is None:
        return ""
    by_dtype: dict[str, int] = {}
    for row in rows:
        by_dtype[row.dtype or ""] = by_dtype.get(row.dtype or "", 0) + row.gpu_time_ns
    dtype = max(by_dtype, key=by_dtype.__getitem__)
    peak, ridge = eff.peaks.peak_tflops(dtype), eff.peaks.ridge(dtype)
    if peak is None or ridge is None:
        return ""
    points = [(math.log10(r.intensity or 1), math.log10((r.achieved_tflops or 0) * 1e12))
              for r in rows if r.dtype == dtype]
    # here: the exports' JSON and Markdown draw no roofline
    from kernelscope.render.plotext_figure import plotext_figure

    with plotext_figure(max(30, width), max(10, height)) as plt:
        text = _draw(plt, points, peak * 1e12, ridge, eff.peaks.memory_gbps * 1e9, color)
    legend = textwrap.wrap(f"• an operator (shapes, dtype {dtype}); roof: {peak:g} TFLOP/s, "
                           f"{eff.peaks.memory_gbps:g} GB/s, ridge {ridge:.0f} FLOP/byte",
                           max(30, width))
    return text.rstrip("\n") + "\n" + "\n".join(legend)


def _draw(plt: Any, points: list[tuple[float, float]], peak: float, ridge: float,
          bandwidth: float, color: bool) -> str:
    fig = plt.figure
    fig.theme("simple" if color else "colorless")
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    x_lo = math.floor(min([*xs, math.log10(ridge)]) - 0.5)
    x_hi = math.ceil(max([*xs, math.log10(ridge)]) + 0.5)
    y_lo = math.floor(min([*ys, math.log10(peak) - 3]))
    y_hi = math.ceil(math.log10(peak) + 0.2)
    fig.ruler("x").lim(x_lo, x_hi)
    fig.ruler("y").lim(y_lo, y_hi)
    fig.ruler("x").ticks(list(range(x_lo, x_hi + 1)),
                         [f"{10.0 ** t:g}" for t in range(x_lo, x_hi + 1)])
    fig.ruler("y").ticks(list(range(y_lo, y_hi + 1)),
                         [f"{10.0 ** (t - 12):g}T" for t in range(y_lo, y_hi + 1)])
    roof = fig.signal([x_lo, math.log10(ridge), x_hi],
                      [math.log10(bandwidth) + x_lo, math.log10(peak), math.log10(peak)],
                      marker=plt.marker("braille", pixel="orange"))
    fig.draw(roof.lines())
    fig.draw(fig.signal(xs, ys, marker=plt.marker("•", pixel="blue")))
    fig.title("Operators on the roofline")
    fig.label("FLOP/byte", axis="x")
    fig.label("FLOP/s", axis="y")
    return str(fig.build().string(colorless=not color))
