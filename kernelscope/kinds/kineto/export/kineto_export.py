"""A Kineto trace's renderers (JSON and Markdown; its CSV is the timeline's) and its
``summary``: the timeline's (the same tables the nsys timeline exports) plus HTA's numbers
and the trace's run and steps."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

from kernelscope.core.durations import fmt_duration
from kernelscope.core.shares import fmt_percent, fmt_share
from kernelscope.export import json_text
from kernelscope.export.writer import ExportOptions
from kernelscope.kinds.kineto.analysis.hta import HtaNumbers
from kernelscope.kinds.kineto.analysis.timeline import KinetoTimelineData
from kernelscope.timeline.export.breakdown_json import breakdown_doc
from kernelscope.timeline.export.timeline_export import render_timeline_md, timeline_doc
from kernelscope.timeline.export.timeline_summary import print_timeline_summary

SCHEMA = "kernelscope/kineto/1"


def hta_doc(hta: HtaNumbers) -> dict[str, Any]:
    """HTA's numbers as the JSON members ``temporal_breakdown``, ``comm_comp_overlap_pct``,
    ``idle_time_by_stream`` and ``kernel_types``."""
    return {**breakdown_doc(hta.temporal, hta.overlap_pct), **hta.stream_and_type_members()}


def trace_doc(data: KinetoTimelineData) -> dict[str, Any]:
    trace = data.trace
    dist = trace.distributed
    return {
        "events": trace.events, "base_time_ns": trace.base_time_ns,
        "distributed": None if dist is None else {
            "backend": dist.backend, "rank": dist.rank, "world_size": dist.world_size,
            "groups": list(dist.groups)},
        "steps": [{"step": s, "start_ns": a, "end_ns": b, "duration_ns": b - a}
                  for s, a, b in trace.steps.select("step", "start", "end").rows()],
        "median_step_ns": trace.median_step_ns,
    }


def with_trace(doc: dict[str, Any], data: KinetoTimelineData) -> dict[str, Any]:
    """The timeline's document ``doc`` as the Kineto kind's: its schema, the trace's run and
    steps, and HTA's numbers (non-finite floats are written null by ``json_text``)."""
    doc["schema"] = SCHEMA
    doc["kineto"] = trace_doc(data)
    doc.update(hta_doc(data.hta))
    return doc


def hta_markdown(data: KinetoTimelineData) -> str:
    hta = data.hta
    lines = ["", "## HTA's numbers (Holistic Trace Analysis 0.5.0 definitions)", ""]
    temporal = hta.temporal
    if temporal is not None:
        shares = (fmt_percent(pct, 2) for pct in
                  (temporal.idle_pct, temporal.compute_pct, temporal.non_compute_pct))
        lines += ["| idle | compute | non-compute | kernel time |", "| ---: | ---: | ---: | ---: |",
                  f"| {' | '.join(shares)} | {fmt_duration(temporal.kernel_ns)} |", ""]
    overlap = hta.overlap_pct
    lines.append("Communication overlapped by computation: "
                 + ("no communication kernels" if overlap is None else fmt_percent(overlap, 2)))
    lines += ["", "| stream | idle category | idle time | share |", "| ---: | --- | ---: | ---: |"]
    lines += [f"| {s} | {c} | {fmt_duration(int(t) * 1000)} | {fmt_share(r or 0)} |"
              for s, c, t, r in hta.idle_by_stream.rows()]
    return "\n".join(lines) + "\n"


def render_kineto_json(data: KinetoTimelineData, options: ExportOptions) -> str:
    """``--format json``: the timeline's document with the trace's run, steps and HTA's
    numbers (its CSV is the timeline's)."""
    return json_text.dumps(with_trace(timeline_doc(data, options), data)) + "\n"


def render_kineto_md(data: KinetoTimelineData, options: ExportOptions) -> str:
    """``--format md``: the timeline's Markdown, then HTA's numbers."""
    return render_timeline_md(data, options) + hta_markdown(data)


def print_kineto_summary(data: KinetoTimelineData, console: Console) -> None:
    """The timeline's summary, then the run, the steps and HTA's numbers."""
    print_timeline_summary(data, console)
    trace = data.trace
    if trace.distributed is not None:
        d = trace.distributed
        console.print(f"Rank {d.rank} of {d.world_size} ({escape(str(d.backend))})")
    median = trace.median_step_ns
    if median is not None:
        console.print(f"{trace.steps.height} profiler steps, median {fmt_duration(median)}")
    hta = data.hta
    if hta.temporal is not None:
        t = hta.temporal
        overlap = "none" if hta.overlap_pct is None else fmt_percent(hta.overlap_pct, 2)
        console.print(f"HTA: idle {fmt_percent(t.idle_pct, 2)}, "
                      f"compute {fmt_percent(t.compute_pct, 2)}, "
                      f"non-compute {fmt_percent(t.non_compute_pct, 2)} of "
                      f"{fmt_duration(t.kernel_ns)}; comm/comp overlap {overlap}")
