"""Read one kernel's pane data out of an ncu_report action into plain objects."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from kernelscope.parsers.ncu.measured import unmeasured_reason
from kernelscope.parsers.ncu.metrics import Metric, read_metric, read_series
from kernelscope.parsers.ncu.model import (
    RULE_TYPES,
    SPEEDUP_TYPES,
    KernelDetail,
    RuleResult,
    SassLine,
    SourceHotspots,
    SourceLine,
    launch_dims,
)
from kernelscope.parsers.ncu.panes import (
    OCCUPANCY_CURVES,
    PANES,
    SOL_BREAKDOWNS,
    STALL_PREFIX,
    STALL_SUFFIX,
    pane_metric_names,
)

_PANE_METRICS = pane_metric_names()
_SECTION_PANES = {s for pane in PANES for s in pane.section_metrics}


def _flatten(items: Any) -> list[Any]:
    out: list[Any] = []
    for item in items or ():
        if isinstance(item, (tuple, list)):
            out.extend(_flatten(item))
        else:
            out.append(item)
    return out


def _metric_names(items: Any) -> list[str]:
    return [m.name() for m in _flatten(items) if hasattr(m, "name")]


def read_rules(action: Any) -> tuple[RuleResult, ...]:
    """NCU's rule results of the action, skipping messages the CLI does not print. (Read
    rule by rule rather than through ``rule_results_as_dicts``, which also builds every
    rule's result tables, a third of its cost, and the parts of the skipped ones.)"""
    out = []
    for result in action.rule_results() or ():
        msg = result.rule_message() or {}
        kind = RULE_TYPES.get(int(msg.get("type", 0) or 0))
        if kind is None:
            continue
        speed = (result.speedup_estimation() or {}) if result.has_speedup_estimation() else {}
        focus = tuple(
            (str(f.get("name", "")), f.get("value"), str(f.get("info", "")))
            for f in result.focus_metrics() or ()
        )
        out.append(
            RuleResult(
                rule=str(result.rule_identifier() or ""),
                name=str(result.name() or ""),
                section=str(result.section_identifier() or ""),
                type=kind,
                title=str(msg.get("title", "")),
                message=str(msg.get("message", "")),
                speedup_type=SPEEDUP_TYPES.get(int(speed.get("type", 0) or 0)) if speed else None,
                speedup_pct=float(speed["speedup"]) if speed.get("speedup") is not None else None,
                focus_metrics=focus,
            )
        )
    return tuple(out)


def build_detail(
    action: Any,
    kernel_id: int,
    range_idx: int,
    action_idx: int,
    names: tuple[str, str, str],
    extra_metrics: tuple[str, ...] = (),
    *,
    curves: bool = True,
    breakdowns: bool = True,
    tables: bool = True,
    origin: tuple[int | None, str] = (None, ""),
) -> KernelDetail:
    """Read every metric the panes (and ``extra_metrics``) need for one kernel; ``curves``
    also reads the occupancy curves (half the cost on small kernels) and ``breakdowns`` the
    ~50 Speed Of Light breakdown metrics, and ``tables`` NCU's section header tables with
    their labels (Markdown records skip all three)."""
    sections: dict[str, str] = {}
    section_metrics: dict[str, tuple[str, ...]] = {}
    stall_reasons: list[str] = []
    wanted: dict[str, None] = dict.fromkeys(_PANE_METRICS)
    for name in extra_metrics:
        wanted.setdefault(name, None)
    for section in action.sections() or ():
        ident = section.identifier()
        sections[ident] = section.name()
        if ident in _SECTION_PANES:
            if tables:
                header = _metric_names(section.header_metrics())
                section_metrics[ident] = tuple(header)
                for name in header:
                    wanted.setdefault(name, None)
            for name in _metric_names(section.body_metrics()):
                if name.startswith(STALL_PREFIX) and name.endswith(STALL_SUFFIX):
                    stall_reasons.append(name)
                    wanted.setdefault(name, None)
    breakdown_parts: dict[str, tuple[str, ...]] = {}
    for bd in SOL_BREAKDOWNS if breakdowns else ():
        m = read_metric(action, bd)
        if m is not None and isinstance(m.value, str) and m.value:
            parts = tuple(p for p in m.value.split(",") if p)
            breakdown_parts[bd.removeprefix("breakdown:")] = parts
            for name in parts:
                wanted.setdefault(name, None)
    metrics: dict[str, Metric] = {}
    for name in wanted:
        m = read_metric(action, name, label=tables)
        if m is not None:
            metrics[name] = m
    series_by_name = {}
    for _, name in OCCUPANCY_CURVES if curves else ():
        series = read_series(action, name)
        if series is not None and series.points:
            series_by_name[name] = series
    grid, block = launch_dims(metrics)
    name, demangled, mangled = names
    return KernelDetail(
        id=kernel_id,
        range_idx=range_idx,
        action_idx=action_idx,
        name=name,
        demangled=demangled,
        mangled=mangled,
        grid=grid,
        block=block,
        metrics=metrics,
        sections=sections,
        section_metrics=section_metrics,
        breakdowns=breakdown_parts,
        stall_reasons=tuple(stall_reasons),
        curves=series_by_name,
        rules=read_rules(action),
        unmeasured=unmeasured_reason(metrics),
        pid=origin[0],
        process=origin[1],
    )


