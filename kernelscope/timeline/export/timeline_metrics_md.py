"""The timeline report's GPU metrics and CUDA graph sections in Markdown: the verdict, a table
of each sampled metric, an ASCII strip per lane metric, the means per kernel and per NVTX
range, and each graph's replays against the same kernels launched eagerly."""

from __future__ import annotations

from typing import Any

from kernelscope.core.durations import fmt_ns
from kernelscope.core.kernel_names import short_name
from kernelscope.core.shares import fmt_pct
from kernelscope.core.units import EMPTY_CELL, fmt_number
from kernelscope.export.markdown import fenced, table
from kernelscope.timeline.analysis.graphs import GRAPH_HINT
from kernelscope.timeline.analysis.timeline_data import TimelineData
from kernelscope.timeline.export.timeline_json import (
    family_metric_rows,
    metric_rows,
    nvtx_metric_rows,
)
from kernelscope.timeline.model.gpu_metrics import DEFAULT_LANES, SPECS
from kernelscope.timeline.model.profilers import KINETO, KINETO_GRAPH_NOTE

STRIP_LEVELS = " ▁▂▃▄▅▆▇█"
NO_SAMPLE = "·"
NAME_WIDTH = 48


def metric_strip(values: list[float | None], top: float = 100.0, *,
                 show_any: bool = False) -> str:
    """One character per window, blank at 0 to a full block at ``top``; ``·`` where no
    sample covers the window. With ``show_any`` a window above 0 gets at least the lowest
    block (a nearly idle GPU's busy strip shows when it worked instead of an empty box)."""
    last = len(STRIP_LEVELS) - 1
    return "".join(
        NO_SAMPLE if v is None
        else STRIP_LEVELS[min(last, max(int(show_any and v > 0), round(v / top * last)))]
        for v in values
    )


def _value(value: Any, unit: str) -> str:
    if value is None:
        return EMPTY_CELL
    return fmt_pct(float(value), 1, sign=True) if unit == "%" else f"{float(value):,.0f} {unit}"


def _mean_cells(row: dict[str, Any]) -> tuple[str, ...]:
    return (fmt_number(row["samples"]), *(_value(row[k], "%") for k in
                                          ("sm_active", "sm_issue", "tensor_active", "dram")))


MEAN_HEADERS = ("Samples", "SMs active", "SM issue", "Tensor", "DRAM r+w")


def metrics_section(data: TimelineData, top: int, windows: int) -> list[str]:
    """``## GPU metrics``: verdicts, the table, strips, per-kernel and per-range means."""
    lines = ["## GPU metrics", ""]
    for v in data.metrics_verdicts:
        where = "" if v.device is None else f"Device {v.device}: "
        lines.append(f"- {where}{v.sentence}")
    lines.append("")
    rows = metric_rows(data)
    if not rows:
        return lines
    lines += [
        table(
            ("Metric", "Device", "Mean", "p50", "p95", "Max", "Samples"),
            ((r["name"], r["device"], _value(r["mean"], r["unit"]), _value(r["p50"], r["unit"]),
              _value(r["p95"], r["unit"]), _value(r["max"], r["unit"]),
              fmt_number(r["samples"])) for r in rows),
            "lrrrrrr",
        ),
        "",
    ]
    spans = {int(r["device"]): (int(r["start_ns"]), int(r["end_ns"]))
             for r in data.utilization.iter_rows(named=True)}
    for device in data.report.gpu_metrics.devices:
        keys = [k for k in DEFAULT_LANES if data.report.gpu_metrics.get(device, k)]
        if not keys:
            continue
        t0, t1 = spans.get(device, (data.start_ns, data.end_ns))
        width = max(len(SPECS[k].label) for k in keys)
        strips = [f"{SPECS[k].label:<{width}} |"
                  + metric_strip(data.metric_strip(device, k, t0, t1, windows)) + "|"
                  for k in keys]
        lines += [f"Device {device} from its first to its last operation ({fmt_ns(t1 - t0)}"
                  f", {windows} windows; full block = 100 %, {NO_SAMPLE} = no sample):", "",
                  fenced("\n".join(strips)), ""]
    families = family_metric_rows(data)
    if families:
        lines += [
            "### While each kernel ran",
            "",
            "Mean of the samples taken while a launch of the kernel ran (a kernel shorter than "
            "the sampling period may get none).",
            "",
            table(("Kernel", "Device", "Instances", "Total", *MEAN_HEADERS),
                  ((short_name(r["name"], NAME_WIDTH), r["device"], fmt_number(r["instances"]),
                    fmt_ns(r["total_ns"]), *_mean_cells(r)) for r in families[:top]),
                  "lrrrrrrrr"),
            "",
        ]
    ranges = nvtx_metric_rows(data)
    if ranges:
        lines += [
            "### While each NVTX range was open",
            "",
            table(("Range", "Device", "Instances", "Total", *MEAN_HEADERS),
                  ((r["name"], r["device"], fmt_number(r["instances"]),
                    fmt_ns(r["total_ns"]), *_mean_cells(r)) for r in ranges[:top]),
                  "lrrrrrrrr"),
            "",
        ]
    return lines


def graphs_section(data: TimelineData, top: int) -> list[str]:
    """``## CUDA graphs``: per graph (the first ``top``), its replays against the eager
    launches."""
    lines = ["## CUDA graphs", ""]
    launches = data.graph_launches
    if not launches.height:
        return [*lines, "No CUDA graph launches.", ""]
    if not data.graphs:
        hint = KINETO_GRAPH_NOTE if data.report.profiler == KINETO else GRAPH_HINT
        return [*lines, f"{launches.height} graph launches without their kernels: {hint}.", ""]
    if len(data.graphs) > top:
        lines += [f"The first {top} of {len(data.graphs):,} graphs.", ""]
    for g in data.graphs[:top]:
        lines += [
            f"Graph {g.graph} on device {g.device}: {g.replays} replays of "
            f"{g.kernels_per_replay} kernels; {fmt_number(g.eager_kernels)} launches of the "
            "same kernels outside graphs.",
            "",
            table(
                ("", "Graph replays", "Launched one by one"),
                (
                    ("Kernels", fmt_number(g.graph_kernels), fmt_number(g.eager_kernels)),
                    ("Mean kernel", fmt_ns(g.graph_kernel_ns),
                     fmt_ns(g.eager_kernel_ns)),
                    ("Median gap between kernels", fmt_ns(g.inner_gap_ns),
                     fmt_ns(g.eager_gap_ns)),
                    ("Median gap between replays", fmt_ns(g.between_gap_ns), "—"),
                    (f"Time for {g.kernels_per_replay} kernels", fmt_ns(g.replay_span_ns),
                     fmt_ns(g.eager_equivalent_ns)),
                    ("CPU launch call", f"{fmt_ns(g.launch_call_ns)} a replay",
                     f"{fmt_ns(g.eager_launch_call_ns)} a kernel"),
                    ("GPU busy while running", fmt_pct(g.graph_busy_pct, 1, sign=True),
                     fmt_pct(g.eager_busy_pct, 1, sign=True)),
                ),
                "lrr",
            ),
            "",
        ]
    return lines


__all__ = ["graphs_section", "metric_strip", "metrics_section"]