def read_all_metrics(action: Any) -> dict[str, Metric]:
    """Every metric of the action that holds a value."""
    out: dict[str, Metric] = {}
    for name in action.metric_names():
        m = read_metric(action, name)
        if m is not None:
            out[name] = m
    return out


def _per_pc(action: Any, name: str) -> dict[int, int]:
    raw = action.metric_by_name(name)
    if raw is None or raw.num_instances() == 0 or not raw.has_correlation_ids():
        return {}
    ids = raw.correlation_ids()
    return {int(ids.as_uint64(i)): int(raw.as_uint64(i)) for i in range(raw.num_instances())}


def read_source_hotspots(action: Any, top: int = 20) -> SourceHotspots | None:
    """Aggregate per-PC stall samples and executed instructions by source line and by SASS."""
    samples = _per_pc(action, "smsp__pcsamp_sample_count")
    executed = _per_pc(action, "inst_executed")
    pcs = set(samples) | set(executed)
    if not pcs:
        return None
    files: dict[str, list[str]] = {}
    try:
        for fname, text in dict(action.source_files() or {}).items():
            files[fname] = text.splitlines()
    except (TypeError, RuntimeError):
        files = {}
    by_line: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0])
    where: dict[int, tuple[str, int]] = {}
    has_line_info = False
    for pc in pcs:
        info = action.source_info(pc)
        fname, line = ("", 0)
        if info is not None:
            fname, line = info.file_name() or "", int(info.line() or 0)
        where[pc] = (fname, line)
        if fname:
            has_line_info = True
            acc = by_line[(fname, line)]
            acc[0] += samples.get(pc, 0)
            acc[1] += executed.get(pc, 0)
    # The SASS text of the hottest instructions only (~0.2 ms an instruction).
    hottest = sorted(pcs, key=lambda pc: (-samples.get(pc, 0), -executed.get(pc, 0), pc))[:top]
    sass_top = [
        SassLine(
            pc, (action.sass_by_pc(pc) or "").strip(), *where[pc],
            samples.get(pc, 0), executed.get(pc, 0),
        )
        for pc in hottest
    ]

    def text_of(fname: str, line: int) -> str:
        lines = files.get(fname)
        if lines and 0 < line <= len(lines):
            return lines[line - 1].strip()
        return ""

    lines = sorted(
        (SourceLine(f, ln, text_of(f, ln), s, e) for (f, ln), (s, e) in by_line.items()),
        key=lambda x: (-x.samples, -x.inst_executed, x.file, x.line),
    )[:top]
    return SourceHotspots(
        total_samples=sum(samples.values()),
        total_inst_executed=sum(executed.values()),
        lines=tuple(lines),
        sass=tuple(sass_top),
        has_line_info=has_line_info,
    )
